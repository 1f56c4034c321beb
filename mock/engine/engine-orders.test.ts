import { describe, expect, it } from 'vitest';
import { encodeTronAddress } from '../../src/tron-address.ts';
import { createManualClock } from './manual-clock.ts';
import { createEngine, type Scenario } from './index.ts';
import { SimulatorError } from './simulator-error.ts';
import { rejection } from './test-support.ts';

const PLEDGE = 'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3';
const ORDER_ID = /^OR\d{14}[A-Z0-9]{8}$/;

function address(n: number): string {
  return encodeTronAddress(new Uint8Array(20).fill(n));
}

function account(apiKey: string, trx = 0, usdt = 0): Scenario {
  return { accounts: [{ apiKey, trx, usdt }], activatedAddresses: [PLEDGE] };
}

describe('payment', () => {
  it('pays in TRX when the available TRX covers the order, freezing it while the order is open', () => {
    const clock = createManualClock();
    const engine = createEngine({ clock, seed: 1, scenario: account('k', 4_230_000, 10_000_000) });
    const payer = engine.authenticate('k')!;
    const { order } = engine.createOrder(payer, { pledgeAddress: PLEDGE, rentalCount: 65_000, period: '1h' });
    expect(order.currency).toBe('TRX');
    expect(order.amount).toBe(4_230_000);
    expect(payer.ledger.TRX).toEqual({ deposited: 4_230_000, available: 0, frozen: 4_230_000, spent: 0 });
    expect(payer.ledger.USDT).toEqual({ deposited: 10_000_000, available: 10_000_000, frozen: 0, spent: 0 });
    clock.advance(order.processingAfter);
    expect(order.status).toBe('PROCESSING');
    expect(payer.ledger.TRX.frozen).toBe(4_230_000);
    clock.advance(10_000);
    expect(order.status).toBe('COMPLETED');
    expect(payer.ledger.TRX).toEqual({ deposited: 4_230_000, available: 0, frozen: 0, spent: 4_230_000 });
  });

  it("pays in USDT at microUsdtPerTrx when the TRX is short, 0.80 USDT for upstream's 4.23 TRX", () => {
    const clock = createManualClock();
    const engine = createEngine({ clock, seed: 1, scenario: account('k', 4_229_999, 1_000_000) });
    const payer = engine.authenticate('k')!;
    const { order } = engine.createOrder(payer, { pledgeAddress: PLEDGE, rentalCount: 65_000, period: '1h' });
    expect(order.currency).toBe('USDT');
    expect(order.amount).toBe(800_000);
    expect(payer.ledger.TRX).toEqual({ deposited: 4_229_999, available: 4_229_999, frozen: 0, spent: 0 });
    expect(payer.ledger.USDT).toEqual({
      deposited: 1_000_000,
      available: 200_000,
      frozen: 800_000,
      spent: 0,
    });
    clock.advance(10_000);
    expect(order.status).toBe('COMPLETED');
    expect(payer.ledger.USDT).toEqual({
      deposited: 1_000_000,
      available: 200_000,
      frozen: 0,
      spent: 800_000,
    });
    expect(engine.checkInvariants()).toEqual([]);
  });

  it('converts at the configured rate, rounding the USDT amount half up to 0.01', () => {
    const clock = createManualClock();
    const engine = createEngine({
      clock,
      seed: 1,
      scenario: { ...account('k', 0, 10_000_000), settings: { microUsdtPerTrx: 250_000 } },
    });
    const payer = engine.authenticate('k')!;
    // 4.23 TRX × 0.25 = 1.0575 USDT → 1.06
    expect(
      engine.createOrder(payer, { pledgeAddress: PLEDGE, rentalCount: 65_000, period: '1h' }).order.amount,
    ).toBe(1_060_000);
    // 4.16 TRX × 0.25 = 1.04 USDT exactly
    expect(
      engine.createOrder(payer, { pledgeAddress: PLEDGE, rentalCount: 64_000, period: '1h' }).order.amount,
    ).toBe(1_040_000);
  });

  it('refunds a USDT order in USDT', () => {
    const clock = createManualClock();
    const engine = createEngine({
      clock,
      seed: 1,
      scenario: { ...account('k', 0, 800_000), rules: [{ outcome: 'FAILED' }] },
    });
    const payer = engine.authenticate('k')!;
    const { order } = engine.createOrder(payer, { pledgeAddress: PLEDGE, rentalCount: 65_000, period: '1h' });
    expect(payer.ledger.USDT.available).toBe(0);
    clock.advance(20_000);
    expect(order.status).toBe('REFUNDED');
    expect(payer.ledger.USDT).toEqual({ deposited: 800_000, available: 800_000, frozen: 0, spent: 0 });
  });

  it('rejects an order neither balance covers with insufficientBalance, creating nothing and charging nothing', () => {
    const clock = createManualClock();
    const scenario: Scenario = {
      ...account('k', 4_229_999, 799_999),
      rules: [{ outcome: 'FAILED', times: 1 }],
    };
    const engine = createEngine({ clock, seed: 8, scenario });
    const payer = engine.authenticate('k')!;
    const before = structuredClone(payer.ledger);
    const events: string[] = [];
    engine.subscribe((e) => events.push(e.type));
    const error = rejection(() =>
      engine.createOrder(payer, {
        pledgeAddress: address(1),
        rentalCount: 65_000,
        period: '1h',
        outOrderNo: 'x-1',
      }),
    );
    expect(error.kind).toBe('insufficientBalance');
    expect(error.code).toBe(30001);
    expect(error.status).toBe(402);
    expect(error.message).toContain('4.23 TRX');
    expect(error.message).toContain('0.80 USDT');
    expect(payer.ledger).toEqual(before);
    expect([...payer.orders]).toEqual([]);
    expect(engine.orders(payer)).toEqual([]);
    expect(() => engine.findOrder(payer, { outOrderNo: 'x-1' })).toThrow(SimulatorError);
    expect(events).toEqual([]);
    // Nothing else moved either: the rule is unused, the address unclaimed.
    expect(engine.rules.list()).toEqual([{ id: 'rule-1', match: {}, outcome: 'FAILED', times: 1, used: 0 }]);
    expect(engine.address(address(1))).toEqual({ address: address(1), activated: false });
    expect(engine.checkInvariants()).toEqual([]);
  });

  it('rejects as insufficientBalance an order whose USDT price is beyond any balance', () => {
    // 10^15 sun at the largest rate: the USDT amount is no safe integer, and must not surface as a
    // RangeError.
    const clock = createManualClock();
    const engine = createEngine({
      clock,
      seed: 1,
      scenario: {
        ...account('k', 0, 1_000_000),
        settings: { prices: { '30d': 1_000_000 }, microUsdtPerTrx: Number.MAX_SAFE_INTEGER },
      },
    });
    const payer = engine.authenticate('k')!;
    const before = structuredClone(payer.ledger);
    const error = rejection(() =>
      engine.createOrder(payer, { pledgeAddress: PLEDGE, rentalCount: 1_000_000_000, period: '30d' }),
    );
    expect(error.kind).toBe('insufficientBalance');
    expect(payer.ledger).toEqual(before);
    expect([...payer.orders]).toEqual([]);
  });

  it('draws nothing from the random source for a rejected order, so the next order gets the ids a fresh engine gives', () => {
    const poorClock = createManualClock();
    const poor = createEngine({ clock: poorClock, seed: 8, scenario: account('k', 1_000_000, 0) });
    const freshClock = createManualClock();
    const fresh = createEngine({ clock: freshClock, seed: 8, scenario: account('k', 1_000_000, 0) });
    const input = { pledgeAddress: PLEDGE, rentalCount: 65_000, period: '1h' } as const;
    expect(() => poor.createOrder(poor.authenticate('k')!, input)).toThrow(SimulatorError);
    const cheap = { pledgeAddress: PLEDGE, rentalCount: 1_000, period: '1h' } as const;
    const a = poor.createOrder(poor.authenticate('k')!, cheap).order;
    const b = fresh.createOrder(fresh.authenticate('k')!, cheap).order;
    expect(a.id).toBe(b.id);
    expect(a.plannedTxId).toBe(b.plannedTxId);
  });
});

describe('outOrderNo', () => {
  it('returns the first order with duplicate=true and charges nothing for a repeated outOrderNo', () => {
    const clock = createManualClock();
    const engine = createEngine({ clock, seed: 2, scenario: account('k', 100_000_000) });
    const payer = engine.authenticate('k')!;
    const first = engine.createOrder(payer, {
      pledgeAddress: PLEDGE,
      rentalCount: 65_000,
      period: '1h',
      outOrderNo: 'shop-1',
    });
    expect(first.duplicate).toBe(false);
    const ledger = structuredClone(payer.ledger);
    clock.advance(1_000);
    const again = engine.createOrder(payer, {
      pledgeAddress: address(3),
      rentalCount: 200_000,
      period: '1d',
      outOrderNo: 'shop-1',
    });
    expect(again.duplicate).toBe(true);
    expect(again.order).toBe(first.order);
    expect(again.order.rentalCount).toBe(65_000);
    expect(payer.ledger).toEqual(ledger);
    expect(engine.orders(payer)).toHaveLength(1);
  });

  it('returns the first order for a repeated outOrderNo even when the balance no longer covers a new one', () => {
    const clock = createManualClock();
    const engine = createEngine({ clock, seed: 2, scenario: account('k', 4_230_000) });
    const payer = engine.authenticate('k')!;
    const first = engine.createOrder(payer, {
      pledgeAddress: PLEDGE,
      rentalCount: 65_000,
      period: '1h',
      outOrderNo: 'shop-1',
    }).order;
    expect(
      engine.createOrder(payer, {
        pledgeAddress: PLEDGE,
        rentalCount: 65_000,
        period: '1h',
        outOrderNo: 'shop-1',
      }),
    ).toEqual({
      order: first,
      duplicate: true,
    });
  });

  it("rejects a repeated outOrderNo with duplicateOutOrderNo under the 'reject' setting, naming the first order", () => {
    const clock = createManualClock();
    const engine = createEngine({
      clock,
      seed: 2,
      scenario: { ...account('k', 100_000_000), settings: { duplicateOutOrderNo: 'reject' } },
    });
    const payer = engine.authenticate('k')!;
    const first = engine.createOrder(payer, {
      pledgeAddress: PLEDGE,
      rentalCount: 65_000,
      period: '1h',
      outOrderNo: 'shop-1',
    }).order;
    const ledger = structuredClone(payer.ledger);
    const error = rejection(() =>
      engine.createOrder(payer, {
        pledgeAddress: PLEDGE,
        rentalCount: 65_000,
        period: '1h',
        outOrderNo: 'shop-1',
      }),
    );
    expect(error.kind).toBe('duplicateOutOrderNo');
    expect(error.status).toBe(409);
    expect(error.message).toContain(first.id);
    expect(payer.ledger).toEqual(ledger);
    expect(engine.orders(payer)).toEqual([first]);
  });

  it('makes two orders for the same outOrderNo on two different accounts', () => {
    const clock = createManualClock();
    const engine = createEngine({
      clock,
      seed: 2,
      scenario: {
        accounts: [
          { apiKey: 'a', trx: 100_000_000 },
          { apiKey: 'b', trx: 100_000_000 },
        ],
      },
    });
    const a = engine.authenticate('a')!;
    const b = engine.authenticate('b')!;
    const first = engine.createOrder(a, {
      pledgeAddress: PLEDGE,
      rentalCount: 65_000,
      period: '1h',
      outOrderNo: 'same',
    });
    const second = engine.createOrder(b, {
      pledgeAddress: PLEDGE,
      rentalCount: 65_000,
      period: '1h',
      outOrderNo: 'same',
    });
    expect(second.duplicate).toBe(false);
    expect(second.order).not.toBe(first.order);
    expect(second.order.id).not.toBe(first.order.id);
    expect(a.ledger.TRX.frozen).toBe(4_230_000);
    expect(b.ledger.TRX.frozen).toBe(4_230_000);
    expect(engine.findOrder(a, { outOrderNo: 'same' })).toBe(first.order);
    expect(engine.findOrder(b, { outOrderNo: 'same' })).toBe(second.order);
  });

  it('treats orders without an outOrderNo as distinct', () => {
    const clock = createManualClock();
    const engine = createEngine({ clock, seed: 2, scenario: account('k', 100_000_000) });
    const payer = engine.authenticate('k')!;
    const input = { pledgeAddress: PLEDGE, rentalCount: 65_000, period: '1h' } as const;
    const one = engine.createOrder(payer, input);
    const two = engine.createOrder(payer, input);
    expect(two.duplicate).toBe(false);
    expect(two.order.id).not.toBe(one.order.id);
    expect(payer.ledger.TRX.frozen).toBe(2 * 4_230_000);
  });
});

describe('findOrder', () => {
  function twoOrders() {
    const clock = createManualClock();
    const engine = createEngine({
      clock,
      seed: 4,
      scenario: {
        accounts: [
          { apiKey: 'me', trx: 100_000_000 },
          { apiKey: 'other', trx: 100_000_000 },
        ],
      },
    });
    const me = engine.authenticate('me')!;
    const other = engine.authenticate('other')!;
    const mine1 = engine.createOrder(me, {
      pledgeAddress: PLEDGE,
      rentalCount: 65_000,
      period: '1h',
      outOrderNo: 'm-1',
    }).order;
    const mine2 = engine.createOrder(me, {
      pledgeAddress: PLEDGE,
      rentalCount: 65_000,
      period: '1h',
      outOrderNo: 'm-2',
    }).order;
    const theirs = engine.createOrder(other, {
      pledgeAddress: PLEDGE,
      rentalCount: 65_000,
      period: '1h',
      outOrderNo: 't-1',
    }).order;
    return { engine, me, other, mine1, mine2, theirs };
  }

  it('finds an order by orderId', () => {
    const { engine, me, mine1, mine2 } = twoOrders();
    expect(engine.findOrder(me, { orderId: mine1.id })).toBe(mine1);
    expect(engine.findOrder(me, { orderId: mine2.id })).toBe(mine2);
  });

  it('finds an order by outOrderNo', () => {
    const { engine, me, mine1, mine2 } = twoOrders();
    expect(engine.findOrder(me, { outOrderNo: 'm-1' })).toBe(mine1);
    expect(engine.findOrder(me, { outOrderNo: 'm-2', orderId: undefined })).toBe(mine2);
  });

  it('lets orderId win when both are given and name different orders', () => {
    const { engine, me, mine1, mine2 } = twoOrders();
    expect(engine.findOrder(me, { orderId: mine1.id, outOrderNo: 'm-2' })).toBe(mine1);
    expect(engine.findOrder(me, { orderId: mine2.id, outOrderNo: 'm-1' })).toBe(mine2);
    // An unknown orderId is not rescued by a valid outOrderNo.
    expect(
      rejection(() => engine.findOrder(me, { orderId: 'OR20250312175009ZZZZZZZZ', outOrderNo: 'm-1' })).kind,
    ).toBe('orderNotFound');
  });

  it("reports another account's order as orderNotFound, by orderId and by outOrderNo", () => {
    const { engine, me, other, theirs, mine1 } = twoOrders();
    const byId = rejection(() => engine.findOrder(me, { orderId: theirs.id }));
    expect(byId.kind).toBe('orderNotFound');
    expect(byId.status).toBe(404);
    expect(byId.message).toContain(theirs.id);
    const byOutOrderNo = rejection(() => engine.findOrder(me, { outOrderNo: 't-1' }));
    expect(byOutOrderNo.kind).toBe('orderNotFound');
    expect(byOutOrderNo.message).toContain("'t-1'");
    expect(rejection(() => engine.findOrder(other, { orderId: mine1.id })).kind).toBe('orderNotFound');
    // Exactly like an id nobody has.
    const missing = rejection(() => engine.findOrder(me, { orderId: 'OR20250312175009AAAAAAAA' }));
    expect(missing.kind).toBe(byId.kind);
    expect(missing.message.replace('OR20250312175009AAAAAAAA', theirs.id)).toBe(byId.message);
  });
});

describe('orders list', () => {
  it('lists an account’s orders newest first, filtered by status and limited', () => {
    const clock = createManualClock();
    const engine = createEngine({
      clock,
      seed: 4,
      scenario: {
        ...account('k', 100_000_000),
        settings: { timing: 'instant' },
        rules: [{ match: { outOrderNo: 'bad' }, outcome: 'FAILED' }],
      },
    });
    const payer = engine.authenticate('k')!;
    const o1 = engine.createOrder(payer, { pledgeAddress: PLEDGE, rentalCount: 65_000, period: '1h' }).order;
    const o2 = engine.createOrder(payer, {
      pledgeAddress: PLEDGE,
      rentalCount: 65_000,
      period: '1h',
      outOrderNo: 'bad',
    }).order;
    const o3 = engine.createOrder(payer, { pledgeAddress: PLEDGE, rentalCount: 65_000, period: '1h' }).order;
    expect(engine.orders(payer)).toEqual([o3, o2, o1]);
    expect(engine.orders(payer, { limit: 2 })).toEqual([o3, o2]);
    expect(engine.orders(payer, { status: 'COMPLETED' })).toEqual([o3, o1]);
    expect(engine.orders(payer, { status: 'REFUNDED' })).toEqual([o2]);
    expect(engine.orders(payer, { status: 'PENDING' })).toEqual([]);
  });
});

describe('ids and determinism', () => {
  it('gives order ids of the form OR + 14 UTC digits of the manual clock + 8 upper-case letters or digits', () => {
    const clock = createManualClock();
    const engine = createEngine({ clock, seed: 6, scenario: account('k', 1_000_000_000) });
    const payer = engine.authenticate('k')!;
    const first = engine.createOrder(payer, {
      pledgeAddress: PLEDGE,
      rentalCount: 65_000,
      period: '1h',
    }).order;
    expect(first.id).toMatch(ORDER_ID);
    expect(first.id.slice(2, 16)).toBe('20250312175009');
    clock.advance(61_500);
    const second = engine.createOrder(payer, {
      pledgeAddress: PLEDGE,
      rentalCount: 65_000,
      period: '1h',
    }).order;
    expect(second.id).toMatch(ORDER_ID);
    expect(second.id.slice(2, 16)).toBe('20250312175110');
    const ids = new Set<string>();
    for (let i = 0; i < 100; i++)
      ids.add(
        engine.createOrder(payer, { pledgeAddress: PLEDGE, rentalCount: 64_000, period: '1h' }).order.id,
      );
    expect(ids.size).toBe(100);
    for (const id of ids) expect(id).toMatch(ORDER_ID);
  });

  it('stamps order ids in UTC whatever the start of the clock', () => {
    const clock = createManualClock(Date.UTC(2030, 0, 2, 3, 4, 5, 999));
    const engine = createEngine({ clock, seed: 6, scenario: account('k', 100_000_000) });
    const { order } = engine.createOrder(engine.authenticate('k')!, {
      pledgeAddress: PLEDGE,
      rentalCount: 65_000,
      period: '1h',
    });
    expect(order.id.slice(0, 16)).toBe('OR20300102030405');
  });

  /** Runs a fixed sequence of calls and returns everything the seed should decide. */
  function fingerprint(seed: number) {
    const clock = createManualClock();
    const engine = createEngine({
      clock,
      seed,
      scenario: {
        settings: { failureRate: 0.5 },
        accounts: [
          { apiKey: 'a', trx: 1_000_000_000 },
          { apiKey: 'b', usdt: 100_000_000 },
        ],
      },
    });
    const extra = engine.createAccount({ apiKey: 'c', trx: 50_000_000 });
    const accounts = [engine.authenticate('a')!, engine.authenticate('b')!, extra.account];
    const orders = [];
    for (let i = 0; i < 30; i++) {
      orders.push(
        engine.createOrder(accounts[i % 3]!, {
          pledgeAddress: address(i % 5),
          rentalCount: 65_000 + i,
          period: '1h',
        }).order,
      );
      clock.advance(700);
    }
    clock.advance(20_000);
    return {
      wallets: engine.accounts().map((a) => a.walletAddress),
      names: engine.accounts().map((a) => a.name),
      ids: orders.map((o) => o.id),
      txIds: orders.map((o) => o.txId),
      outcomes: orders.map((o) => o.status),
      times: orders.map((o) => o.timeline().map((s) => s.at)),
    };
  }

  it('gives the same ids, txIds, wallet addresses, outcomes and times for the same seed and calls', () => {
    const one = fingerprint(99);
    const two = fingerprint(99);
    expect(two).toEqual(one);
    // The run is not degenerate: both outcomes occur.
    expect(new Set(one.outcomes)).toEqual(new Set(['COMPLETED', 'REFUNDED']));
    for (const [i, status] of one.outcomes.entries()) {
      if (status === 'COMPLETED') expect(one.txIds[i]).toMatch(/^[0-9a-f]{64}$/);
      else expect(one.txIds[i]).toBe('');
    }
  });

  it('gives different ids, txIds, wallet addresses and outcomes for different seeds', () => {
    const one = fingerprint(99);
    const two = fingerprint(100);
    expect(two.wallets).not.toEqual(one.wallets);
    expect(two.ids.map((id) => id.slice(16))).not.toEqual(one.ids.map((id) => id.slice(16)));
    expect(two.txIds).not.toEqual(one.txIds);
    expect(two.outcomes).not.toEqual(one.outcomes);
    for (const wallet of one.wallets) expect(two.wallets).not.toContain(wallet);
  });

  it('draws txIds at creation, so when the steps run does not change them', () => {
    const input = (i: number) => ({ pledgeAddress: PLEDGE, rentalCount: 65_000 + i, period: '1h' }) as const;
    const batchClock = createManualClock();
    const batch = createEngine({ clock: batchClock, seed: 13, scenario: account('k', 1_000_000_000) });
    const batchOrders = [0, 1, 2].map((i) => batch.createOrder(batch.authenticate('k')!, input(i)).order);
    batchClock.advance(60_000);
    const stepClock = createManualClock();
    const stepped = createEngine({ clock: stepClock, seed: 13, scenario: account('k', 1_000_000_000) });
    const stepOrders = [0, 1, 2].map((i) => {
      const order = stepped.createOrder(stepped.authenticate('k')!, input(i)).order;
      stepClock.advance(60_000);
      return order;
    });
    expect(stepOrders.map((o) => o.status)).toEqual(['COMPLETED', 'COMPLETED', 'COMPLETED']);
    expect(stepOrders.map((o) => o.txId)).toEqual(batchOrders.map((o) => o.txId));
    expect(stepOrders.map((o) => o.id.slice(16))).toEqual(batchOrders.map((o) => o.id.slice(16)));
  });
});
