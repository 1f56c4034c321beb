/**
 * The simulator's limits: the request body size, the optional per-key rate limit,
 * the bound on stored orders and the bound on the request journal.
 */
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { afterEach, describe, expect, it } from 'vitest';
import { createSimulator, DEFAULT_SCENARIO, type Simulator } from '../simulator.ts';
import { get, send } from '../test-support/http-test-support.ts';
import { ORDER_QUERY, postOrder } from '../test-support/fixtures.ts';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const LIMIT = 64 * 1024;

const control = (sim: Simulator, method: string, path: string, body?: unknown) =>
  send(sim, path, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

/** A form body for one valid order, padded with an unknown parameter to exactly `bytes` bytes. */
function paddedOrderBody(bytes: number): string {
  const head = `${ORDER_QUERY}&pad=`;
  return head + 'x'.repeat(bytes - head.length);
}

const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

describe('the request body size limit', () => {
  it('accepts an order whose form body is exactly 64 KiB, and one just below', async () => {
    const sim = createSimulator({ clock: 'manual' });
    for (const bytes of [LIMIT - 1, LIMIT]) {
      const body = paddedOrderBody(bytes);
      expect(Buffer.byteLength(body)).toBe(bytes);
      const reply = await send(sim, '/v1/tron/order', {
        method: 'POST',
        headers: { 'API-KEY': 'demo-key', ...FORM },
        body,
      });
      expect(reply).toMatchObject({ status: 200, body: { code: 0, data: { amount: 4.23 } } });
    }
    expect(sim.engine.storedOrders).toBe(2);
  });

  it('refuses an order body one byte over the limit with 413 and code 20004, creating nothing', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await send(sim, '/v1/tron/order', {
      method: 'POST',
      headers: { 'API-KEY': 'demo-key', ...FORM },
      body: paddedOrderBody(LIMIT + 1),
    });
    expect(reply).toMatchObject({
      status: 413,
      body: { code: 20004, msg: expect.stringContaining('65536 bytes'), data: null },
    });
    expect(sim.engine.storedOrders).toBe(0);
    expect(sim.engine.authenticate('demo-key')!.ledger.TRX.frozen).toBe(0);
    // The journal records the refusal (refused before routing, so without an operation) without the oversize
    // body.
    const [entry] = sim.journal.list();
    expect(entry).toMatchObject({ method: 'POST', path: '/v1/tron/order', status: 413 });
    expect(entry!.body).toBeUndefined();
  });

  it('applies the same limit to control-plane bodies', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const json = (bytes: number) => {
      const head = '{"balance":{"trx":"1"}}';
      return head + ' '.repeat(bytes - head.length);
    };
    const below = await send(sim, '/_sim/accounts', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: json(LIMIT - 1),
    });
    expect(below.status).toBe(201);
    const over = await send(sim, '/_sim/accounts', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: json(LIMIT + 1),
    });
    expect(over).toMatchObject({ status: 413, body: { code: 20004 } });
    expect(sim.engine.accounts()).toHaveLength(2);
  });

  it('refuses an oversize body over a real socket too, where Content-Length announces it', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const server = createAdaptorServer({ fetch: sim.app.fetch });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(
      () =>
        new Promise<void>(
          (resolve) => (
            server.close(() => resolve()),
            (server as unknown as { closeAllConnections(): void }).closeAllConnections()
          ),
        ),
    );
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const res = await fetch(`${url}/v1/tron/order`, {
      method: 'POST',
      headers: { 'API-KEY': 'demo-key', ...FORM },
      body: paddedOrderBody(LIMIT + 1000),
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ code: 20004 });
    const ok = await fetch(`${url}/v1/tron/order`, {
      method: 'POST',
      headers: { 'API-KEY': 'demo-key', ...FORM },
      body: paddedOrderBody(LIMIT),
    });
    expect(((await ok.json()) as { code: number }).code).toBe(0);
  });
});

describe('the per-key rate limit', () => {
  it('is off by default: 200 rapid calls all succeed', async () => {
    const sim = createSimulator({ clock: 'manual' });
    expect((await control(sim, 'GET', '/_sim/config')).body.rateLimit).toBeNull();
    const calls = [
      () => postOrder(sim),
      () => get(sim, '/v1/account'),
      () => get(sim, '/v1/tron/price?rentalCount=65000&period=1h'),
      () => get(sim, '/_sim/orders'),
    ];
    const replies = await Promise.all(Array.from({ length: 200 }, (_, i) => calls[i % calls.length]!()));
    expect(replies.map((r) => r.status)).toEqual(Array.from({ length: 200 }, () => 200));
    expect(sim.engine.storedOrders).toBe(50);
  });

  it('answers the 4th call in a window of 3 with 429, code 10003 and Retry-After', async () => {
    const sim = createSimulator({ clock: 'manual' });
    expect(
      (await control(sim, 'PATCH', '/_sim/config', { rateLimit: { requests: 3, windowMs: 1000 } })).body
        .rateLimit,
    ).toEqual({ requests: 3, windowMs: 1000 });
    for (let i = 0; i < 3; i++) expect((await get(sim, '/v1/account')).status).toBe(200);
    const limited = await get(sim, '/v1/account');
    expect(limited).toMatchObject({
      status: 429,
      body: {
        code: 10003,
        msg: expect.stringMatching(/Rate limit exceeded: at most 3 requests per 1000 ms/),
        data: null,
      },
    });
    expect(limited.headers.get('retry-after')).toBe('1');
  });

  it('counts every API operation of a key together, and a limited order creates and charges nothing', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await control(sim, 'PATCH', '/_sim/config', { rateLimit: { requests: 3, windowMs: 1000 } });
    expect((await get(sim, '/v1/tron/price?rentalCount=65000&period=1h')).status).toBe(200);
    expect((await get(sim, '/v1/tron/history?outOrderNo=none')).status).toBe(404);
    expect((await get(sim, '/v1/account')).status).toBe(200);
    expect((await postOrder(sim, `${ORDER_QUERY}&outOrderNo=limited-1`)).status).toBe(429);
    expect(sim.engine.storedOrders).toBe(0);
    expect(sim.engine.authenticate('demo-key')!.ledger.TRX.frozen).toBe(0);
  });

  it('leaves another key unaffected, and unknown keys are refused before they count', async () => {
    const sim = createSimulator({
      clock: 'manual',
      scenario: {
        accounts: [...DEFAULT_SCENARIO.accounts!, { apiKey: 'other-key-1', balance: { trx: '10' } }],
      },
    });
    await control(sim, 'PATCH', '/_sim/config', { rateLimit: { requests: 3, windowMs: 1000 } });
    for (let i = 0; i < 5; i++) await get(sim, '/v1/account');
    expect((await get(sim, '/v1/account')).status).toBe(429);
    for (let i = 0; i < 3; i++) expect((await get(sim, '/v1/account', 'other-key-1')).status).toBe(200);
    expect((await get(sim, '/v1/account', 'other-key-1')).status).toBe(429);
    for (let i = 0; i < 5; i++) expect((await get(sim, '/v1/account', 'no-such-key')).body.code).toBe(10002);
  });

  it('lets calls through again once the manual clock has moved by the window, and Retry-After tells when', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await control(sim, 'PATCH', '/_sim/config', { rateLimit: { requests: 3, windowMs: 1000 } });
    for (let i = 0; i < 3; i++) await get(sim, '/v1/account');
    expect((await get(sim, '/v1/account')).status).toBe(429);
    sim.advance(1000);
    for (let i = 0; i < 3; i++) expect((await get(sim, '/v1/account')).status).toBe(200);
    expect((await get(sim, '/v1/account')).status).toBe(429);

    // A minute-long window: waiting one second less than Retry-After is not enough, waiting it is.
    await control(sim, 'PATCH', '/_sim/config', { rateLimit: { requests: 1, windowMs: 60_000 } });
    sim.advance(60_000);
    expect((await get(sim, '/v1/account')).status).toBe(200);
    const limited = await get(sim, '/v1/account');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    await control(sim, 'POST', '/_sim/clock/advance', { ms: (retryAfter - 1) * 1000 });
    expect((await get(sim, '/v1/account')).status).toBe(429);
    await control(sim, 'POST', '/_sim/clock/advance', { ms: 1000 });
    expect((await get(sim, '/v1/account')).status).toBe(200);
  });

  it('never limits the control plane, not even its per-key endpoints', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await control(sim, 'PATCH', '/_sim/config', { rateLimit: { requests: 1, windowMs: 1000 } });
    await get(sim, '/v1/account');
    expect((await get(sim, '/v1/account')).status).toBe(429);
    for (let i = 0; i < 20; i++) {
      expect((await get(sim, '/_sim/accounts/me')).status).toBe(200);
      expect((await get(sim, '/_sim/orders')).status).toBe(200);
      expect((await control(sim, 'GET', '/_sim/config')).status).toBe(200);
      expect(
        (
          await send(sim, '/_sim/accounts/me/deposit', {
            method: 'POST',
            headers: { 'API-KEY': 'demo-key' },
            body: '{"trx":"1"}',
          })
        ).status,
      ).toBe(200);
    }
  });

  // Regression (fixed in 78b7a86): the limiter's windows used to survive POST /_sim/reset,
  // so the rewound manual clock landed in the old window with its old count (429).
  it('starts afresh after POST /_sim/reset, as a new simulator would', async () => {
    const sim = createSimulator({
      clock: 'manual',
      scenario: {
        settings: { rateLimit: { requests: 3, windowMs: 60_000 } },
        accounts: DEFAULT_SCENARIO.accounts!,
      },
    });
    for (let i = 0; i < 3; i++) expect((await get(sim, '/v1/account')).status).toBe(200);
    expect((await get(sim, '/v1/account')).status).toBe(429);
    expect((await control(sim, 'POST', '/_sim/reset')).status).toBe(200);
    expect((await get(sim, '/v1/account')).status).toBe(200);
  });

  it('turns off again with rateLimit null', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await control(sim, 'PATCH', '/_sim/config', { rateLimit: { requests: 1, windowMs: 1000 } });
    await get(sim, '/v1/account');
    expect((await get(sim, '/v1/account')).status).toBe(429);
    await control(sim, 'PATCH', '/_sim/config', { rateLimit: null });
    for (let i = 0; i < 10; i++) expect((await get(sim, '/v1/account')).status).toBe(200);
  });
});

describe('the bound on stored orders', () => {
  it('keeps storedOrders at most N while many orders are created and finish at once', async () => {
    const sim = createSimulator({ clock: 'manual', timing: 'instant' });
    await control(sim, 'PATCH', '/_sim/config', { maxStoredOrders: 10 });
    const ids: string[] = [];
    for (let i = 0; i < 120; i++) {
      ids.push((await postOrder(sim, `${ORDER_QUERY}&outOrderNo=bulk-${i}`)).body.data.id);
      expect(sim.engine.storedOrders).toBeLessThanOrEqual(10);
    }
    expect(sim.engine.checkInvariants()).toEqual([]);
    const listed = (await get(sim, '/_sim/orders?limit=1000')).body.orders.map(
      (o: { orderId: string }) => o.orderId,
    );
    expect(listed).toEqual(ids.slice(-10).reverse());
    // The books still count every order, evicted ones included.
    const me = (await get(sim, '/_sim/accounts/me')).body;
    expect(me).toMatchObject({
      orders: 10,
      ledger: { trx: { spent: '507.6', frozen: '0', available: '492.4' } },
    });
  });

  it('evicts the oldest finished order first and never an open one', async () => {
    const sim = createSimulator({ clock: 'manual', timing: 'realistic' });
    await control(sim, 'PATCH', '/_sim/config', { maxStoredOrders: 3 });
    // The oldest order stays open for a day.
    await control(sim, 'POST', '/_sim/rules', {
      match: { outOrderNo: 'open-1' },
      outcome: 'COMPLETED',
      delayMs: 86_400_000,
    });
    const open = (await postOrder(sim, `${ORDER_QUERY}&outOrderNo=open-1`)).body.data.id;
    const done: string[] = [];
    for (const out of ['done-1', 'done-2']) {
      done.push((await postOrder(sim, `${ORDER_QUERY}&outOrderNo=${out}`)).body.data.id);
      sim.advance(10_000);
    }
    expect(sim.engine.storedOrders).toBe(3);
    const fourth = (await postOrder(sim, `${ORDER_QUERY}&outOrderNo=done-3`)).body.data.id;
    // done-1, the oldest COMPLETED order, made room; open-1, older still, stayed.
    expect(sim.engine.storedOrders).toBe(3);
    expect((await get(sim, `/v1/tron/history?orderId=${open}`)).body.data.status).toBe('PENDING');
    for (const query of [`orderId=${done[0]}`, 'outOrderNo=done-1']) {
      expect(await get(sim, `/v1/tron/history?${query}`)).toMatchObject({
        status: 404,
        body: { code: 40401, data: null },
      });
    }
    expect((await get(sim, `/_sim/orders/${done[0]}`)).body.code).toBe(40401);
    expect((await get(sim, `/v1/tron/history?orderId=${done[1]}`)).body.data.status).toBe('COMPLETED');
    expect((await get(sim, `/v1/tron/history?orderId=${fourth}`)).body.data.status).toBe('PENDING');
    expect(sim.engine.checkInvariants()).toEqual([]);

    for (let i = 0; i < 15; i++) {
      await postOrder(sim, `${ORDER_QUERY}&outOrderNo=more-${i}`);
      sim.advance(10_000);
      expect(sim.engine.storedOrders).toBeLessThanOrEqual(3);
      expect((await get(sim, '/v1/tron/history?outOrderNo=open-1')).status).toBe(200);
      expect(sim.engine.checkInvariants()).toEqual([]);
    }
  });

  it('goes over N rather than evict open orders, and comes back under once they finish', async () => {
    const sim = createSimulator({ clock: 'manual', timing: 'realistic' });
    await control(sim, 'PATCH', '/_sim/config', { maxStoredOrders: 2 });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await postOrder(sim, `${ORDER_QUERY}&outOrderNo=busy-${i}`)).body.data.id);
    expect(sim.engine.storedOrders).toBe(5);
    for (const id of ids)
      expect((await get(sim, `/v1/tron/history?orderId=${id}`)).body.data.status).toBe('PENDING');
    sim.advance(10_000);
    await postOrder(sim, `${ORDER_QUERY}&outOrderNo=after`);
    expect(sim.engine.storedOrders).toBeLessThanOrEqual(2);
    expect(sim.engine.checkInvariants()).toEqual([]);
  });

  it('evicts at once when the bound is lowered, with refunded orders counted right', async () => {
    const sim = createSimulator({ clock: 'manual', timing: 'instant' });
    await control(sim, 'POST', '/_sim/rules', { outcome: 'FAILED', times: 3 });
    for (let i = 0; i < 6; i++) await postOrder(sim, `${ORDER_QUERY}&outOrderNo=mix-${i}`);
    expect(sim.engine.storedOrders).toBe(6);
    await control(sim, 'PATCH', '/_sim/config', { maxStoredOrders: 1 });
    expect(sim.engine.storedOrders).toBe(1);
    expect(sim.engine.checkInvariants()).toEqual([]);
    // Three refunded, three completed: 12.69 TRX spent, nothing frozen.
    expect((await get(sim, '/_sim/accounts/me')).body.ledger.trx).toEqual({
      deposited: '1000',
      available: '987.31',
      frozen: '0',
      spent: '12.69',
    });
  });
});

describe('the bound on the request journal', () => {
  it('holds at most journalLimit entries from the scenario and keeps the newest', async () => {
    const sim = createSimulator({ clock: 'manual', scenario: { ...DEFAULT_SCENARIO, journalLimit: 5 } });
    const paths: string[] = [];
    for (let i = 0; i < 12; i++) {
      const path = `/v1/tron/price?rentalCount=${65_000 + i}&period=1h`;
      paths.push(path);
      await get(sim, path);
      expect(sim.journal.size).toBeLessThanOrEqual(5);
    }
    const entries = (await get(sim, '/_sim/journal?limit=100')).body.entries as {
      id: number;
      query: { rentalCount: string };
    }[];
    expect(entries).toHaveLength(5);
    expect(entries.map((e) => e.id)).toEqual([8, 9, 10, 11, 12]);
    expect(entries.map((e) => e.query.rentalCount)).toEqual(['65007', '65008', '65009', '65010', '65011']);
  });

  it('keeps nothing with journalLimit 0', async () => {
    const sim = createSimulator({ clock: 'manual', scenario: { ...DEFAULT_SCENARIO, journalLimit: 0 } });
    for (let i = 0; i < 3; i++) await get(sim, '/v1/account');
    expect(sim.journal.size).toBe(0);
    expect((await get(sim, '/_sim/journal')).body.entries).toEqual([]);
  });

  it('holds 1000 entries by default', async () => {
    const sim = createSimulator({ clock: 'manual' });
    for (let i = 0; i < 1010; i++) await get(sim, '/v1/account');
    expect(sim.journal.size).toBe(1000);
    const entries = (await get(sim, '/_sim/journal?limit=10000')).body.entries as { id: number }[];
    expect(entries).toHaveLength(1000);
    expect([entries[0]!.id, entries.at(-1)!.id]).toEqual([11, 1010]);
  });
});
