/**
 * The simulator's domain: accounts and ledgers, pricing, the activation registry,
 * outcome rules, supply and the order lifecycle, all driven by an injected clock and
 * a seeded random source. It knows nothing of HTTP.
 */
import { accountFromDigest, createAccountRecord, digestKey, generateApiKey, type Account } from './accounts.ts';
import { createAddressRegistry, type AddressRecord, type AddressRegistry } from './address-registry.ts';
import type { Clock } from './clock.ts';
import { checkLedger, deposit, releaseFrozen, spendFrozen, tryFreeze } from './ledger.ts';
import { formatFixed, formatUnits, type CurrencyCode } from './money.ts';
import { Order, type OrderStatusCode } from './order.ts';
import { createOrderIdMaker } from './order-id.ts';
import { createOrderPages, TX_ID_BYTES, type OrderPages } from './order-page.ts';
import { createOutcomeRules, type OutcomeRules, type RuleInput } from './outcome-rules.ts';
import { PERIOD_MS, quote, SHOWN_DECIMALS, usdtCost, type PeriodCode, type Quote } from './pricing.ts';
import { createRandomSource, type RandomSource } from './random-source.ts';
import { createScheduler, type Scheduler } from './scheduler.ts';
import { activationDelay, applySettings, DEFAULT_SETTINGS, type Settings, type SettingsPatch } from './settings.ts';
import { SimulatorError } from './simulator-error.ts';
import { orderSnapshot, SNAPSHOT_FORMAT, type EngineSnapshot, type OrderSnapshot, type PendingSnapshot } from './snapshot.ts';
import { refuseIfBroken, snapshotProblems } from './snapshot-check.ts';
import { planDelays } from './timing.ts';

/** An account of the starting scenario. Amounts are in smallest units. */
export interface AccountSeed {
  apiKey: string;
  trx?: number;
  usdt?: number;
  referralCount?: number;
}

/** Everything a simulator starts from, and goes back to on reset. */
export interface Scenario {
  settings?: SettingsPatch;
  accounts?: AccountSeed[];
  rules?: RuleInput[];
  activatedAddresses?: string[];
  /** Energy the pool can have delegated at once; null or absent is unlimited. */
  supply?: number | null;
}

export interface EngineOptions {
  clock: Clock;
  seed?: number;
  scenario?: Scenario;
  /** State saved by `snapshot()`, restored over the scenario at start (not on reset). */
  restore?: EngineSnapshot;
}

export interface CreateOrderInput {
  pledgeAddress: string;
  rentalCount: number;
  period: PeriodCode;
  outOrderNo?: string | undefined;
}

/** What changed, for live views. */
export type EngineEvent =
  | { type: 'order'; order: Order }
  | { type: 'account'; account: Account }
  | { type: 'reset' }
  | { type: 'settings' };

export interface Supply {
  energy: number | null;
  delegated: number;
}

export interface Engine {
  readonly clock: Clock;
  readonly seed: number;
  settings(): Settings;
  updateSettings(patch: SettingsPatch): Settings;
  /** The account of an API key, or undefined. */
  authenticate(apiKey: string): Account | undefined;
  quote(rentalCount: number, period: PeriodCode): Quote;
  /** Creates an order, or returns the existing one for a known outOrderNo (`duplicate: true`). */
  createOrder(account: Account, input: CreateOrderInput): { order: Order; duplicate: boolean };
  /** Finds an order of this account; `orderId` wins over `outOrderNo` when both are given. */
  findOrder(account: Account, ref: { orderId?: string | undefined; outOrderNo?: string | undefined }): Order;
  createAccount(input?: { apiKey?: string; trx?: number; usdt?: number; referralCount?: number }): { apiKey: string; account: Account };
  deposit(account: Account, amounts: { trx?: number; usdt?: number }): Account;
  accounts(): Account[];
  orders(account: Account, filter?: { status?: OrderStatusCode; limit?: number }): Order[];
  /** The next scheduled step of an open order. */
  nextStep(order: Order): { status: OrderStatusCode; at: number } | undefined;
  readonly rules: Pick<OutcomeRules, 'add' | 'list' | 'remove' | 'clear'>;
  supply(): Supply;
  setSupply(energy: number | null): Supply;
  address(address: string): AddressRecord;
  setAddress(address: string, activated: boolean): AddressRecord;
  addresses(): AddressRecord[];
  /** Runs every lifecycle step due by the clock's now. */
  tick(): void;
  /** Back to the starting scenario, with the random source reseeded. */
  reset(): void;
  /** Every broken invariant; empty when the books and lifecycles are right. */
  checkInvariants(): string[];
  /** The whole state as JSON-ready data, for persistence. */
  snapshot(): EngineSnapshot;
  /**
   * The state of now, with the orders handed out a chunk at a time, so a large state can
   * be written without holding the event loop; later changes do not show in it. Close it
   * when done.
   */
  snapshotLater(): PendingSnapshot;
  /** How many orders are stored now (eviction keeps it at most `maxStoredOrders` when it can). */
  readonly storedOrders: number;
  /** Grows with every change of state; a saver skips writing when it has not moved. */
  readonly version: number;
  subscribe(listener: (event: EngineEvent) => void): () => void;
}

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
  let ordersById: Map<string, Order>;
  let registry: AddressRegistry;
  let rules: OutcomeRules;
  let supplyEnergy: number | null;
  let delegated: number;
  let scheduler: Scheduler<Order> | undefined;
  // Every order in creation order; evicted slots become undefined until compaction.
  let chronological: (Order | undefined)[];
  let oldest: number;
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
    ordersById = new Map();
    registry = createAddressRegistry(scenario.activatedAddresses ?? [], clock.now(), [], { capacity: () => settings.maxStoredAddresses });
    rules = createOutcomeRules();
    for (const rule of scenario.rules ?? []) rules.add(rule);
    supplyEnergy = scenario.supply ?? null;
    delegated = 0;
    chronological = [];
    oldest = 0;
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
      if (!ordersById.has(id)) return id;
    }
  }

  /** Moves an order one step along its lifecycle; the scheduler calls it when due. */
  function step(order: Order): void {
    for (const capture of beforeChange) capture(order);
    const now = clock.now();
    const ledger = order.account.ledger;
    switch (order.status) {
      case 'PENDING': {
        order.status = 'PROCESSING';
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
        scheduleNext(order);
        break;
      }
      case 'PROCESSING': {
        order.status = order.outcome;
        order.outcomeAt = now;
        if (order.outcome === 'COMPLETED') {
          spendFrozen(ledger, order.currency, order.amount);
          emit({ type: 'account', account: order.account });
        }
        scheduleNext(order);
        break;
      }
      case 'FAILED': {
        order.status = 'REFUNDED';
        order.refundedAt = now;
        order.refunds++;
        releaseFrozen(ledger, order.currency, order.amount);
        emit({ type: 'account', account: order.account });
        break;
      }
      case 'COMPLETED': {
        // The rental ended: its energy returns to the pool.
        if (order.reserved) {
          delegated -= order.rentalCount;
          order.reserved = false;
        }
        return;
      }
      default:
        return;
    }
    emit({ type: 'order', order });
  }

  /** Evicts the oldest finished orders while more than `maxStoredOrders` are stored. */
  function evict(): void {
    const cap = settings.maxStoredOrders;
    for (let i = oldest; ordersById.size > cap && i < chronological.length; i++) {
      const order = chronological[i];
      // Open orders, and completed rentals still holding supply, stay until they are done.
      if (!order || order.reserved || (order.status !== 'COMPLETED' && order.status !== 'REFUNDED')) continue;
      remove(order);
      chronological[i] = undefined;
    }
    while (oldest < chronological.length && chronological[oldest] === undefined) oldest++;
    if (oldest > 1024 && oldest > chronological.length / 2) {
      chronological = chronological.slice(oldest);
      oldest = 0;
    }
  }

  function remove(order: Order): void {
    const account = order.account;
    ordersById.delete(order.id);
    if (order.outOrderNo !== undefined && account.byOutOrderNo.get(order.outOrderNo) === order) account.byOutOrderNo.delete(order.outOrderNo);
    account.orders.remove(order);
    registry.release(order.pledgeAddress);
    if (order.status === 'COMPLETED') account.evictedSpent[order.currency] += order.amount;
  }

  function store(order: Order): void {
    ordersById.set(order.id, order);
    order.account.orders.push(order);
    registry.retain(order.pledgeAddress);
    if (order.outOrderNo !== undefined) order.account.byOutOrderNo.set(order.outOrderNo, order);
    chronological.push(order);
  }

  /** Queues an order's next step, whatever its status (used at creation and on restore). */
  function scheduleNext(order: Order): void {
    switch (order.status) {
      case 'PENDING':
        return scheduler!.schedule(order.createdAt + order.processingAfter, order);
      case 'PROCESSING':
        return scheduler!.schedule(order.createdAt + order.outcomeAfter, order);
      case 'FAILED':
        return scheduler!.schedule(order.createdAt + order.refundAfter, order);
      case 'COMPLETED':
        if (order.reserved) scheduler!.schedule(order.outcomeAt + PERIOD_MS[order.period], order);
        return;
      default:
        return;
    }
  }

  /** Restores a snapshot whose shape is valid (spec/control.yaml's StateFile); refuses one whose parts do not agree. */
  function restoreFrom(saved: EngineSnapshot): void {
    refuseIfBroken(snapshotProblems(saved));
    settings = applySettings(DEFAULT_SETTINGS, saved.settings);
    supplyEnergy = saved.supply.energy;
    delegated = saved.supply.delegated;
    rules.restore(saved.rules);
    registry = createAddressRegistry([], clock.now(), saved.addresses, { capacity: () => settings.maxStoredAddresses, keep: scenario.activatedAddresses ?? [] });
    accountsByDigest = new Map();
    accountList = [];
    const byId = new Map<number, Account>();
    for (const a of saved.accounts) {
      const account = accountFromDigest(a.id, a.keyDigest, a.walletAddress, a.referralCount);
      Object.assign(account.ledger.TRX, a.ledger.TRX);
      Object.assign(account.ledger.USDT, a.ledger.USDT);
      Object.assign(account.evictedSpent, a.evictedSpent);
      accountsByDigest.set(account.keyDigest, account);
      accountList.push(account);
      byId.set(account.id, account);
    }
    for (const o of saved.orders) {
      const account = byId.get(o.accountId)!;
      const order = new Order(pages, o.id, account, o.pledgeAddress, o.rentalCount, o.period, o.currency, o.amount, o.createdAt, o.outOrderNo, o.plannedTxId, o.outcome, o.forced, o.activates, o.processingAfter, o.outcomeAfter, o.refundAfter);
      order.status = o.status;
      order.processingAt = o.processingAt;
      order.outcomeAt = o.outcomeAt;
      order.refundedAt = o.refundedAt;
      order.refunds = o.refunds;
      order.reserved = o.reserved;
      order.failureReason = o.failureReason;
      store(order);
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
      evict();
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
      const ledger = account.ledger;
      let currency: CurrencyCode = 'TRX';
      let amount = priced.costSun;
      if (!tryFreeze(ledger, 'TRX', amount)) {
        currency = 'USDT';
        amount = usdtCost(priced.costSun, settings.microUsdtPerTrx);
        if (!Number.isSafeInteger(amount)) {
          throw new SimulatorError(
            'insufficientBalance',
            `Insufficient balance: the order costs ${priced.trxPrice} TRX, more than any USDT balance can cover at usdtPerTrx ${formatUnits(settings.microUsdtPerTrx)}. Deposit TRX or order less.`,
          );
        }
        if (!tryFreeze(ledger, 'USDT', amount)) {
          throw new SimulatorError(
            'insufficientBalance',
            `Insufficient balance: the order costs ${priced.trxPrice} TRX (or ${formatFixed(amount, SHOWN_DECIMALS)} USDT) ` +
              `but ${formatUnits(ledger.TRX.available)} TRX and ${formatFixed(ledger.USDT.available, 6)} USDT are available. Deposit funds and retry.`,
          );
        }
      }
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
      });
      const order = new Order(
        pages,
        id,
        account,
        input.pledgeAddress,
        input.rentalCount,
        input.period,
        currency,
        amount,
        clock.now(),
        input.outOrderNo,
        txIdDraw,
        outcome,
        rule !== undefined,
        activates,
        plan.processingAfter,
        plan.outcomeAfter,
        plan.refundAfter,
      );
      store(order);
      created++;
      // Steps already due (the instant profile, a zero delay) happen before the caller sees the order.
      scheduler!.batch(() => {
        scheduleNext(order);
        emit({ type: 'order', order });
        emit({ type: 'account', account });
      });
      if (ordersById.size > settings.maxStoredOrders) evict();
      return { order, duplicate: false };
    },

    findOrder(account, ref) {
      const order = ref.orderId !== undefined ? ordersById.get(ref.orderId) : account.byOutOrderNo.get(ref.outOrderNo ?? '');
      // Another account's order is reported exactly like a missing one, so ids cannot be probed.
      if (!order || order.account !== account) {
        const which = ref.orderId !== undefined ? `orderId '${ref.orderId}'` : `outOrderNo '${ref.outOrderNo}'`;
        throw new SimulatorError('orderNotFound', `Order not found: no order of this account has ${which}.`);
      }
      return order;
    },

    createAccount(input = {}) {
      const apiKey = input.apiKey ?? generateApiKey();
      if (accountsByDigest.has(digestKey(apiKey))) {
        throw new SimulatorError('conflict', 'An account with that apiKey exists already; choose another key or omit it to get a generated one.');
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

    nextStep(order) {
      switch (order.status) {
        case 'PENDING':
          return { status: 'PROCESSING', at: order.createdAt + order.processingAfter };
        case 'PROCESSING':
          return { status: order.outcome, at: order.createdAt + order.outcomeAfter };
        case 'FAILED':
          return { status: 'REFUNDED', at: order.createdAt + order.refundAfter };
        default:
          return undefined;
      }
    },

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

    checkInvariants() {
      const problems: string[] = [];
      for (const account of accountList) {
        const owner = account.walletAddress;
        problems.push(...checkLedger(account.ledger, owner));
        const expected = { TRX: { frozen: 0, spent: 0 }, USDT: { frozen: 0, spent: 0 } };
        for (const order of account.orders) {
          if (order.isOpen) expected[order.currency].frozen += order.amount;
          if (order.status === 'COMPLETED') expected[order.currency].spent += order.amount;
          problems.push(...orderProblems(order));
        }
        expected.TRX.spent += account.evictedSpent.TRX;
        expected.USDT.spent += account.evictedSpent.USDT;
        for (const currency of ['TRX', 'USDT'] as const) {
          const book = account.ledger[currency];
          if (book.frozen !== expected[currency].frozen) {
            problems.push(`${owner} ${currency}: frozen ${book.frozen} but open orders hold ${expected[currency].frozen}`);
          }
          if (book.spent !== expected[currency].spent) {
            problems.push(`${owner} ${currency}: spent ${book.spent} but completed orders cost ${expected[currency].spent}`);
          }
        }
      }
      return problems;
    },

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
        accounts: accountList.map((a) => ({
          id: a.id,
          keyDigest: a.keyDigest,
          walletAddress: a.walletAddress,
          referralCount: a.referralCount,
          ledger: { TRX: { ...a.ledger.TRX }, USDT: { ...a.ledger.USDT } },
          evictedSpent: { ...a.evictedSpent },
        })),
      } as const;
      const refs = chronological.filter((o): o is Order => o !== undefined);
      // Copy-on-write: an order about to change keeps its state of now for this snapshot.
      const before = new Map<Order, OrderSnapshot>();
      const capture = (order: Order): void => {
        if (!before.has(order)) before.set(order, orderSnapshot(order));
      };
      beforeChange.add(capture);
      let position = 0;
      return {
        head,
        orderCount: refs.length,
        next(count) {
          const end = Math.min(refs.length, position + count);
          const out: OrderSnapshot[] = [];
          for (; position < end; position++) out.push(before.get(refs[position]!) ?? orderSnapshot(refs[position]!));
          return out;
        },
        close: () => void beforeChange.delete(capture),
      };
    },

    get storedOrders() {
      return ordersById.size;
    },
    get version() {
      return version;
    },
  };

  load();
  if (options.restore) restoreFrom(options.restore);
  return engine;
}

function orderProblems(order: Order): string[] {
  const problems: string[] = [];
  const times = order.timeline().map((s) => s.at);
  for (let i = 1; i < times.length; i++) {
    if (times[i]! < times[i - 1]!) problems.push(`${order.id}: timeline goes back in time`);
  }
  const expectedSteps: Record<OrderStatusCode, number> = { PENDING: 1, PROCESSING: 2, COMPLETED: 3, FAILED: 3, REFUNDED: 4 };
  if (order.timeline().length !== expectedSteps[order.status]) problems.push(`${order.id}: status ${order.status} does not match its timeline`);
  if (order.status === 'COMPLETED' && !/^[0-9a-f]{64}$/.test(order.txId)) problems.push(`${order.id}: COMPLETED without a txId`);
  if (order.status === 'REFUNDED' && order.refunds !== 1) problems.push(`${order.id}: REFUNDED with ${order.refunds} refunds`);
  if (order.status !== 'REFUNDED' && order.refunds !== 0) problems.push(`${order.id}: ${order.refunds} refunds while ${order.status}`);
  return problems;
}
