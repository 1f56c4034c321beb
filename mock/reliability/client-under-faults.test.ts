/**
 * The typed client against a simulator with injected faults (POST /_sim/faults): which
 * EnergyRentalError each fault raises, that createOrder is never retried, and what
 * waitForOrder does.
 *
 * | injected fault                      | every method throws EnergyRentalError                                   | createOrder                                                  | waitForOrder                 |
 * |-------------------------------------|-------------------------------------------------------------------------|--------------------------------------------------------------|------------------------------|
 * | latencyMs under the client timeout  | nothing: the answer is only late                                        | one request, order created                                   | polls on                     |
 * | latencyMs over the client timeout   | kind 'timeout', no status                                               | one request; the order IS created when the delay ends        | polls on (transient)         |
 * | status 429                          | kind 'http', status 429, code 10003, retryAfter 1 (or the fault's)      | one request, no order                                        | polls on (transient)         |
 * | status 429, withBody false          | kind 'http', status 429, code undefined, retryAfter 1 (or the fault's)  | one request, no order                                        | polls on (transient)         |
 * | status 500 / 502 / 503              | kind 'http', that status, code 50000, retryAfter only if the fault sets it | one request, no order                                     | polls on (transient)         |
 * | status 500 / 502 / 503, no body     | kind 'http', that status, code undefined                                | one request, no order                                        | polls on (transient)         |
 * | malformed                           | kind 'invalid-body', status 200, code undefined                         | one request, no order                                        | polls on (transient)         |
 * | truncated                           | kind 'invalid-body', status 200, code undefined                         | one request, order CREATED and charged: find it by outOrderNo | polls on (transient)        |
 * | drop (in-process or real socket)    | kind 'network', no status                                               | one request, no order                                        | polls on (transient)         |
 * | reset, garbage (random bytes)       | kind 'network', no status                                               | one request, no order                                        | polls on (transient)         |
 * | status 429, withRetryAfter false    | kind 'http', status 429, code 10003, retryAfter undefined               | one request, no order                                        | polls on (transient)         |
 * | drip within the client timeout      | nothing: the answer is only slow                                        | one request, order created                                   | polls on                     |
 * | drip past the client timeout        | kind 'timeout', no status                                               | one request; the order IS created                            | polls on (transient)         |
 * | none, but an unknown order / key    | kind 'http', status 404 code 40401 / status 401 code 10002              | (n/a)                                                        | throws at once, no retry     |
 *
 * waitForOrder gives up at its own deadline with kind 'timeout' (operation
 * 'waitForOrder') and the last transient failure as its cause.
 */
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { afterEach, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../simulator.ts';
import type { OrderStatus } from '../../src/models.ts';
import { createClient, type EnergyRentalClient } from '../../src/client/create-client.ts';
import { EnergyRentalError } from '../../src/client/energy-rental-error.ts';
import { ADDRESS } from '../test-support/fixtures.ts';

const OPERATIONS = ['createOrder', 'getPrice', 'getOrderHistory', 'getAccount'] as const;
type Operation = (typeof OPERATIONS)[number];

/** A client of `sim`, in-process. waitForOrder sleeps on the simulator's clock: polling takes no real time and moves the lifecycle on. */
function clientOf(sim: Simulator, timeoutMs?: number): EnergyRentalClient {
  return createClient({
    baseUrl: 'http://sim',
    apiKey: 'demo-key',
    fetch: sim.fetch,
    now: () => sim.clock.now(),
    sleep: async (ms) => sim.advance(ms),
    ...(timeoutMs ? { timeoutMs } : {}),
  });
}

/** A manual-clock simulator with one order (outOrderNo 'known') for the history to find. */
async function setup(): Promise<{ sim: Simulator; client: EnergyRentalClient }> {
  const sim = createSimulator({ clock: 'manual', timing: 'realistic' });
  const client = clientOf(sim);
  await client.createOrder({ pledgeAddress: ADDRESS, rentalCount: 65000, period: '1h', outOrderNo: 'known' });
  return { sim, client };
}

async function inject(sim: Simulator, fault: Record<string, unknown>): Promise<void> {
  const res = await sim.app.request('/_sim/faults', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(fault),
  });
  expect(res.status, await res.text()).toBe(201);
}

function callOf(
  client: EnergyRentalClient,
  operation: Operation,
  outOrderNo = 'under-fault',
): Promise<unknown> {
  switch (operation) {
    case 'createOrder':
      return client.createOrder({ pledgeAddress: ADDRESS, rentalCount: 65000, period: '1h', outOrderNo });
    case 'getPrice':
      return client.getPrice({ rentalCount: 65000, period: '1h' });
    case 'getOrderHistory':
      return client.getOrderHistory({ outOrderNo: 'known' });
    case 'getAccount':
      return client.getAccount();
  }
}

/** The rejection of `promise`, asserted to be an EnergyRentalError. */
async function failure(promise: Promise<unknown>): Promise<EnergyRentalError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EnergyRentalError);
  return error as EnergyRentalError;
}

/** Requests of an operation that reached the simulator. */
const received = (sim: Simulator, operation: Operation) =>
  sim.journal.list({ operation, limit: 1000 }).length;

interface FaultCase {
  name: string;
  fault: Record<string, unknown>;
  expected: Partial<Pick<EnergyRentalError, 'kind' | 'status' | 'code' | 'retryAfter'>>;
  /** Whether createOrder created the order although the client saw a failure. */
  orderCreated: boolean;
}

const FAULTS: FaultCase[] = [
  {
    name: '429',
    fault: { response: 'status', status: 429 },
    expected: { kind: 'http', status: 429, code: 10003, retryAfter: 1 },
    orderCreated: false,
  },
  {
    name: '429 with retryAfter 9',
    fault: { response: 'status', status: 429, retryAfter: 9 },
    expected: { kind: 'http', status: 429, code: 10003, retryAfter: 9 },
    orderCreated: false,
  },
  {
    name: '429 without a body',
    fault: { response: 'status', status: 429, withBody: false },
    expected: { kind: 'http', status: 429, code: undefined, retryAfter: 1 },
    orderCreated: false,
  },
  ...[500, 502, 503].flatMap((status) => [
    {
      name: `${status}`,
      fault: { response: 'status', status },
      expected: { kind: 'http' as const, status, code: 50000, retryAfter: undefined },
      orderCreated: false,
    },
    {
      name: `${status} without a body`,
      fault: { response: 'status', status, withBody: false },
      expected: { kind: 'http' as const, status, code: undefined, retryAfter: undefined },
      orderCreated: false,
    },
  ]),
  {
    name: '503 with retryAfter 4',
    fault: { response: 'status', status: 503, retryAfter: 4 },
    expected: { kind: 'http', status: 503, code: 50000, retryAfter: 4 },
    orderCreated: false,
  },
  {
    name: 'a malformed body',
    fault: { response: 'malformed' },
    expected: { kind: 'invalid-body', status: 200, code: undefined },
    orderCreated: false,
  },
  {
    name: 'a truncated body',
    fault: { response: 'truncated' },
    expected: { kind: 'invalid-body', status: 200, code: undefined },
    orderCreated: true,
  },
  {
    name: 'a dropped connection',
    fault: { response: 'drop' },
    expected: { kind: 'network', status: undefined, code: undefined },
    orderCreated: false,
  },
  {
    name: 'a reset connection',
    fault: { response: 'reset' },
    expected: { kind: 'network', status: undefined, code: undefined },
    orderCreated: false,
  },
  {
    name: 'random bytes, then a closed connection',
    fault: { response: 'garbage' },
    expected: { kind: 'network', status: undefined, code: undefined },
    orderCreated: false,
  },
  {
    name: '429 without Retry-After',
    fault: { response: 'status', status: 429, withRetryAfter: false },
    expected: { kind: 'http', status: 429, code: 10003, retryAfter: undefined },
    orderCreated: false,
  },
];

describe.each(FAULTS)('the client under $name', ({ fault, expected, orderCreated }) => {
  it.each(OPERATIONS)('raises the documented EnergyRentalError from %s', async (operation) => {
    const { sim, client } = await setup();
    await inject(sim, { operation, times: 1, ...fault });
    const error = await failure(callOf(client, operation));
    expect(error).toMatchObject({ operation, ...expected });
    expect(error.message.startsWith(`${operation} failed: `)).toBe(true);
    // The fault was used up: the same call now succeeds.
    await expect(callOf(client, operation, 'after-fault')).resolves.toBeDefined();
  });

  it(`sends createOrder exactly once and ${orderCreated ? 'still creates' : 'creates no'} order`, async () => {
    const { sim, client } = await setup();
    await inject(sim, { operation: 'createOrder', times: 1, ...fault });
    const before = received(sim, 'createOrder');
    await failure(callOf(client, 'createOrder', 'once-only'));
    expect(received(sim, 'createOrder') - before).toBe(1);
    const lookup = client.getOrderHistory({ outOrderNo: 'once-only' });
    if (orderCreated) {
      expect((await lookup).status).toBe('PENDING');
      expect(sim.engine.authenticate('demo-key')!.ledger.TRX.frozen).toBe(2 * 4_230_000);
    } else {
      expect(await failure(lookup)).toMatchObject({ kind: 'http', status: 404, code: 40401 });
      expect(sim.engine.authenticate('demo-key')!.ledger.TRX.frozen).toBe(4_230_000);
    }
  });

  it('lets waitForOrder poll through it to the terminal status', async () => {
    const { sim, client } = await setup();
    await inject(sim, { operation: 'getOrderHistory', times: 3, ...fault });
    const seen: OrderStatus[] = [];
    const order = await client.waitForOrder(
      { outOrderNo: 'known' },
      { intervalMs: 500, timeoutMs: 30_000, onStatus: (status) => seen.push(status) },
    );
    expect(order.status).toBe('COMPLETED');
    expect(order.txId).toMatch(/^[0-9a-f]{64}$/);
    // Three lookups hit the fault, then polling went on.
    const lookups = sim.journal.list({ operation: 'getOrderHistory', limit: 1000 });
    expect(lookups.filter((e) => e.fault !== undefined)).toHaveLength(3);
    expect(lookups.length).toBeGreaterThan(3);
    expect(seen.at(-1)).toBe('COMPLETED');
  });
});

describe('the client under added latency', () => {
  it('waits for a late answer within its timeout', async () => {
    const { sim, client } = await setup();
    await inject(sim, { operation: 'getPrice', latencyMs: 40, times: 1 });
    expect((await client.getPrice({ rentalCount: 65000, period: '1h' })).trxPrice).toBe('4.23');
    expect(sim.journal.list({ operation: 'getPrice' }).at(-1)).toMatchObject({
      status: 200,
      fault: 'fault-1',
    });
  });

  it('raises kind timeout past its timeout, and a slow createOrder still creates the order afterwards', async () => {
    const { sim, client } = await setup();
    const impatient = clientOf(sim, 30);
    await inject(sim, { operation: 'createOrder', latencyMs: 100, times: 1 });
    const error = await failure(
      impatient.createOrder({
        pledgeAddress: ADDRESS,
        rentalCount: 65000,
        period: '1h',
        outOrderNo: 'slow-1',
      }),
    );
    expect(error).toMatchObject({
      operation: 'createOrder',
      kind: 'timeout',
      status: undefined,
      code: undefined,
    });
    expect(error.message).toBe('createOrder failed: no complete response within 30 ms (timeout)');
    expect(sim.engine.storedOrders).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    // The server went on once the delay ended: the order exists although the client gave up.
    expect(sim.journal.list({ operation: 'createOrder' }).at(-1)).toMatchObject({
      status: 200,
      fault: 'fault-1',
    });
    expect((await client.getOrderHistory({ outOrderNo: 'slow-1' })).status).toBe('PENDING');
  });

  it('lets waitForOrder poll through lookups that time out', async () => {
    const { sim } = await setup();
    await inject(sim, { operation: 'getOrderHistory', latencyMs: 100, times: 2 });
    const order = await clientOf(sim, 30).waitForOrder(
      { outOrderNo: 'known' },
      { intervalMs: 1000, timeoutMs: 30_000 },
    );
    expect(order.status).toBe('COMPLETED');
    // The two slow lookups are journaled once the server answers them, after the client gave up.
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(sim.journal.list({ operation: 'getOrderHistory' }).filter((e) => e.fault)).toHaveLength(2);
  });
});

describe('the client under a slow drip', () => {
  it('reads the whole answer when the drip ends within its timeout', async () => {
    const { sim, client } = await setup();
    await inject(sim, { operation: 'getPrice', response: 'drip', dripMs: 60, dripChunks: 4, times: 1 });
    expect((await client.getPrice({ rentalCount: 65000, period: '1h' })).trxPrice).toBe('4.23');
  });

  it('raises kind timeout when the drip outlasts it, and the dripped createOrder still created the order', async () => {
    const { sim, client } = await setup();
    await inject(sim, { operation: 'createOrder', response: 'drip', dripMs: 300, dripChunks: 5, times: 1 });
    const error = await failure(
      clientOf(sim, 50).createOrder({
        pledgeAddress: ADDRESS,
        rentalCount: 65000,
        period: '1h',
        outOrderNo: 'dripped-1',
      }),
    );
    expect(error).toMatchObject({ operation: 'createOrder', kind: 'timeout', status: undefined });
    expect((await client.getOrderHistory({ outOrderNo: 'dripped-1' })).status).toBe('PENDING');
  });
});

describe('waitForOrder under faults', () => {
  it('polls through a mix of 503, 429, malformed, truncated and dropped lookups until COMPLETED', async () => {
    const { sim, client } = await setup();
    for (const fault of [
      { response: 'status', status: 503 },
      { response: 'status', status: 429, withBody: false },
      { response: 'malformed' },
      { response: 'drop' },
      { response: 'truncated' },
      { response: 'status', status: 502, withBody: false },
    ]) {
      await inject(sim, { operation: 'getOrderHistory', times: 1, ...fault });
    }
    const seen: OrderStatus[] = [];
    const order = await client.waitForOrder(
      { outOrderNo: 'known' },
      { intervalMs: 400, timeoutMs: 60_000, onStatus: (status) => seen.push(status) },
    );
    expect(order.status).toBe('COMPLETED');
    expect(
      sim.journal
        .list({ operation: 'getOrderHistory' })
        .slice(0, 6)
        .map((e) => e.status),
    ).toEqual([503, 429, 200, 599, 200, 502]);
    expect(seen[0]).not.toBe('COMPLETED');
    expect(seen.at(-1)).toBe('COMPLETED');
  });

  it('polls through failures with probability until the order is REFUNDED or FAILED', async () => {
    const { sim, client } = await setup();
    await sim.app.request('/_sim/rules', {
      method: 'POST',
      body: JSON.stringify({ match: { outOrderNo: 'doomed' }, outcome: 'FAILED', delayMs: 3000 }),
    });
    const { id } = await client.createOrder({
      pledgeAddress: ADDRESS,
      rentalCount: 65000,
      period: '1h',
      outOrderNo: 'doomed',
    });
    await inject(sim, { operation: 'getOrderHistory', response: 'status', status: 503, probability: 0.6 });
    const order = await client.waitForOrder({ orderId: id }, { intervalMs: 250, timeoutMs: 60_000 });
    expect(['FAILED', 'REFUNDED']).toContain(order.status);
    expect(
      sim.journal.list({ operation: 'getOrderHistory', limit: 1000 }).filter((e) => e.fault).length,
    ).toBeGreaterThan(0);
  });

  it('throws at once on a non-transient error: an unknown order', async () => {
    const { sim, client } = await setup();
    const before = received(sim, 'getOrderHistory');
    const error = await failure(
      client.waitForOrder({ orderId: 'OR20250312175009ZZZZZZZZ' }, { intervalMs: 500, timeoutMs: 30_000 }),
    );
    expect(error).toMatchObject({ operation: 'getOrderHistory', kind: 'http', status: 404, code: 40401 });
    expect(received(sim, 'getOrderHistory') - before).toBe(1);
  });

  it('throws at once on a non-transient error behind transient ones: a wrong key after a 503', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const client = createClient({
      baseUrl: 'http://sim',
      apiKey: 'wrong-key',
      fetch: sim.fetch,
      now: () => sim.clock.now(),
      sleep: async (ms) => sim.advance(ms),
    });
    await inject(sim, { operation: 'getOrderHistory', response: 'status', status: 503, times: 2 });
    const error = await failure(
      client.waitForOrder({ outOrderNo: 'any' }, { intervalMs: 500, timeoutMs: 30_000 }),
    );
    expect(error).toMatchObject({ kind: 'http', status: 401, code: 10002 });
    expect(received(sim, 'getOrderHistory')).toBe(3);
  });

  it('gives up at its deadline with kind timeout and the last fault as cause when the faults never end', async () => {
    const { sim, client } = await setup();
    await inject(sim, { operation: 'getOrderHistory', response: 'status', status: 503 });
    const error = await failure(
      client.waitForOrder({ outOrderNo: 'known' }, { intervalMs: 1000, timeoutMs: 5000 }),
    );
    expect(error).toMatchObject({ operation: 'waitForOrder', kind: 'timeout' });
    expect(error.message).toMatch(
      /within 5000 ms \(timeout\); no status seen; last error: getOrderHistory failed: HTTP 503/,
    );
    expect(error.cause).toBeInstanceOf(EnergyRentalError);
    expect(error.cause).toMatchObject({ status: 503, code: 50000 });
    expect(received(sim, 'getOrderHistory')).toBe(6);
  });
});

describe('the client over a real socket whose connection is dropped', () => {
  const servers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    while (servers.length > 0) await servers.pop()!();
  });

  it('raises kind network, and the server keeps serving the next calls', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const server = createAdaptorServer({ fetch: sim.app.fetch });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(
      () =>
        new Promise<void>(
          (resolve) => (
            server.close(() => resolve()),
            (server as unknown as { closeAllConnections(): void }).closeAllConnections()
          ),
        ),
    );
    const client = createClient({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      apiKey: 'demo-key',
    });
    await client.getAccount();
    await inject(sim, { operation: '*', response: 'drop', times: 2 });

    const dropped = await failure(client.getPrice({ rentalCount: 65000, period: '1h' }));
    expect(dropped).toMatchObject({ operation: 'getPrice', kind: 'network', status: undefined });
    expect(dropped.message).toMatch(/^getPrice failed: network error: fetch failed/);
    const droppedOrder = await failure(
      client.createOrder({ pledgeAddress: ADDRESS, rentalCount: 65000, period: '1h', outOrderNo: 'dropped' }),
    );
    expect(droppedOrder).toMatchObject({ operation: 'createOrder', kind: 'network' });
    expect(sim.journal.list({ operation: 'createOrder' })).toHaveLength(1);
    expect(sim.engine.storedOrders).toBe(0);

    const created = await client.createOrder({
      pledgeAddress: ADDRESS,
      rentalCount: 65000,
      period: '1h',
      outOrderNo: 'after-drop',
    });
    expect(created.outOrderNo).toBe('after-drop');
    expect((await client.getPrice({ rentalCount: 65000, period: '1h' })).trxPrice).toBe('4.23');
  });
});
