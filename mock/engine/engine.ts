/**
 * The simulator's domain: accounts and ledgers, pricing, the activation registry,
 * outcome rules, supply and the order lifecycle, all driven by an injected clock and
 * a seeded random source. It knows nothing of HTTP.
 */
import {
  accountFromSnapshot,
  accountSnapshot,
  createAccountRecord,
  digestKey,
  generateApiKey,
  type Account,
} from './accounts.ts';
import { createAddressRegistry, type AddressRegistry } from './address-registry.ts';
import { booksProblems } from './books-check.ts';
import { deposit, releaseFrozen, spendFrozen } from './ledger.ts';
import { nextStep, wakeAt } from './lifecycle.ts';
import { Order } from './order.ts';
import { createOrderIdMaker } from './order-id.ts';
import { createOrderPages, TX_ID_BYTES, type OrderPages } from './order-page.ts';
import { createOrderStore, type OrderStore } from './order-store.ts';
import { createOutcomeRules, type OutcomeRules } from './outcome-rules.ts';
import { freezePayment } from './payment.ts';
import { quote } from './pricing.ts';
import { createRandomSource, type RandomSource } from './random-source.ts';
import { createScheduler, type Scheduler } from './scheduler.ts';
import { activationDelay, applySettings, DEFAULT_SETTINGS, type Settings } from './settings.ts';
import { SimulatorError } from './simulator-error.ts';
import { pendingSnapshot, SNAPSHOT_FORMAT, type EngineSnapshot } from './snapshot.ts';
import { refuseIfBroken, snapshotProblems } from './snapshot-check.ts';
import { planDelays } from './timing.ts';
import type { Engine, EngineEvent, EngineOptions, Scenario } from './engine-types.ts';

export type {
  AccountSeed,
  CreateOrderInput,
  Engine,
  EngineEvent,
  EngineOptions,
  Scenario,
  Supply,
} from './engine-types.ts';

/** The demo account of the default scenario. */
export const DEMO_SCENARIO: Scenario = {
  accounts: [{ apiKey: 'demo-key', trx: 1_000_000_000, usdt: 100_000_000 }],
};

/**
 * Creates an engine.
 *
 * @example
 *   const engine = createEngine({ clock: createManualClock(), seed: 42, scenario: DEMO_SCENARIO });
 *   const account = engine.authenticate('demo-key')!;
 *   engine.createOrder(account, { pledgeAddress: 'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3', rentalCount: 65000, period: '1h' });
 */
export function createEngine(options: EngineOptions): Engine {
  const { clock } = options;
  const seed = options.seed ?? 1;
  const scenario = options.scenario ?? {};
  const listeners = new Set<(event: EngineEvent) => void>();
  // This engine's own: the stamp of the last second an id was made in.
  const orderId = createOrderIdMaker();
  /** Where createOrder draws a txId before the order that keeps it exists; the Order copies it. */
  const txIdDraw = new Uint8Array(TX_ID_BYTES);

  let random: RandomSource;
  /** Where this engine's orders take their rows; a fresh one per load, so a reset starts on a fresh page. */
  let pages: OrderPages;
  let settings: Settings;
  let accountsByDigest: Map<string, Account>;
  let accountList: Account[];
  let orders: OrderStore;
  let registry: AddressRegistry;
  let rules: OutcomeRules;
  let supplyEnergy: number | null;
  let delegated: number;
  let scheduler: Scheduler<Order> | undefined;
  let created: number;
  let version = 0;
  /** Snapshots being written; each keeps an order's state before a step changes it. */
  const beforeChange = new Set<(order: Order) => void>();

  const emit = (event: EngineEvent): void => {
    version++;
    for (const listener of listeners) listener(event);
  };

  function load(): void {
    scheduler?.clear();
    random = createRandomSource(seed);
    pages = createOrderPages();
    settings = applySettings(DEFAULT_SETTINGS, scenario.settings ?? {});
    accountsByDigest = new Map();
    accountList = [];
    registry = createAddressRegistry(scenario.activatedAddresses ?? [], clock.now(), [], {
      capacity: () => settings.maxStoredAddresses,
    });
    orders = createOrderStore(registry);
    rules = createOutcomeRules();
    for (const rule of scenario.rules ?? []) rules.add(rule);
    supplyEnergy = scenario.supply ?? null;
    delegated = 0;
    created = 0;
    scheduler = createScheduler(clock, step);
    for (const seedAccount of scenario.accounts ?? []) {
      engine.createAccount({
        apiKey: seedAccount.apiKey,
        trx: seedAccount.trx ?? 0,
        usdt: seedAccount.usdt ?? 0,
        referralCount: seedAccount.referralCount ?? 0,
      });
    }
  }

  function newOrderId(): string {
    const now = clock.now();
    for (;;) {
      const id = orderId(now, random);
      if (!orders.has(id)) return id;
    }
  }

  /** Moves an order one step along its lifecycle (lifecycle.ts); the scheduler calls it when due. */
  function step(order: Order): void {
    for (const capture of beforeChange) capture(order);
    const now = clock.now();
    const next = nextStep(order);
    if (!next) {
      // A completed rental ended: its energy returns to the pool.
      if (order.status === 'COMPLETED' && order.reserved) {
        delegated -= order.rentalCount;
        order.reserved = false;
      }
      return;
    }
    const ledger = order.account.ledger;
    order.status = next.status;
    switch (next.status) {
      case 'PROCESSING':
        order.processingAt = now;
        if (order.activates) registry.activateClaimed(order.pledgeAddress, order.id, now);
        if (supplyEnergy !== null && order.outcome === 'COMPLETED' && !order.forced) {
          if (delegated + order.rentalCount > supplyEnergy) {
            order.outcome = 'FAILED';
            order.failureReason = `insufficient supply: ${supplyEnergy - delegated} energy left, ${order.rentalCount} ordered`;
          } else {
            delegated += order.rentalCount;
            order.reserved = true;
          }
        }
        break;
      case 'COMPLETED':
      case 'FAILED':
        order.outcomeAt = now;
        if (next.status === 'COMPLETED') {
          spendFrozen(ledger, order.currency, order.amount);
          emit({ type: 'account', account: order.account });
        }
        break;
      case 'REFUNDED':
        order.refundedAt = now;
        order.refunds++;
        releaseFrozen(ledger, order.currency, order.amount);
        emit({ type: 'account', account: order.account });
        break;
      default:
        break;
    }
    scheduleNext(order);
    emit({ type: 'order', order });
  }

  /** Queues an order's next wake-up, whatever its status (used at creation, on each step and on restore). */
  function scheduleNext(order: Order): void {
    const at = wakeAt(order);
    if (at !== undefined) scheduler!.schedule(at, order);
  }

  /** Restores a snapshot whose shape is valid (spec/control.yaml's StateFile); refuses one whose parts do not agree. */
  function restoreFrom(saved: EngineSnapshot): void {
    refuseIfBroken(snapshotProblems(saved));
    settings = applySettings(DEFAULT_SETTINGS, saved.settings);
    supplyEnergy = saved.supply.energy;
    delegated = saved.supply.delegated;
    rules.restore(saved.rules);
    registry = createAddressRegistry([], clock.now(), saved.addresses, {
      capacity: () => settings.maxStoredAddresses,
      keep: scenario.activatedAddresses ?? [],
    });
    orders = createOrderStore(registry);
    accountsByDigest = new Map();
    accountList = [];
    const byId = new Map<number, Account>();
    for (const a of saved.accounts) {
      const account = accountFromSnapshot(a);
      accountsByDigest.set(account.keyDigest, account);
      accountList.push(account);
      byId.set(account.id, account);
    }
    for (const o of saved.orders) {
      const order = Order.fromSnapshot(pages, byId.get(o.accountId)!, o);
      orders.add(order);
      scheduleNext(order);
    }
    registry.trim();
    created = saved.created;
    // The random source's inner state is not saved; reseeding by what was created keeps
    // a restored run deterministic, though not identical to an uninterrupted one.
    random = createRandomSource(seed + created);
    // What the file says must hold before any step runs on it.
    refuseIfBroken(engine.checkInvariants());
    // Steps that fell due while the simulator was down happen now, in order.
    scheduler!.runDue();
  }

  const engine: Engine = {
    clock,
    seed,
    settings: () => settings,
    updateSettings(patch) {
      settings = applySettings(settings, patch);
      orders.evict(settings.maxStoredOrders);
      registry.trim();
      emit({ type: 'settings' });
      return settings;
    },
    authenticate: (apiKey) => accountsByDigest.get(digestKey(apiKey)),
    quote: (rentalCount, period) => quote(settings.prices, rentalCount, period),

    createOrder(account, input) {
      if (input.outOrderNo !== undefined) {
        const existing = account.byOutOrderNo.get(input.outOrderNo);
        if (existing) {
          if (settings.duplicateOutOrderNo === 'reject') {
            throw new SimulatorError(
              'duplicateOutOrderNo',
              `Duplicate outOrderNo '${input.outOrderNo}': order ${existing.id} already has it. Use a new outOrderNo for a new order.`,
            );
          }
          return { order: existing, duplicate: true };
        }
      }
      const priced = quote(settings.prices, input.rentalCount, input.period);
      const { currency, amount } = freezePayment(account.ledger, priced, settings.microUsdtPerTrx);
      const id = newOrderId();
      // Kept as the 32 bytes the Order stores, drawn a 32-bit word at a time.
      random.hexInto(txIdDraw, 0, TX_ID_BYTES);
      const rule = rules.take(input);
      // The failure roll is drawn for every order, so rules and rates do not shift later ids.
      const roll = random.float();
      const outcome = rule ? rule.outcome : roll < settings.failureRate ? 'FAILED' : 'COMPLETED';
      const activates = registry.claim(input.pledgeAddress, id);
      const plan = planDelays(settings.timing, random, {
        activates,
        activationDelayMs: activationDelay(settings),
        fixedOutcomeMs: rule?.delayMs,
        delays: settings.delaysMs,
      });
      // What the caller asked for is handed on as it is: a new request field needs no change here.
      const order = new Order(
        pages,
        {
          id,
          account,
          currency,
          amount,
          createdAt: clock.now(),
          plannedTxId: txIdDraw,
          outcome,
          forced: rule !== undefined,
          activates,
          processingAfter: plan.processingAfter,
          outcomeAfter: plan.outcomeAfter,
          refundAfter: plan.refundAfter,
        },
        input,
      );
      orders.add(order);
      created++;
      // Steps already due (the instant profile, a zero delay) happen before the caller sees the order.
      scheduler!.batch(() => {
        scheduleNext(order);
        emit({ type: 'order', order });
        emit({ type: 'account', account });
      });
      if (orders.size > settings.maxStoredOrders) orders.evict(settings.maxStoredOrders);
      return { order, duplicate: false };
    },

    findOrder(account, ref) {
      const order =
        ref.orderId !== undefined ? orders.get(ref.orderId) : account.byOutOrderNo.get(ref.outOrderNo ?? '');
      // Another account's order is reported exactly like a missing one, so ids cannot be probed.
      if (!order || order.account !== account) {
        const which =
          ref.orderId !== undefined ? `orderId '${ref.orderId}'` : `outOrderNo '${ref.outOrderNo}'`;
        throw new SimulatorError('orderNotFound', `Order not found: no order of this account has ${which}.`);
      }
      return order;
    },

    createAccount(input = {}) {
      const apiKey = input.apiKey ?? generateApiKey();
      if (accountsByDigest.has(digestKey(apiKey))) {
        throw new SimulatorError(
          'conflict',
          'An account with that apiKey exists already; choose another key or omit it to get a generated one.',
        );
      }
      const account = createAccountRecord(accountList.length + 1, apiKey, random, input.referralCount ?? 0);
      created++;
      if (input.trx) deposit(account.ledger, 'TRX', input.trx);
      if (input.usdt) deposit(account.ledger, 'USDT', input.usdt);
      accountsByDigest.set(account.keyDigest, account);
      accountList.push(account);
      emit({ type: 'account', account });
      return { apiKey, account };
    },

    deposit(account, amounts) {
      // Check both before booking either, so a rejected deposit changes nothing.
      const ledger = account.ledger;
      const probe = { TRX: { ...ledger.TRX }, USDT: { ...ledger.USDT } };
      if (amounts.trx) deposit(probe, 'TRX', amounts.trx);
      if (amounts.usdt) deposit(probe, 'USDT', amounts.usdt);
      if (amounts.trx) deposit(ledger, 'TRX', amounts.trx);
      if (amounts.usdt) deposit(ledger, 'USDT', amounts.usdt);
      emit({ type: 'account', account });
      return account;
    },

    accounts: () => [...accountList],

    orders(account, filter = {}) {
      const out: Order[] = [];
      const limit = filter.limit ?? Infinity;
      for (let i = account.orders.length - 1; i >= 0 && out.length < limit; i--) {
        const order = account.orders.at(i)!;
        if (!filter.status || order.status === filter.status) out.push(order);
      }
      return out;
    },

    nextStep,

    rules: {
      add: (input) => (version++, rules.add(input)),
      list: () => rules.list(),
      remove: (id) => (version++, rules.remove(id)),
      clear: () => (version++, rules.clear()),
    },

    supply: () => ({ energy: supplyEnergy, delegated }),
    setSupply(energy) {
      supplyEnergy = energy;
      version++;
      return { energy: supplyEnergy, delegated };
    },

    address: (address) => registry.get(address),
    setAddress(address, activated) {
      version++;
      return registry.set(address, activated, clock.now());
    },
    addresses: () => registry.list(),

    tick: () => scheduler!.runDue(),

    reset() {
      if (clock.mode === 'manual' && 'rewind' in clock) (clock as { rewind(): void }).rewind();
      load();
      emit({ type: 'reset' });
    },

    checkInvariants: () => booksProblems(accountList),

    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    snapshot() {
      const later = engine.snapshotLater();
      const orders = later.next(Infinity);
      later.close();
      return { ...later.head, orders };
    },

    snapshotLater() {
      const head = {
        format: SNAPSHOT_FORMAT,
        savedAt: clock.now(),
        seed,
        created,
        settings,
        supply: { energy: supplyEnergy, delegated },
        rules: rules.list(),
        // Records are replaced, never changed in place, so a shallow copy holds still.
        addresses: registry.list(),
        accounts: accountList.map(accountSnapshot),
      } as const;
      return pendingSnapshot(head, orders.list(), beforeChange);
    },

    get storedOrders() {
      return orders.size;
    },
    get version() {
      return version;
    },
  };

  load();
  if (options.restore) restoreFrom(options.restore);
  return engine;
}
