/**
 * Concurrent requests against one simulator: parallel orders on an account that can
 * afford only some of them, parallel orders with one outOrderNo, and orders racing
 * clock advances, in-process and over a real socket with keep-alive connections.
 */
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { afterEach, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../simulator.ts';
import { send, type Reply } from '../test-support/http-test-support.ts';
import { ORDER_QUERY, createAccount } from '../test-support/fixtures.ts';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

const order = (sim: Simulator, apiKey: string, extra = '') =>
  send(sim, '/v1/tron/order', {
    method: 'POST',
    headers: { 'API-KEY': apiKey, ...FORM },
    body: `${ORDER_QUERY}${extra}`,
  });

function ledgerOf(sim: Simulator, apiKey: string) {
  return sim.engine.authenticate(apiKey)!.ledger;
}

// Servers and agents of one test, closed after it.
const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

/** Serves the simulator on a real socket on loopback; returns its URL and how many connections it accepted. */
async function listen(sim: Simulator): Promise<{ url: string; connections: () => number }> {
  const server = createAdaptorServer({ fetch: sim.app.fetch });
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as unknown as { closeAllConnections(): void }).closeAllConnections();
      }),
  );
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => connections,
  };
}

describe('parallel orders against a balance that covers only some of them', () => {
  it('lets exactly K of N in-process orders succeed and refuses the rest with 402 and code 30001', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const K = 7;
    const N = 40;
    const { apiKey: key } = await createAccount(sim, { balance: { trx: (4.23 * K).toFixed(2) } });
    const replies = await Promise.all(Array.from({ length: N }, () => order(sim, key)));

    const accepted = replies.filter((r) => r.status === 200);
    const refused = replies.filter((r) => r.status !== 200);
    expect(accepted).toHaveLength(K);
    for (const r of accepted)
      expect(r.body).toMatchObject({ code: 0, data: { amount: 4.23, currency: 'TRX' } });
    expect(new Set(accepted.map((r) => r.body.data.id)).size).toBe(K);
    expect(refused).toHaveLength(N - K);
    for (const r of refused)
      expect(r).toMatchObject({
        status: 402,
        body: { code: 30001, msg: expect.stringMatching(/Insufficient balance/), data: null },
      });

    expect(ledgerOf(sim, key).TRX).toEqual({
      deposited: 29_610_000,
      available: 0,
      frozen: 29_610_000,
      spent: 0,
    });
    expect(ledgerOf(sim, key).USDT.available).toBe(0);
    expect(sim.engine.checkInvariants()).toEqual([]);
    // The lifecycle then spends exactly what was frozen.
    sim.advance(10_000);
    expect(ledgerOf(sim, key).TRX).toEqual({
      deposited: 29_610_000,
      available: 0,
      frozen: 0,
      spent: 29_610_000,
    });
    expect(sim.engine.checkInvariants()).toEqual([]);
  });

  it('falls back to USDT in parallel too, and never takes a balance below zero', async () => {
    const sim = createSimulator({ clock: 'manual' });
    // 2 orders in TRX (8.46), then 0.80 USDT each: 1.60 USDT pays for 2 more.
    const reply = await send(sim, '/_sim/accounts', {
      method: 'POST',
      body: JSON.stringify({ balance: { trx: '8.46', usdt: '1.60' } }),
    });
    const key = reply.body.apiKey as string;
    const replies = await Promise.all(Array.from({ length: 25 }, () => order(sim, key)));
    const currencies = replies.filter((r) => r.status === 200).map((r) => r.body.data.currency as string);
    expect(currencies.sort()).toEqual(['TRX', 'TRX', 'USDT', 'USDT']);
    expect(replies.filter((r) => r.status === 402)).toHaveLength(21);
    const { TRX, USDT } = ledgerOf(sim, key);
    expect([TRX.available, USDT.available]).toEqual([0, 0]);
    expect([TRX.frozen, USDT.frozen]).toEqual([8_460_000, 1_600_000]);
    expect(sim.engine.checkInvariants()).toEqual([]);
  });

  it('lets exactly K of N orders succeed over a real socket with keep-alive connections', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const { url, connections } = await listen(sim);
    const K = 5;
    const N = 30;
    const { apiKey: key } = await createAccount(sim, { balance: { trx: (4.23 * K).toFixed(2) } });
    const post = async () => {
      // fetch keeps connections alive and reuses them (undici's pool).
      const res = await fetch(`${url}/v1/tron/order`, {
        method: 'POST',
        headers: { 'API-KEY': key, ...FORM },
        body: ORDER_QUERY,
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const first = await Promise.all(Array.from({ length: N }, post));
    const second = await Promise.all(Array.from({ length: N }, post));

    expect(first.filter((r) => r.status === 200)).toHaveLength(K);
    for (const r of [...first.filter((x) => x.status !== 200), ...second])
      expect(r).toMatchObject({ status: 402, body: { code: 30001 } });
    // Connections were kept alive and reused: far fewer than one per request.
    expect(connections()).toBeLessThan(2 * N);
    expect(sim.journal.list({ operation: 'createOrder', limit: 1000 })).toHaveLength(2 * N);
    expect(ledgerOf(sim, key).TRX).toMatchObject({ available: 0, frozen: 21_150_000 });
    expect(sim.engine.checkInvariants()).toEqual([]);
    const accountReply = await fetch(`${url}/v1/account`, { headers: { 'API-KEY': key } });
    expect(((await accountReply.json()) as any).data.balance).toEqual({
      available: { trx: '0', usdt: '0.000000' },
      frozen: { trx: '21.15' },
    });
  });
});

describe('parallel orders with the same outOrderNo', () => {
  it('create one order and one charge, and answer every caller with that order', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const replies = await Promise.all(
      Array.from({ length: 25 }, () => order(sim, 'demo-key', '&outOrderNo=same-1')),
    );
    expect(replies.every((r) => r.status === 200 && r.body.code === 0)).toBe(true);
    const ids = new Set(replies.map((r) => r.body.data.id));
    expect(ids.size).toBe(1);
    const orders = (await send(sim, '/_sim/orders', { headers: { 'API-KEY': 'demo-key' } })).body.orders;
    expect(orders).toHaveLength(1);
    expect(orders[0]).toMatchObject({ orderId: [...ids][0], outOrderNo: 'same-1' });
    expect(ledgerOf(sim, 'demo-key').TRX).toMatchObject({
      deposited: 1_000_000_000,
      frozen: 4_230_000,
      available: 995_770_000,
    });
    expect(sim.engine.checkInvariants()).toEqual([]);
  });

  it('create one order and refuse the others with 409 and code 30002 when duplicates are rejected', async () => {
    const sim = createSimulator({
      clock: 'manual',
      scenario: {
        settings: { duplicateOutOrderNo: 'reject' },
        accounts: [{ apiKey: 'demo-key', balance: { trx: '1000' } }],
      },
    });
    const replies = await Promise.all(
      Array.from({ length: 25 }, () => order(sim, 'demo-key', '&outOrderNo=same-2')),
    );
    expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
    const refused = replies.filter((r) => r.status !== 200);
    expect(refused).toHaveLength(24);
    for (const r of refused)
      expect(r.body).toMatchObject({ code: 30002, msg: expect.stringContaining('same-2') });
    expect(sim.engine.storedOrders).toBe(1);
    expect(ledgerOf(sim, 'demo-key').TRX.frozen).toBe(4_230_000);
  });
});

describe('orders racing clock advances', () => {
  it('keep every invariant at every change of state while orders, lookups and advances run concurrently', async () => {
    const sim = createSimulator({
      clock: 'manual',
      scenario: {
        settings: { failureRate: 0.3 },
        accounts: [{ apiKey: 'demo-key', balance: { trx: '100', usdt: '20' } }],
      },
    });
    const problems: string[] = [];
    let events = 0;
    // Checked at every change the engine announces, not only between requests.
    sim.engine.subscribe(() => {
      events++;
      problems.push(...sim.engine.checkInvariants());
    });
    const advance = (ms: number) =>
      send(sim, '/_sim/clock/advance', { method: 'POST', body: JSON.stringify({ ms }) });
    const work: Promise<Reply>[] = [];
    for (let i = 0; i < 120; i++) {
      if (i % 3 === 0) work.push(advance(700 + (i % 7) * 300));
      if (i % 5 === 0)
        work.push(
          send(sim, '/_sim/accounts/me/deposit', {
            method: 'POST',
            headers: { 'API-KEY': 'demo-key' },
            body: '{"usdt":"0.5"}',
          }),
        );
      work.push(order(sim, 'demo-key', `&outOrderNo=race-${i % 90}`));
      work.push(
        send(sim, `/v1/tron/history?outOrderNo=race-${(i * 7) % 90}`, { headers: { 'API-KEY': 'demo-key' } }),
      );
    }
    const replies = await Promise.all(work);
    expect(replies.every((r) => r.status < 500)).toBe(true);
    expect(replies.filter((r) => r.status === 402).length).toBeGreaterThan(0);
    // One event per change of state (an order's creation, each step, each deposit).
    expect(events).toBeGreaterThan(150);
    expect(problems).toEqual([]);

    await advance(60_000);
    const orders = sim.engine.orders(sim.engine.authenticate('demo-key')!);
    // Enough orders for the race to matter; how many the balance allows depends on how
    // the deposits interleave with them, which is the transport's to decide.
    expect(orders.length).toBeGreaterThan(40);
    expect(new Set(orders.map((o) => o.status))).toEqual(new Set(['COMPLETED', 'REFUNDED']));
    const { TRX, USDT } = ledgerOf(sim, 'demo-key');
    expect(TRX.frozen + USDT.frozen).toBe(0);
    expect(problems).toEqual([]);
    expect(sim.engine.checkInvariants()).toEqual([]);
  });

  it('keep every invariant when the requests race over a real socket', async () => {
    const sim = createSimulator({
      clock: 'manual',
      scenario: {
        settings: { failureRate: 0.5 },
        accounts: [{ apiKey: 'demo-key', balance: { trx: '100' } }],
      },
    });
    const { url } = await listen(sim);
    const problems: string[] = [];
    sim.engine.subscribe(() => problems.push(...sim.engine.checkInvariants()));
    const work: Promise<number>[] = [];
    for (let i = 0; i < 60; i++) {
      work.push(
        fetch(`${url}/v1/tron/order?${ORDER_QUERY}`, {
          method: 'POST',
          headers: { 'API-KEY': 'demo-key' },
        }).then(async (r) => (await r.text(), r.status)),
      );
      if (i % 4 === 0)
        work.push(
          fetch(`${url}/_sim/clock/advance`, { method: 'POST', body: '{"ms":2500}' }).then(
            async (r) => (await r.text(), r.status),
          ),
        );
    }
    const statuses = await Promise.all(work);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    expect(statuses.filter((s) => s === 402).length).toBeGreaterThan(0);
    expect(problems).toEqual([]);
    expect(sim.engine.checkInvariants()).toEqual([]);
  });
});
