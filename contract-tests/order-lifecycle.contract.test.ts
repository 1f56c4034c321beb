import { describe, expect } from 'vitest';
import type { EnergyRentalClient } from '../src/client/index.ts';
import type { Order, OrderCreated, OrderStatus } from '../src/models.ts';
import { encodeTronAddress } from '../src/tron-address.ts';
import { contractTest as test, runBytes, STATUS_RANK } from './contract-test.ts';

type Params = { pledgeAddress: string; rentalCount: number; period: '10min'; outOrderNo: string };

/** A decimal without trailing zeros, so "0.80" (history) and 0.8 (creation) compare equal. */
const normalise = (amount: string | number): string =>
  String(amount)
    .replace(/(\.\d*?)0+$/, '$1')
    .replace(/\.$/, '');

const WAIT = { timeoutMs: 60_000, intervalMs: 500 } as const;

/**
 * Polls until the order reaches `status` (waitForOrder stops at FAILED, which is not the
 * end of a failure); statuses seen on the way are appended to `seen`.
 */
async function pollUntil(
  api: EnergyRentalClient,
  sleep: (ms: number) => Promise<void>,
  orderId: string,
  status: OrderStatus,
  seen: OrderStatus[],
): Promise<Order> {
  for (let attempt = 0; attempt < 120; attempt++) {
    const order = await api.getOrderHistory({ orderId });
    if (seen.at(-1) !== order.status) seen.push(order.status);
    if (order.status === status) return order;
    await sleep(500);
  }
  throw new Error(`order ${orderId} never reached ${status}; seen ${seen.join(' → ')}`);
}

function expectForwardOnly(statuses: OrderStatus[]): void {
  for (let i = 1; i < statuses.length; i++) {
    expect(
      STATUS_RANK[statuses[i]!],
      `status moved from ${statuses[i - 1]} back to ${statuses[i]} (seen ${statuses.join(' → ')})`,
    ).toBeGreaterThanOrEqual(STATUS_RANK[statuses[i - 1]!]!);
  }
}

// One order serves the create, history and lifecycle cases, so a guarded run against
// the real service spends a single cheapest order on all three.
let reference: Promise<{ created: OrderCreated; params: Params } | undefined> | undefined;

describe.concurrent('createOrder, getOrderHistory and the lifecycle', () => {
  const referenceOrder = async (fx: {
    api: EnergyRentalClient;
    orderParams: () => Promise<Params>;
    requireSpend: () => void;
    claimOrder: () => boolean;
    slotsExhausted: string;
    noteSpent: (created: OrderCreated) => void;
    skip: (note: string) => never;
  }) => {
    fx.requireSpend();
    reference ??= (async () => {
      if (!fx.claimOrder()) return undefined;
      const params = await fx.orderParams();
      const created = await fx.api.createOrder(params);
      fx.noteSpent(created);
      return { created, params };
    })();
    const ready = await reference;
    if (!ready) fx.skip(fx.slotsExhausted);
    return ready!;
  };

  test('creates an order that echoes outOrderNo and charges what the price says', async ({
    api,
    orderParams,
    requireSpend,
    claimOrder,
    slotsExhausted,
    noteSpent,
    skip,
  }) => {
    const { created, params } = await referenceOrder({
      api,
      orderParams,
      requireSpend,
      claimOrder,
      slotsExhausted,
      noteSpent,
      skip,
    });
    expect(created.outOrderNo, 'outOrderNo is echoed back').toBe(params.outOrderNo);
    if (created.currency === 'TRX') {
      const quote = await api.getPrice({ rentalCount: params.rentalCount, period: params.period });
      expect(normalise(created.amount), `amount charged vs price estimate ${quote.trxPrice}`).toBe(
        normalise(quote.trxPrice),
      );
    }
  });

  test('finds the created order in history by orderId and by outOrderNo', async ({
    api,
    orderParams,
    requireSpend,
    claimOrder,
    slotsExhausted,
    noteSpent,
    skip,
  }) => {
    const { created, params } = await referenceOrder({
      api,
      orderParams,
      requireSpend,
      claimOrder,
      slotsExhausted,
      noteSpent,
      skip,
    });
    const byId = await api.getOrderHistory({ orderId: created.id });
    const byOut = await api.getOrderHistory({ outOrderNo: params.outOrderNo });
    for (const [how, order] of [
      ['orderId', byId],
      ['outOrderNo', byOut],
    ] as const) {
      expect(order.orderId, `found by ${how}`).toBe(created.id);
      expect(order.pledgeAddress, `pledgeAddress found by ${how}`).toBe(params.pledgeAddress);
      expect(order.rentalCount, `rentalCount found by ${how}`).toBe(String(params.rentalCount));
      expect(order.period, `period found by ${how}`).toBe(params.period);
      expect(normalise(order.amount), `amount found by ${how}`).toBe(normalise(created.amount));
      expect(order.currency, `currency found by ${how}`).toBe(created.currency);
    }
  });

  test('drives an order to a terminal status, only forward, and COMPLETED carries a txId', async ({
    api,
    orderParams,
    requireSpend,
    claimOrder,
    slotsExhausted,
    noteSpent,
    skip,
  }) => {
    const { created } = await referenceOrder({
      api,
      orderParams,
      requireSpend,
      claimOrder,
      slotsExhausted,
      noteSpent,
      skip,
    });
    const seen: OrderStatus[] = [];
    const done = await api.waitForOrder(
      { orderId: created.id },
      { ...WAIT, onStatus: (status) => seen.push(status) },
    );
    // A terminal status must stay put (FAILED may still become REFUNDED).
    for (let i = 0; i < 3; i++) seen.push((await api.getOrderHistory({ orderId: created.id })).status);
    expectForwardOnly(seen);
    if (done.status === 'COMPLETED') {
      expect(done.txId, 'a COMPLETED order carries the delegation txId').toMatch(/^[0-9a-f]{64}$/);
      expect(seen.at(-1)).toBe('COMPLETED');
    }
  });

  test('freezes the price on an account of its own, and spends it on completion', async ({
    target,
    clientFor,
    orderParams,
    requireCapability,
  }) => {
    requireCapability('accounts');
    const account = await target.control.createAccount({ trx: '100' });
    const own = clientFor(account.apiKey);
    const created = await own.createOrder(await orderParams());
    expect(created.currency).toBe('TRX');
    const open = await own.getAccount();
    const seen: OrderStatus[] = [];
    const done = await own.waitForOrder({ orderId: created.id }, { ...WAIT, onStatus: (s) => seen.push(s) });
    expectForwardOnly(seen);
    expect(done.status).toBe('COMPLETED');
    const after = await own.getAccount();
    const cost = normalise(created.amount);
    if (seen[0] !== 'COMPLETED')
      expect(normalise(open.balance.frozen.trx), 'TRX frozen while the order is open').toBe(cost);
    expect(after.balance.frozen.trx, 'nothing frozen once completed').toBe('0');
    expect(normalise(after.balance.available.trx), 'the price is spent once').toBe(
      normalise(subtract('100', cost)),
    );
  });

  test('refunds a forced failure: FAILED, then REFUNDED with the money back', async ({
    target,
    clientFor,
    orderParams,
    requireCapability,
    newOutOrderNo,
  }) => {
    requireCapability('rules');
    requireCapability('accounts');
    const account = await target.control.createAccount({ trx: '100' });
    const own = clientFor(account.apiKey);
    const params = await orderParams({ outOrderNo: newOutOrderNo('fail') });
    await target.control.addRule({
      match: { outOrderNo: params.outOrderNo },
      outcome: 'FAILED',
      delayMs: 1000,
      times: 1,
    });
    const created = await own.createOrder(params);
    const seen: OrderStatus[] = [];
    await own.waitForOrder({ orderId: created.id }, { ...WAIT, onStatus: (s) => seen.push(s) });
    const refunded = await pollUntil(own, (ms) => target.sleep(ms), created.id, 'REFUNDED', seen);
    expectForwardOnly(seen);
    expect(seen.at(-1), 'the order ends refunded').toBe('REFUNDED');
    // A polling client may never see FAILED (fast timing refunds within one poll, and the
    // real service may refund at once); the control plane's timeline says it happened.
    const view = await target.control.timeline(account.apiKey, created.id);
    expect(
      view.timeline.map((step) => step.status),
      'FAILED, then REFUNDED',
    ).toEqual(['PENDING', 'PROCESSING', 'FAILED', 'REFUNDED']);
    expect(refunded.txId, 'no delegation happened').toBe('');
    const after = await own.getAccount();
    expect(after.balance.available.trx, 'the refund restores the balance').toBe('100');
    expect(after.balance.frozen.trx).toBe('0');
  });

  test('activates a new receiving address exactly once, on its first order', async ({
    api,
    target,
    orderParams,
    requireCapability,
    config,
    task,
  }) => {
    requireCapability('activation');
    // Fresh in every run, yet the same in a replay of this run (same run id, same case).
    const address = encodeTronAddress(runBytes(config.runId, task.fullName, 'address'));
    expect((await target.control.address(address)).activated).toBe(false);
    // The second order is placed before the first has activated anything: only one may.
    const first = await api.createOrder(await orderParams({ pledgeAddress: address }));
    const second = await api.createOrder(await orderParams({ pledgeAddress: address }));
    await Promise.all([first, second].map((o) => api.waitForOrder({ orderId: o.id }, WAIT)));
    expect(await target.control.address(address)).toMatchObject({
      activated: true,
      activatedByOrderId: first.id,
    });
    expect(
      (await target.control.timeline(target.apiKey, second.id)).activatedAddress,
      'the second order activates nothing',
    ).toBe(false);
  });

  test('honours a forced delay: the outcome comes exactly that long after creation', async ({
    api,
    target,
    orderParams,
    requireCapability,
    newOutOrderNo,
  }) => {
    requireCapability('rules');
    const params = await orderParams({ outOrderNo: newOutOrderNo('delay') });
    await target.control.addRule({
      match: { outOrderNo: params.outOrderNo },
      outcome: 'COMPLETED',
      delayMs: 1500,
      times: 1,
    });
    const created = await api.createOrder(params);
    await api.waitForOrder({ orderId: created.id }, WAIT);
    const view = await target.control.timeline(target.apiKey, created.id);
    const completed = view.timeline.find((step) => step.status === 'COMPLETED');
    expect(completed, `timeline ${JSON.stringify(view.timeline)}`).toBeDefined();
    const took = completed!.at - view.createdAt;
    expect(took, 'not before the forced delay').toBeGreaterThanOrEqual(1500);
    if (target.has('clock')) expect(took, 'exactly the delay with a manual clock').toBe(1500);
    else expect(took, 'within a second of the delay with a real clock').toBeLessThan(2500);
  });

  test('returns the first order for a duplicate outOrderNo, without a second charge', async ({
    target,
    clientFor,
    orderParams,
    requireCapability,
    newOutOrderNo,
  }) => {
    requireCapability('duplicates');
    requireCapability('accounts');
    const account = await target.control.createAccount({ trx: '100' });
    const own = clientFor(account.apiKey);
    const params = await orderParams({ outOrderNo: newOutOrderNo('dup') });
    const first = await own.createOrder(params);
    const again = await own.createOrder(params);
    expect(again.id, 'the same order comes back').toBe(first.id);
    const { trx } = (await target.control.ownAccount(account.apiKey)).ledger;
    expect(normalise(subtract(trx.deposited, trx.available)), 'charged once').toBe(normalise(first.amount));
  });
});

/** a − b for non-negative decimal strings (up to six decimals), exactly. */
function subtract(a: string, b: string | number): string {
  const scale = (x: string): bigint => {
    const [whole, fraction = ''] = x.split('.');
    return BigInt(whole!) * 1_000_000n + BigInt(fraction.padEnd(6, '0'));
  };
  const diff = scale(a) - scale(String(b));
  return `${diff / 1_000_000n}.${String(diff % 1_000_000n).padStart(6, '0')}`;
}
