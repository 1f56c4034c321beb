import { describe, expect, it } from 'vitest';
import { encodeTronAddress } from '../../src/tron-address.ts';
import { createManualClock, DEFAULT_MANUAL_START } from './manual-clock.ts';
import type { Clock, ManualClock } from './clock.ts';
import { createEngine, DEMO_SCENARIO, type Engine, type Scenario } from './index.ts';
import type { Order } from './order.ts';
import { DEFAULT_PRICES } from './pricing.ts';
import { DEFAULT_SETTINGS } from './settings.ts';
import { SimulatorError } from './simulator-error.ts';
import { rejection } from './test-support.ts';

const PLEDGE = 'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3';

function address(n: number): string {
  return encodeTronAddress(new Uint8Array(20).fill(n));
}

/** A fresh copy each call, so that no test can change another's scenario. */
const scenario = (): Scenario => ({
  settings: { failureRate: 0.2 },
  accounts: [
    { apiKey: 'demo-key', trx: 1_000_000_000, usdt: 100_000_000, referralCount: 2 },
    { apiKey: 'second', usdt: 5_000_000 },
  ],
  rules: [
    { match: { pledgeAddress: address(7) }, outcome: 'FAILED', times: 2 },
    { match: { outOrderNo: 'slow' }, outcome: 'COMPLETED', delayMs: 9_000 },
  ],
  activatedAddresses: [PLEDGE],
  supply: 500_000,
});

describe('reset', () => {
  it('restores the scenario: balances, no orders, rules, settings, addresses, supply and the manual clock', () => {
    const clock = createManualClock();
    const engine = createEngine({ clock, seed: 42, scenario: scenario() });
    const demo = engine.authenticate('demo-key')!;
    const initialWallet = demo.walletAddress;
    const initialRules = engine.rules.list();
    const order = engine.createOrder(demo, {
      pledgeAddress: address(7),
      rentalCount: 65_000,
      period: '1h',
      outOrderNo: 'o-1',
    }).order;
    engine.createOrder(demo, { pledgeAddress: address(8), rentalCount: 65_000, period: '1h' });
    engine.deposit(demo, { trx: 5_000_000 });
    engine.rules.clear();
    engine.rules.add({ outcome: 'FAILED' });
    engine.updateSettings({ failureRate: 1, timing: 'fast', prices: { '1h': 99 } });
    engine.setAddress(address(9), true);
    engine.setSupply(1);
    engine.createAccount({ apiKey: 'extra' });
    clock.advance(30_000);

    engine.reset();

    expect(clock.now()).toBe(DEFAULT_MANUAL_START);
    const fresh = engine.authenticate('demo-key')!;
    expect(fresh).not.toBe(demo);
    expect(fresh.walletAddress).toBe(initialWallet);
    expect(fresh.referralCount).toBe(2);
    expect(fresh.ledger.TRX).toEqual({
      deposited: 1_000_000_000,
      available: 1_000_000_000,
      frozen: 0,
      spent: 0,
    });
    expect(fresh.ledger.USDT).toEqual({
      deposited: 100_000_000,
      available: 100_000_000,
      frozen: 0,
      spent: 0,
    });
    expect(engine.orders(fresh)).toEqual([]);
    expect(rejection(() => engine.findOrder(fresh, { orderId: order.id })).kind).toBe('orderNotFound');
    expect(rejection(() => engine.findOrder(fresh, { outOrderNo: 'o-1' })).kind).toBe('orderNotFound');
    expect(engine.authenticate('extra')).toBeUndefined();
    expect(engine.accounts().map((a) => a.id)).toEqual([1, 2]);
    expect(engine.rules.list()).toEqual(initialRules);
    expect(engine.rules.list().map((r) => r.used)).toEqual([0, 0]);
    expect(engine.settings().failureRate).toBe(0.2);
    expect(engine.settings().timing).toBe('realistic');
    expect(engine.settings().prices).toEqual(DEFAULT_PRICES);
    expect(engine.address(address(9)).activated).toBe(false);
    expect(engine.address(address(7))).toEqual({ address: address(7), activated: false });
    expect(engine.address(PLEDGE).activated).toBe(true);
    expect(engine.supply()).toEqual({ energy: 500_000, delegated: 0 });
    expect(engine.checkInvariants()).toEqual([]);
  });

  it('restores rules used up before the reset, with their uses counted from zero', () => {
    const clock = createManualClock();
    const engine = createEngine({ clock, seed: 42, scenario: scenario() });
    const demo = engine.authenticate('demo-key')!;
    engine.createOrder(demo, { pledgeAddress: address(7), rentalCount: 65_000, period: '1h' });
    engine.createOrder(demo, { pledgeAddress: address(7), rentalCount: 65_000, period: '1h' });
    expect(engine.rules.list().map((r) => r.id)).toEqual(['rule-2']);
    engine.reset();
    const again = engine.authenticate('demo-key')!;
    const outcomes = [1, 2, 3].map(
      () =>
        engine.createOrder(again, { pledgeAddress: address(7), rentalCount: 65_000, period: '1h' }).order
          .outcome,
    );
    expect(outcomes.slice(0, 2)).toEqual(['FAILED', 'FAILED']);
    expect(engine.rules.list().map((r) => r.id)).toEqual(['rule-2']);
  });

  it('gives the same ids after a reset as a fresh engine with the same seed', () => {
    const run = (engine: ReturnType<typeof createEngine>, clock: { advance(ms: number): number }) => {
      const demo = engine.authenticate('demo-key')!;
      const orders = [0, 1, 2, 3, 4].map((i) => {
        const order = engine.createOrder(demo, {
          pledgeAddress: address(i),
          rentalCount: 65_000,
          period: '1h',
        }).order;
        clock.advance(1_234);
        return order;
      });
      clock.advance(30_000);
      const created = engine.createAccount({ apiKey: 'late' }).account;
      return {
        ids: orders.map((o) => o.id),
        txIds: orders.map((o) => o.txId),
        statuses: orders.map((o) => o.status),
        wallet: created.walletAddress,
      };
    };
    const usedClock = createManualClock();
    const used = createEngine({ clock: usedClock, seed: 42, scenario: scenario() });
    const firstRun = run(used, usedClock);
    usedClock.advance(123_456);
    used.reset();
    const afterReset = run(used, usedClock);
    const freshClock = createManualClock();
    const fresh = createEngine({ clock: freshClock, seed: 42, scenario: scenario() });
    const freshRun = run(fresh, freshClock);
    expect(afterReset).toEqual(freshRun);
    expect(firstRun).toEqual(freshRun);
    expect(used.accounts().map((a) => a.walletAddress)).toEqual(fresh.accounts().map((a) => a.walletAddress));
  });

  it('drops the steps of the old orders, so advancing after a reset changes nothing', () => {
    const clock = createManualClock();
    const engine = createEngine({ clock, seed: 42, scenario: DEMO_SCENARIO });
    const demo = engine.authenticate('demo-key')!;
    const old = engine.createOrder(demo, { pledgeAddress: PLEDGE, rentalCount: 65_000, period: '1h' }).order;
    engine.reset();
    const events: string[] = [];
    engine.subscribe((e) => events.push(e.type));
    clock.advance(60_000);
    expect(old.status).toBe('PENDING');
    expect(events).toEqual([]);
    expect(demo.ledger.TRX.frozen).toBe(4_230_000);
    const fresh = engine.authenticate('demo-key')!;
    expect(fresh.ledger.TRX.available).toBe(1_000_000_000);
    expect(engine.checkInvariants()).toEqual([]);
  });

  it('keeps listeners over a reset and tells them about it', () => {
    const clock = createManualClock();
    const engine = createEngine({ clock, seed: 42, scenario: DEMO_SCENARIO });
    const events: string[] = [];
    engine.subscribe((e) => events.push(e.type));
    engine.reset();
    expect(events).toEqual(['reset']);
    const demo = engine.authenticate('demo-key')!;
    engine.createOrder(demo, { pledgeAddress: PLEDGE, rentalCount: 65_000, period: '1h' });
    expect(events).toEqual(['reset', 'order']);
  });

  it('rewinds a manual clock on reset, and leaves a real clock alone', () => {
    let now = 5_000_000;
    const rewinds: number[] = [];
    // A real clock that could be rewound: the engine must not, since real time does not go back.
    const clock = {
      mode: 'real',
      now: () => now,
      setAlarm: () => () => {},
      rewind: () => void rewinds.push(now),
    } as Clock & { rewind(): void };
    const engine = createEngine({ clock, seed: 1, scenario: DEMO_SCENARIO });
    now += 10_000;
    engine.reset();
    expect(rewinds).toEqual([]);
    expect(engine.snapshot().savedAt).toBe(5_010_000);
    expect(engine.authenticate('demo-key')).toBeDefined();

    const manual = createManualClock();
    const manualEngine = createEngine({ clock: manual, seed: 1, scenario: DEMO_SCENARIO });
    manual.advance(10_000);
    manualEngine.reset();
    expect(manual.now()).toBe(DEFAULT_MANUAL_START);
  });
});

describe('settings', () => {
  it('starts from the defaults with the scenario settings applied', () => {
    const clock = createManualClock();
    const plain = createEngine({ clock, seed: 1 });
    expect(plain.settings()).toEqual(DEFAULT_SETTINGS);
    const custom = createEngine({
      clock: createManualClock(),
      seed: 1,
      scenario: { settings: { failureRate: 0.4, prices: { '1h': 70 } } },
    });
    expect(custom.settings().failureRate).toBe(0.4);
    expect(custom.settings().prices).toEqual({ ...DEFAULT_PRICES, '1h': 70 });
    expect(custom.quote(65_000, '1h').trxPrice).toBe('4.55');
    expect(DEFAULT_PRICES['1h']).toBe(65);
  });

  it('rejects failureRate 1.5 with a message naming failureRate, changing nothing', () => {
    const clock = createManualClock();
    const engine = createEngine({ clock, seed: 1, scenario: DEMO_SCENARIO });
    const events: string[] = [];
    engine.subscribe((e) => events.push(e.type));
    const before = engine.settings();
    const error = rejection(() => engine.updateSettings({ failureRate: 1.5, timing: 'instant' }));
    expect(error.kind).toBe('parameterInvalid');
    expect(error.message).toContain('failureRate');
    expect(engine.settings()).toEqual(before);
    expect(events).toEqual([]);
  });

  it.each([-0.1, Number.NaN, 2])('rejects failureRate %s', (failureRate) => {
    const engine = createEngine({ clock: createManualClock(), seed: 1 });
    expect(rejection(() => engine.updateSettings({ failureRate })).message).toContain('failureRate');
    expect(engine.settings().failureRate).toBe(0);
  });

  it('accepts failureRate at both bounds', () => {
    const engine = createEngine({ clock: createManualClock(), seed: 1 });
    expect(engine.updateSettings({ failureRate: 1 }).failureRate).toBe(1);
    expect(engine.updateSettings({ failureRate: 0 }).failureRate).toBe(0);
  });

  it.each([0, -190_000, 0.5, Number.NaN])('rejects microUsdtPerTrx %s', (microUsdtPerTrx) => {
    const engine = createEngine({ clock: createManualClock(), seed: 1 });
    expect(rejection(() => engine.updateSettings({ microUsdtPerTrx })).kind).toBe('parameterInvalid');
    expect(engine.settings().microUsdtPerTrx).toBe(190_000);
  });

  it('rejects a bad price table, changing no price', () => {
    const engine = createEngine({ clock: createManualClock(), seed: 1 });
    const error = rejection(() => engine.updateSettings({ prices: { '1h': 70, '1d': 0 } }));
    expect(error.message).toContain('prices.1d');
    expect(engine.settings().prices).toEqual(DEFAULT_PRICES);
  });

  it('merges a partial price patch and other settings, and tells listeners', () => {
    const engine = createEngine({ clock: createManualClock(), seed: 1 });
    const events: string[] = [];
    engine.subscribe((e) => events.push(e.type));
    const next = engine.updateSettings({
      prices: { '1d': 81 },
      duplicateOutOrderNo: 'reject',
      activationDelayMs: 5,
    });
    expect(next.prices).toEqual({ ...DEFAULT_PRICES, '1d': 81 });
    expect(next.duplicateOutOrderNo).toBe('reject');
    expect(next.activationDelayMs).toBe(5);
    expect(next.timing).toBe('realistic');
    expect(engine.settings()).toEqual(next);
    expect(engine.quote(100_000, '1d').costSun).toBe(8_100_000);
    expect(events).toEqual(['settings']);
    // The defaults themselves were not changed.
    expect(DEFAULT_SETTINGS.prices['1d']).toBe(80);
    expect(DEFAULT_SETTINGS.duplicateOutOrderNo).toBe('return-existing');
  });

  it('fails every order without a rule at failureRate 1 and none at 0', () => {
    const clock = createManualClock();
    const engine = createEngine({
      clock,
      seed: 1,
      scenario: { ...DEMO_SCENARIO, settings: { failureRate: 1 } },
    });
    const demo = engine.authenticate('demo-key')!;
    const failing = Array.from(
      { length: 10 },
      () => engine.createOrder(demo, { pledgeAddress: PLEDGE, rentalCount: 65_000, period: '1h' }).order,
    );
    engine.updateSettings({ failureRate: 0 });
    const passing = Array.from(
      { length: 10 },
      () => engine.createOrder(demo, { pledgeAddress: PLEDGE, rentalCount: 65_000, period: '1h' }).order,
    );
    expect(failing.every((o) => o.outcome === 'FAILED')).toBe(true);
    expect(passing.every((o) => o.outcome === 'COMPLETED')).toBe(true);
  });

  it('prices new orders with the prices in force when they are created', () => {
    const clock = createManualClock();
    const engine = createEngine({ clock, seed: 1, scenario: DEMO_SCENARIO });
    const demo = engine.authenticate('demo-key')!;
    const before = engine.createOrder(demo, {
      pledgeAddress: PLEDGE,
      rentalCount: 65_000,
      period: '1h',
    }).order;
    engine.updateSettings({ prices: { '1h': 100 } });
    const after = engine.createOrder(demo, {
      pledgeAddress: PLEDGE,
      rentalCount: 65_000,
      period: '1h',
    }).order;
    expect(before.amount).toBe(4_230_000);
    expect(after.amount).toBe(6_500_000);
    expect(engine.quote(65_000, '1h')).toMatchObject({
      sunPerUnit: 100,
      costSun: 6_500_000,
      trxPrice: '6.50',
    });
  });
});

describe('two engines in one process', () => {
  it('share nothing: interleaved, each gives the ids of an engine run alone, and a reset of one leaves the other', () => {
    const clock = createManualClock();
    const [a, b] = [
      createEngine({ clock, seed: 5, scenario: scenario() }),
      createEngine({ clock, seed: 5, scenario: scenario() }),
    ];
    const aloneClock = createManualClock();
    const alone = createEngine({ clock: aloneClock, seed: 5, scenario: scenario() });
    const payer = (engine: typeof a) => engine.authenticate('demo-key')!;
    const [payerA, payerB, payerAlone] = [payer(a), payer(b), payer(alone)];
    for (let i = 0; i < 300; i++) {
      const input = {
        pledgeAddress: address(1 + (i % 5)),
        rentalCount: 65_000,
        period: '1h' as const,
        outOrderNo: `o-${i}`,
      };
      a.createOrder(payerA, input);
      b.createOrder(payerB, { ...input, rentalCount: 70_000 });
      alone.createOrder(payerAlone, input);
      clock.advance(10);
      aloneClock.advance(10);
    }
    // Interleaved with b, a gives the very ids and txIds the engine run alone gives.
    const view = (engine: typeof a) =>
      engine.orders(engine.accounts()[0]!).map((o) => [o.id, o.plannedTxId, o.createdAt, o.amount]);
    expect(view(a)).toEqual(view(alone));
    const before = view(b);
    a.reset();
    for (let i = 0; i < 10; i++)
      a.createOrder(payer(a), { pledgeAddress: PLEDGE, rentalCount: 80_000, period: '10min' });
    expect(view(b)).toEqual(before);
    expect(b.checkInvariants()).toEqual([]);
  });
});

describe('snapshot and restore', () => {
  it('gives back every order exactly as saved, including times weeks apart and a txId that is not hex', () => {
    const clock = createManualClock();
    const engine = createEngine({ clock, seed: 5, scenario: scenario() });
    const account = engine.authenticate('demo-key')!;
    for (let i = 0; i < 12; i++) {
      engine.createOrder(account, {
        pledgeAddress: address(1 + (i % 8)),
        rentalCount: 65_000 + 10_000 * i,
        period: i % 2 ? '1h' : '10min',
        outOrderNo: `o-${i}`,
      });
      clock.advance(1_700);
    }
    const saved = engine.snapshot();
    // What older state files or a long downtime can hold: offsets past 32 bits, fractions, a hand-written
    // txId. (A restore checks the timeline runs forward and a COMPLETED order's txId is hex, so the later
    // steps move along, and the odd txId sits on an order not yet delivered.)
    const late = saved.orders[0]!;
    late.processingAt = late.createdAt + 40 * 86_400_000 + 0.25;
    late.outcomeAt = late.processingAt + 1;
    late.refundedAt = late.outcomeAt + 1;
    expect(saved.orders[11]!.status).toMatch(/PENDING|PROCESSING/);
    saved.orders[11]!.plannedTxId = 'written-by-hand';
    // A large amount, with the books that go with it: a restore checks they agree.
    const big = saved.orders[2]!;
    const extra = 2 ** 40 - (2 ** 40 % 10_000) - big.amount;
    big.amount += extra;
    const book = saved.accounts[0]!.ledger[big.currency];
    book.deposited += extra;
    if (big.status === 'COMPLETED') book.spent += extra;
    else if (big.status !== 'REFUNDED') book.frozen += extra;
    else book.available += extra;
    saved.orders[2]!.refundAfter = 2 ** 33;
    const restored = createEngine({
      clock: createManualClock(DEFAULT_MANUAL_START),
      seed: 5,
      restore: structuredClone(saved),
    });
    expect({ ...restored.snapshot(), savedAt: saved.savedAt }).toEqual(saved);
    expect(restored.findOrder(restored.accounts()[0]!, { outOrderNo: 'o-11' }).plannedTxId).toBe(
      'written-by-hand',
    );
  });
});

describe('replacing the whole state', () => {
  /** Changes every part of an engine's state: an order, an account, a deposit, rules, supply, an address, settings. */
  function changeEverything(engine: Engine, clock: ManualClock): Order {
    const demo = engine.authenticate('demo-key')!;
    const order = engine.createOrder(demo, {
      pledgeAddress: address(3),
      rentalCount: 65_000,
      period: '1h',
    }).order;
    engine.createAccount({ apiKey: 'late', trx: 7 });
    engine.deposit(demo, { usdt: 1_000 });
    engine.rules.remove('rule-1');
    engine.rules.add({ match: { outOrderNo: 'added' }, outcome: 'FAILED' });
    engine.setSupply(123_456);
    engine.setAddress(address(9), true);
    engine.updateSettings({ failureRate: 0.9, maxStoredOrders: 5 });
    clock.advance(4_000);
    return order;
  }

  it('keeps nothing of the state before a reset: it equals a fresh engine of the same scenario', () => {
    const clock = createManualClock();
    const engine = createEngine({ clock, seed: 42, scenario: scenario() });
    const order = changeEverything(engine, clock);
    const events: string[] = [];
    engine.subscribe((e) => events.push(e.type));
    const version = engine.version;
    engine.reset();
    expect(events).toEqual(['reset']);
    expect(engine.version).toBe(version + 1);
    const fresh = createEngine({ clock: createManualClock(), seed: 42, scenario: scenario() });
    // Only the count of changes goes on across a reset: a log of effects numbers the reset too.
    expect(engine.snapshot()).toEqual({ ...fresh.snapshot(), logSeq: engine.seq });
    expect(engine.authenticate('late')).toBeUndefined();
    expect(() => engine.findOrder(engine.authenticate('demo-key')!, { orderId: order.id })).toThrow(
      SimulatorError,
    );
    expect(engine.address(address(9)).activated).toBe(false);
    expect(engine.checkInvariants()).toEqual([]);
  });

  it('keeps nothing of the scenario it restores over: it equals the snapshot it was given', () => {
    const clock = createManualClock();
    const other = createEngine({
      clock,
      seed: 3,
      scenario: {
        settings: { failureRate: 0.1, prices: { '1h': 70 } },
        accounts: [{ apiKey: 'saved-key', trx: 500_000_000 }],
        supply: null,
      },
    });
    const saver = other.authenticate('saved-key')!;
    other.createOrder(saver, {
      pledgeAddress: address(4),
      rentalCount: 65_000,
      period: '1h',
      outOrderNo: 's',
    });
    other.rules.add({ match: { pledgeAddress: address(5) }, outcome: 'COMPLETED', times: 3 });
    other.setAddress(address(6), true);
    const saved = other.snapshot();

    // The scenario has accounts, rules, an activated address, supply and settings of its own.
    const restored = createEngine({
      clock: createManualClock(saved.savedAt),
      seed: 3,
      scenario: scenario(),
      restore: structuredClone(saved),
    });
    expect(restored.snapshot()).toEqual(saved);
    expect(restored.authenticate('demo-key')).toBeUndefined();
    expect(restored.address(PLEDGE).activated).toBe(false);
    expect(restored.rules.list().map((r) => r.match)).toEqual([{ pledgeAddress: address(5) }]);
    expect(restored.supply()).toEqual({ energy: null, delegated: 0 });
    expect(restored.settings().failureRate).toBe(0.1);
    // The restore is one change, told once (before anyone could listen).
    expect(restored.version).toBe(1);
    expect(restored.checkInvariants()).toEqual([]);
  });
});
