/** The simulator's domain, driven by an injected clock and a seeded random source; no HTTP. */
import { accountSnapshot, digestKey } from './accounts.ts';
import { chainOf, delegationsOf } from './chain.ts';
import type { ManualClock } from './clock.ts';
import { applyEffect, effectOf, type EffectBody, type EngineEffect } from './effects.ts';
import { addAccount, restoredState, scenarioState, scheduleNext, type EngineState } from './engine-state.ts';
import type { Engine, EngineEvent, EngineOptions, Scenario } from './engine-types.ts';
import { deposit, releaseFrozen, spendFrozen } from './ledger.ts';
import { nextStep } from './lifecycle.ts';
import { Order } from './order.ts';
import { orderIdAt } from './order-id.ts';
import { freezePayment } from './payment.ts';
import { checkQuantity, quote } from './pricing.ts';
import { createRandomSource } from './random-source.ts';
import { activationDelay, applySettings } from './settings.ts';
import { SimulatorError } from './simulator-error.ts';
import { pendingSnapshot, SNAPSHOT_FORMAT, type EngineSnapshot } from './snapshot.ts';
import { refuseIfBroken, RestoreError, snapshotProblems } from './snapshot-check.ts';
import { planDelays } from './timing.ts';
import { createWriteAhead } from './write-ahead.ts';

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
  const effectListeners = new Set<(effect: EngineEffect) => void>();
  const basis = { clock, seed, scenario, step };
  let state: EngineState = scenarioState(basis);
  let version = 0;
  /** Changes since the state began, kept across restores (a state file's logSeq). */
  let seq = 0;
  /** Snapshots being written; each keeps an order's state before a step changes it. */
  const beforeChange = new Set<(order: Order) => void>();
  const ahead = createWriteAhead({
    tell: (effect) => effectListeners.forEach((listener) => listener(effect)),
    restore: (saved, effects) => restore(saved, effects),
    runDue: () => state.scheduler.runDue(),
  });

  /** Numbers a change, and hands its effect to a log of effects when one listens. */
  function record(body: () => EffectBody): void {
    seq++;
    if (ahead.writing || effectListeners.size > 0)
      ahead.take({ seq, at: clock.now(), ...body() } as EngineEffect);
  }

  /** Every mutation applies its change, then calls this exactly once. */
  function commit(event: EngineEvent): void {
    version++;
    record(() => effectOf(state, event));
    for (const listener of listeners) listener(event);
  }

  // A manual clock's move is a change a restart must not undo, even when nothing fell due.
  if (clock.mode === 'manual' && 'onAdvanced' in clock)
    (clock as ManualClock).onAdvanced(() => record(() => ({ type: 'clock' })));

  /** Puts `next` in place of the whole state: the old one's pending steps go with it. */
  function replace(next: EngineState, event: EngineEvent): void {
    state.scheduler.clear();
    state = next;
    commit(event);
  }

  /** Moves an order one step along its lifecycle; the scheduler calls it when due. */
  function step(order: Order): void {
    for (const capture of beforeChange) capture(order);
    const s = state;
    const now = clock.now();
    const next = nextStep(order);
    if (!next) {
      if (order.status === 'COMPLETED' && order.reserved) {
        s.delegated -= order.rentalCount;
        order.reserved = false;
        commit({ type: 'order', change: 'released', order });
      }
      return;
    }
    const ledger = order.account.ledger;
    order.status = next.status;
    switch (next.status) {
      case 'PROCESSING':
        order.processingAt = now;
        if (order.activates) s.registry.activateClaimed(order.pledgeAddress, order.id, now);
        if (s.supplyEnergy !== null && order.outcome === 'COMPLETED' && !order.forced) {
          if (s.delegated + order.rentalCount > s.supplyEnergy) {
            order.outcome = 'FAILED';
            order.failureReason = `insufficient supply: ${s.supplyEnergy - s.delegated} energy left, ${order.rentalCount} ordered`;
          } else {
            s.delegated += order.rentalCount;
            order.reserved = true;
          }
        }
        break;
      case 'COMPLETED':
      case 'FAILED':
        order.outcomeAt = now;
        if (next.status === 'COMPLETED') spendFrozen(ledger, order.currency, order.amount);
        break;
      case 'REFUNDED':
        order.refundedAt = now;
        order.refunds++;
        releaseFrozen(ledger, order.currency, order.amount);
        break;
    }
    scheduleNext(s, order);
    commit({ type: 'order', change: 'step', order });
  }

  /** Puts a snapshot's state and the effects logged after it in place; refuses what does not fit. */
  function restore(saved: EngineSnapshot | undefined, effects: readonly EngineEffect[]): void {
    let next = saved ? restoredState(basis, saved) : scenarioState(basis);
    let at = saved?.logSeq ?? 0;
    for (const effect of effects) {
      if (effect.seq <= at) continue;
      if (effect.seq !== at + 1)
        throw new RestoreError(`the log misses the changes ${at + 1} to ${effect.seq - 1}`);
      try {
        next = applyEffect(basis, next, effect);
      } catch (error) {
        throw new RestoreError(`change ${effect.seq} of the log: ${(error as Error).message}`);
      }
      at = effect.seq;
    }
    if (at !== (saved?.logSeq ?? 0)) {
      next.scheduler.clear();
      for (const order of next.orders.list()) scheduleNext(next, order);
      next.random = createRandomSource(seed + next.created);
    }
    replace(next, { type: 'reset', ...(saved ? { restored: saved } : {}) });
    seq = at;
    if (effects.length > 0) refuseIfBroken(snapshotProblems(engine.snapshot()));
  }

  const engine: Engine = {
    clock,
    seed,
    settings: () => state.settings,
    updateSettings: ahead.written((patch) => {
      const s = state;
      const settings = applySettings(s.settings, patch);
      s.settings = settings;
      s.orders.evict(settings.maxStoredOrders);
      s.registry.trim();
      commit({ type: 'settings', settings });
      return settings;
    }),
    authenticate: (apiKey) => state.accountsByDigest.get(digestKey(apiKey)),
    quote(rentalCount, period) {
      checkQuantity(state.settings, rentalCount, 'price');
      return quote(state.settings.prices, rentalCount, period);
    },

    createOrder: ahead.written((account, input, options) => {
      const s = state;
      const settings = s.settings;
      if (input.outOrderNo !== undefined) {
        const existing = account.byOutOrderNo.get(input.outOrderNo);
        if (existing) {
          if (settings.duplicateOutOrderNo === 'reject')
            throw new SimulatorError(
              'duplicateOutOrderNo',
              `Duplicate outOrderNo '${input.outOrderNo}': order ${existing.id} already has it. Use a new outOrderNo for a new order.`,
            );
          return { order: existing, duplicate: true };
        }
      }
      checkQuantity(settings, input.rentalCount, 'order');
      const priced = quote(settings.prices, input.rentalCount, input.period);
      const { currency, amount } = freezePayment(
        account.ledger,
        priced,
        settings.microUsdtPerTrx,
        settings.whenTrxShort,
      );
      let id = orderIdAt(clock.now(), s.random);
      while (s.orders.has(id)) id = orderIdAt(clock.now(), s.random);
      const plannedTxId = s.random.hexWords(8);
      // An outcome asked for this order wins over the rules, and uses none of them up.
      const asked = options?.outcome;
      const rule = asked === undefined ? s.rules.take(input) : undefined;
      // The failure roll is drawn for every order, so rules and rates do not shift later ids.
      const roll = s.random.float();
      const outcome = asked ?? (rule ? rule.outcome : roll < settings.failureRate ? 'FAILED' : 'COMPLETED');
      const activates = s.registry.claim(input.pledgeAddress, id);
      const plan = planDelays(settings.timing, s.random, {
        activates,
        activationDelayMs: activationDelay(settings),
        fixedOutcomeMs: rule?.delayMs,
        delays: settings.delaysMs,
      });
      const order = new Order({
        ...input,
        id,
        account,
        currency,
        amount,
        createdAt: clock.now(),
        plannedTxId,
        outcome,
        forced: rule !== undefined || asked !== undefined,
        activates,
        ...plan,
        delegationMs: rule?.delegationMs,
      });
      s.orders.add(order);
      s.created++;
      // Steps already due happen before the caller sees the order, told after its creation.
      s.scheduler.batch(() => {
        scheduleNext(s, order);
        commit({ type: 'order', change: 'created', order });
      });
      if (s.orders.size > settings.maxStoredOrders) {
        s.orders.evict(settings.maxStoredOrders);
        // No event of its own, but a log of effects must repeat it.
        record(() => ({ type: 'evicted', cap: settings.maxStoredOrders }));
      }
      return { order, duplicate: false };
    }),

    findOrder(account, ref) {
      const byOrderId =
        ref.orderId !== undefined &&
        (ref.outOrderNo === undefined || state.settings.historyPrefers === 'orderId');
      const order = byOrderId
        ? state.orders.get(ref.orderId!)
        : account.byOutOrderNo.get(ref.outOrderNo ?? '');
      // Another account's order is reported exactly like a missing one, so ids cannot be probed.
      if (!order || order.account !== account) {
        const which = byOrderId ? `orderId '${ref.orderId}'` : `outOrderNo '${ref.outOrderNo}'`;
        const error = new SimulatorError(
          'orderNotFound',
          `Order not found: no order of this account has ${which}.`,
        );
        error.parameter = byOrderId ? 'orderId' : 'outOrderNo';
        throw error;
      }
      return order;
    },

    createAccount: ahead.written((input = {}) => {
      const made = addAccount(state, input);
      commit({ type: 'account', change: 'created', account: made.account });
      return made;
    }),

    deposit: ahead.written((account, amounts) => {
      // Booked on a copy first, so a rejected deposit changes nothing.
      for (const ledger of [structuredClone(account.ledger), account.ledger]) {
        if (amounts.trx) deposit(ledger, 'TRX', amounts.trx);
        if (amounts.usdt) deposit(ledger, 'USDT', amounts.usdt);
      }
      commit({ type: 'account', change: 'deposit', account, trx: amounts.trx ?? 0, usdt: amounts.usdt ?? 0 });
      return account;
    }),

    accounts: () => [...state.accounts],

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
      add: ahead.written((input) => {
        const rule = state.rules.add(input);
        commit({ type: 'rules', change: 'added', rule });
        return rule;
      }),
      list: () => state.rules.list(),
      remove: ahead.written((id) => {
        const removed = state.rules.remove(id);
        if (removed) commit({ type: 'rules', change: 'removed', id });
        return removed;
      }),
      clear: ahead.written(() => {
        state.rules.clear();
        commit({ type: 'rules', change: 'cleared' });
      }),
    },

    supply: () => ({ energy: state.supplyEnergy, delegated: state.delegated }),
    setSupply: ahead.written((energy) => {
      state.supplyEnergy = energy;
      commit({ type: 'supply', energy });
      return { energy, delegated: state.delegated };
    }),

    address: (address) => state.registry.get(address),
    setAddress: ahead.written((address, activated) => {
      const record = state.registry.set(address, activated, clock.now());
      commit({ type: 'address', record });
      return record;
    }),
    addresses: () => state.registry.list(),
    delegations: (to) => delegationsOf(state.orders.list(), chainOf(state.settings), to),

    tick: () => state.scheduler.runDue(),

    reset() {
      if (clock.mode === 'manual' && 'rewind' in clock) (clock as ManualClock).rewind();
      replace(scenarioState(basis), { type: 'reset' });
    },

    checkInvariants: () => snapshotProblems(engine.snapshot()),

    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    subscribeEffects(listener) {
      effectListeners.add(listener);
      return () => effectListeners.delete(listener);
    },

    writeAhead: ahead.set,

    snapshot() {
      const later = engine.snapshotLater();
      const orders = later.next(Infinity);
      later.close();
      return { ...later.head, orders };
    },

    snapshotLater() {
      const s = state;
      const head = {
        format: SNAPSHOT_FORMAT,
        savedAt: clock.now(),
        seed,
        created: s.created,
        logSeq: seq,
        settings: s.settings,
        supply: { energy: s.supplyEnergy, delegated: s.delegated },
        rules: s.rules.list(),
        addresses: s.registry.list(),
        accounts: s.accounts.map(accountSnapshot),
      } as const;
      return pendingSnapshot(head, s.orders.list(), beforeChange);
    },

    get storedOrders() {
      return state.orders.size;
    },
    get version() {
      return version;
    },
    get seq() {
      return seq;
    },
  };

  if (options.restore || options.replay?.length) {
    restore(options.restore, options.replay ?? []);
    // Steps that fell due while the simulator was down happen now, in order.
    state.scheduler.runDue();
  }
  return engine;
}
