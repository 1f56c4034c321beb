import { describe, expect, it } from 'vitest';
import { encodeTronAddress } from '../../src/tron-address.ts';
import { createManualClock } from './manual-clock.ts';
import { createEngine, type EngineEvent, type Scenario } from './index.ts';
import type { Order, OrderStatusCode } from './order.ts';
import type { TimingProfile } from './timing.ts';

const KEY = 'test-key';
const PLEDGE = 'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3';
const TX_ID = /^[0-9a-f]{64}$/;

/** A valid TRON address that differs for each `n`. */
function address(n: number): string {
  return encodeTronAddress(new Uint8Array(20).fill(n));
}

function scenarioWith(timing: TimingProfile, extra: Scenario = {}): Scenario {
  return {
    accounts: [{ apiKey: KEY, trx: 1_000_000_000, usdt: 100_000_000 }],
    activatedAddresses: [PLEDGE],
    ...extra,
    settings: { timing, ...extra.settings },
  };
}

const RANK: Record<OrderStatusCode, number> = {
  PENDING: 0,
  PROCESSING: 1,
  COMPLETED: 2,
  FAILED: 2,
  REFUNDED: 3,
};

describe('order lifecycle', () => {
  it('moves a realistic order PENDING → PROCESSING → COMPLETED, with a txId only once COMPLETED', () => {
    const clock = createManualClock();
    const engine = createEngine({ clock, seed: 11, scenario: scenarioWith('realistic') });
    const account = engine.authenticate(KEY)!;
    const { order } = engine.createOrder(account, {
      pledgeAddress: PLEDGE,
      rentalCount: 65_000,
      period: '1h',
    });
    expect(order.status).toBe('PENDING');
    expect(order.txId).toBe('');
    expect(order.createdAt).toBe(clock.now());

    clock.advance(order.processingAfter);
    expect(order.status).toBe('PROCESSING');
    expect(order.txId).toBe('');
    expect(order.processingAt).toBe(order.createdAt + order.processingAfter);

    clock.advance(order.outcomeAfter - order.processingAfter - 1);
    expect(order.status).toBe('PROCESSING');
    expect(order.txId).toBe('');

    clock.advance(1);
    expect(order.status).toBe('COMPLETED');
    expect(order.txId).toMatch(TX_ID);
    expect(order.outcomeAt).toBe(order.createdAt + order.outcomeAfter);
    expect(order.timeline().map((s) => s.status)).toEqual(['PENDING', 'PROCESSING', 'COMPLETED']);
    expect(engine.nextStep(order)).toBeUndefined();
    expect(engine.checkInvariants()).toEqual([]);
  });

  it('tells the next scheduled step of an open order', () => {
    const clock = createManualClock();
    const engine = createEngine({
      clock,
      seed: 12,
      scenario: scenarioWith('realistic', { rules: [{ outcome: 'FAILED' }] }),
    });
    const account = engine.authenticate(KEY)!;
    const { order } = engine.createOrder(account, {
      pledgeAddress: PLEDGE,
      rentalCount: 65_000,
      period: '1h',
    });
    expect(engine.nextStep(order)).toEqual({
      status: 'PROCESSING',
      at: order.createdAt + order.processingAfter,
    });
    clock.advance(order.processingAfter);
    expect(engine.nextStep(order)).toEqual({ status: 'FAILED', at: order.createdAt + order.outcomeAfter });
    clock.advance(order.outcomeAfter - order.processingAfter);
    expect(engine.nextStep(order)).toEqual({ status: 'REFUNDED', at: order.createdAt + order.refundAfter });
    clock.advance(order.refundAfter - order.outcomeAfter);
    expect(order.status).toBe('REFUNDED');
    expect(engine.nextStep(order)).toBeUndefined();
  });

  it('delivers a realistic order to an activated address 3000 to 6000 ms after creation, over many seeds', () => {
    const delays: number[] = [];
    for (let seed = 1; seed <= 150; seed++) {
      const clock = createManualClock();
      const engine = createEngine({ clock, seed, scenario: scenarioWith('realistic') });
      const account = engine.authenticate(KEY)!;
      const { order } = engine.createOrder(account, {
        pledgeAddress: PLEDGE,
        rentalCount: 65_000,
        period: '1h',
      });
      clock.advance(2_999);
      if (order.status === 'COMPLETED') throw new Error(`seed ${seed}: delivered before 3000 ms`);
      clock.advance(3_001);
      // (A cast, because TypeScript does not know that advance() changes the status.)
      if ((order.status as OrderStatusCode) !== 'COMPLETED')
        throw new Error(`seed ${seed}: not delivered after 6000 ms (${order.status})`);
      const delay = order.outcomeAt - order.createdAt;
      const processing = order.processingAt - order.createdAt;
      if (processing < 500 || processing > 1_500)
        throw new Error(`seed ${seed}: PROCESSING after ${processing} ms`);
      delays.push(delay);
    }
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(3_000);
    expect(Math.max(...delays)).toBeLessThanOrEqual(6_000);
    // The delays are drawn, not fixed: they spread over the range.
    expect(Math.min(...delays)).toBeLessThan(3_500);
    expect(Math.max(...delays)).toBeGreaterThan(5_500);
  });

  it('delivers a fast order in under 100 ms, over many seeds, activating or not', () => {
    for (let seed = 1; seed <= 100; seed++) {
      const clock = createManualClock();
      const engine = createEngine({ clock, seed, scenario: scenarioWith('fast') });
      const account = engine.authenticate(KEY)!;
      const known = engine.createOrder(account, {
        pledgeAddress: PLEDGE,
        rentalCount: 65_000,
        period: '1h',
      }).order;
      const fresh = engine.createOrder(account, {
        pledgeAddress: address(seed),
        rentalCount: 65_000,
        period: '1h',
      }).order;
      expect(fresh.activates).toBe(true);
      clock.advance(99);
      for (const order of [known, fresh]) {
        if (order.status !== 'COMPLETED')
          throw new Error(`seed ${seed}: ${order.id} is ${order.status} after 99 ms`);
        if (order.outcomeAt - order.createdAt <= 0)
          throw new Error(`seed ${seed}: fast delivery took no time`);
      }
    }
  });

  it('completes an instant order before createOrder returns', () => {
    const clock = createManualClock();
    const engine = createEngine({ clock, seed: 5, scenario: scenarioWith('instant') });
    const account = engine.authenticate(KEY)!;
    const { order } = engine.createOrder(account, {
      pledgeAddress: address(9),
      rentalCount: 65_000,
      period: '1h',
    });
    expect(order.status).toBe('COMPLETED');
    expect(order.txId).toMatch(TX_ID);
    expect(order.timeline()).toEqual([
      { status: 'PENDING', at: clock.now() },
      { status: 'PROCESSING', at: clock.now(), note: 'activated the pledge address' },
      { status: 'COMPLETED', at: clock.now() },
    ]);
    expect(account.ledger.TRX.spent).toBe(4_230_000);
    expect(account.ledger.TRX.frozen).toBe(0);
  });

  it('refunds an instant failed order before createOrder returns', () => {
    const clock = createManualClock();
    const engine = createEngine({
      clock,
      seed: 5,
      scenario: scenarioWith('instant', { rules: [{ outcome: 'FAILED' }] }),
    });
    const account = engine.authenticate(KEY)!;
    const { order } = engine.createOrder(account, {
      pledgeAddress: PLEDGE,
      rentalCount: 65_000,
      period: '1h',
    });
    expect(order.status).toBe('REFUNDED');
    expect(account.ledger.TRX).toEqual({
      deposited: 1_000_000_000,
      available: 1_000_000_000,
      frozen: 0,
      spent: 0,
    });
  });

  it('refunds the frozen TRX when an order fails: FAILED → REFUNDED with the balance restored exactly', () => {
    const clock = createManualClock();
    const engine = createEngine({
      clock,
      seed: 21,
      scenario: scenarioWith('realistic', { rules: [{ outcome: 'FAILED' }] }),
    });
    const account = engine.authenticate(KEY)!;
    const before = structuredClone(account.ledger);
    const { order } = engine.createOrder(account, {
      pledgeAddress: PLEDGE,
      rentalCount: 65_000,
      period: '1h',
    });
    expect(account.ledger.TRX.frozen).toBe(4_230_000);
    expect(account.ledger.TRX.available).toBe(before.TRX.available - 4_230_000);

    clock.advance(order.outcomeAfter);
    expect(order.status).toBe('FAILED');
    expect(order.txId).toBe('');
    // Still frozen until the refund is booked.
    expect(account.ledger.TRX.frozen).toBe(4_230_000);
    expect(order.refunds).toBe(0);

    clock.advance(order.refundAfter - order.outcomeAfter);
    expect(order.status).toBe('REFUNDED');
    expect(order.refunds).toBe(1);
    expect(order.refundedAt).toBe(order.createdAt + order.refundAfter);
    expect(order.refundAfter).toBeGreaterThan(order.outcomeAfter);
    expect(account.ledger).toEqual(before);
    expect(account.ledger.TRX).toMatchObject({ frozen: 0, spent: 0 });
    expect(order.timeline().map((s) => s.status)).toEqual(['PENDING', 'PROCESSING', 'FAILED', 'REFUNDED']);
    // A refunded order stays refunded and is refunded once.
    clock.advance(10 * 86_400_000);
    expect(order.refunds).toBe(1);
    expect(account.ledger).toEqual(before);
    expect(engine.checkInvariants()).toEqual([]);
  });

  it('moves statuses only forward, with non-decreasing timeline timestamps', () => {
    const clock = createManualClock();
    const engine = createEngine({
      clock,
      seed: 31,
      scenario: scenarioWith('realistic', { settings: { failureRate: 0.5 } }),
    });
    const account = engine.authenticate(KEY)!;
    const seen = new Map<string, OrderStatusCode[]>();
    engine.subscribe((event) => {
      if (event.type !== 'order') return;
      const list = seen.get(event.order.id) ?? [];
      list.push(event.order.status);
      seen.set(event.order.id, list);
    });
    const orders: Order[] = [];
    for (let i = 0; i < 40; i++) {
      orders.push(
        engine.createOrder(account, { pledgeAddress: address(i % 7), rentalCount: 64_000 + i, period: '1h' })
          .order,
      );
      clock.advance(317);
    }
    clock.advance(20_000);
    const paths = new Set<string>();
    for (const order of orders) {
      const statuses = seen.get(order.id)!;
      for (let i = 1; i < statuses.length; i++) expect(RANK[statuses[i]!]).toBe(RANK[statuses[i - 1]!] + 1);
      expect(order.timeline().map((s) => s.status)).toEqual(statuses);
      const times = order.timeline().map((s) => s.at);
      for (let i = 1; i < times.length; i++) expect(times[i]!).toBeGreaterThanOrEqual(times[i - 1]!);
      paths.add(statuses.join('>'));
    }
    expect([...paths].sort()).toEqual(['PENDING>PROCESSING>COMPLETED', 'PENDING>PROCESSING>FAILED>REFUNDED']);
  });

  it('keeps every invariant after every step of a long random run', () => {
    const clock = createManualClock();
    const engine = createEngine({
      clock,
      seed: 2024,
      scenario: {
        settings: { timing: 'realistic', failureRate: 0.3 },
        accounts: [
          { apiKey: 'rich', trx: 2_000_000_000, usdt: 500_000_000 },
          { apiKey: 'usdt-only', usdt: 200_000_000 },
          { apiKey: 'poor', trx: 20_000_000, usdt: 5_000_000 },
        ],
        supply: 2_000_000,
      },
    });
    const accounts = ['rich', 'usdt-only', 'poor'].map((key) => engine.authenticate(key)!);
    let state = 77;
    const rand = (n: number): number => {
      state = (state * 48_271) % 2_147_483_647;
      return state % n;
    };
    const broken: string[] = [];
    let events = 0;
    engine.subscribe(() => {
      events++;
      const problems = engine.checkInvariants();
      if (problems.length > 0 && broken.length === 0)
        broken.push(`after event ${events}: ${problems.join('; ')}`);
    });
    const periods = ['10min', '1h', '1d'] as const;
    let created = 0;
    let rejected = 0;
    for (let i = 0; i < 400; i++) {
      const account = accounts[rand(accounts.length)]!;
      const action = rand(10);
      if (action === 0)
        engine.rules.add({
          match: { pledgeAddress: address(rand(12)) },
          outcome: rand(2) === 0 ? 'FAILED' : 'COMPLETED',
          times: 1 + rand(3),
        });
      else if (action === 1)
        engine.rules.add({ match: {}, outcome: 'FAILED', delayMs: rand(8_000), times: 1 });
      else if (action === 2) engine.deposit(account, { trx: rand(10_000_000), usdt: rand(2_000_000) });
      else if (action === 3) engine.setSupply(rand(4) === 0 ? null : 1_000_000 + rand(3_000_000));
      try {
        engine.createOrder(account, {
          pledgeAddress: address(rand(12)),
          rentalCount: 64_000 + rand(200_000),
          period: periods[rand(periods.length)]!,
          outOrderNo: rand(4) === 0 ? `o-${rand(50)}` : undefined,
        });
        created++;
      } catch (error) {
        if ((error as { kind?: string }).kind !== 'insufficientBalance') throw error;
        rejected++;
      }
      clock.advance(rand(3) === 0 ? rand(20_000) : rand(1_500));
      const problems = engine.checkInvariants();
      if (problems.length > 0 && broken.length === 0) broken.push(`after round ${i}: ${problems.join('; ')}`);
    }
    // Let everything finish, rentals included.
    clock.advance(2 * 86_400_000);
    expect(broken).toEqual([]);
    expect(engine.checkInvariants()).toEqual([]);
    expect(created).toBeGreaterThan(200);
    expect(rejected).toBeGreaterThan(0);
    const all = accounts.flatMap((a) => engine.orders(a));
    expect(all.every((o) => o.status === 'COMPLETED' || o.status === 'REFUNDED')).toBe(true);
    expect(all.some((o) => o.status === 'REFUNDED')).toBe(true);
    expect(all.some((o) => o.currency === 'USDT')).toBe(true);
    expect(all.some((o) => o.failureReason?.startsWith('insufficient supply'))).toBe(true);
    expect(events).toBeGreaterThan(3 * created);
    for (const account of accounts) {
      expect(account.ledger.TRX.frozen).toBe(0);
      expect(account.ledger.USDT.frozen).toBe(0);
    }
    expect(engine.supply().delegated).toBe(0);
  });

  it('keeps every step in the timeline of an order on a manual clock that starts at Unix time 0', () => {
    // Regression: the timeline once took a time of 0 for "step not happened yet", so steps
    // taken at t = 0 vanished and checkInvariants reported a correct order as broken.
    const clock = createManualClock(0);
    const engine = createEngine({ clock, seed: 1, scenario: scenarioWith('instant') });
    const account = engine.authenticate(KEY)!;
    const { order } = engine.createOrder(account, {
      pledgeAddress: PLEDGE,
      rentalCount: 65_000,
      period: '1h',
    });
    expect(order.status).toBe('COMPLETED');
    expect(order.timeline().map((s) => s.status)).toEqual(['PENDING', 'PROCESSING', 'COMPLETED']);
    expect(engine.checkInvariants()).toEqual([]);
  });
});

describe('events', () => {
  it('sends one order event on creation and one on each transition, with the balance change already booked', () => {
    const clock = createManualClock();
    const engine = createEngine({ clock, seed: 3, scenario: scenarioWith('realistic') });
    const account = engine.authenticate(KEY)!;
    const log: string[] = [];
    engine.subscribe((event) =>
      log.push(
        event.type === 'order'
          ? `${event.change} ${event.order.status} frozen ${account.ledger.TRX.frozen} spent ${account.ledger.TRX.spent}`
          : event.type,
      ),
    );
    const { order } = engine.createOrder(account, {
      pledgeAddress: PLEDGE,
      rentalCount: 65_000,
      period: '1h',
    });
    expect(log).toEqual(['created PENDING frozen 4230000 spent 0']);
    clock.advance(order.processingAfter);
    expect(log.slice(1)).toEqual(['step PROCESSING frozen 4230000 spent 0']);
    clock.advance(10_000);
    expect(log.slice(2)).toEqual(['step COMPLETED frozen 0 spent 4230000']);
  });

  it('sends the refund as one order event, with the frozen amount already released', () => {
    const clock = createManualClock();
    const engine = createEngine({
      clock,
      seed: 3,
      scenario: scenarioWith('fast', { rules: [{ outcome: 'FAILED' }] }),
    });
    const account = engine.authenticate(KEY)!;
    const events: EngineEvent[] = [];
    const log: string[] = [];
    engine.subscribe((event) => {
      events.push(event);
      log.push(
        event.type === 'order'
          ? `order ${event.order.status} frozen ${account.ledger.TRX.frozen}`
          : event.type,
      );
    });
    engine.createOrder(account, { pledgeAddress: PLEDGE, rentalCount: 65_000, period: '1h' });
    clock.advance(1_000);
    expect(log).toEqual([
      'order PENDING frozen 4230000',
      'order PROCESSING frozen 4230000',
      'order FAILED frozen 4230000',
      'order REFUNDED frozen 0',
    ]);
    const refund = events.at(-1);
    expect(refund?.type === 'order' && refund.order.account).toBe(account);
  });

  it('stops sending events to a listener once it unsubscribes, and keeps sending to the others', () => {
    const clock = createManualClock();
    const engine = createEngine({ clock, seed: 3, scenario: scenarioWith('realistic') });
    const account = engine.authenticate(KEY)!;
    const first: string[] = [];
    const second: string[] = [];
    const unsubscribe = engine.subscribe((e) => first.push(e.type === 'order' ? e.order.status : e.type));
    engine.subscribe((e) => second.push(e.type === 'order' ? e.order.status : e.type));
    const { order } = engine.createOrder(account, {
      pledgeAddress: PLEDGE,
      rentalCount: 65_000,
      period: '1h',
    });
    unsubscribe();
    clock.advance(10_000);
    engine.updateSettings({ failureRate: 0.1 });
    expect(order.status).toBe('COMPLETED');
    expect(first).toEqual(['PENDING']);
    expect(second).toEqual(['PENDING', 'PROCESSING', 'COMPLETED', 'settings']);
  });
});
