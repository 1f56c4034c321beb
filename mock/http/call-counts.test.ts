import { afterEach, describe, expect, it } from 'vitest';
import { createSimulator } from '../simulator.ts';
import { createCallCounts, MAX_CALL_ROWS, MAX_TRACKED_ORDERS } from './call-counts.ts';
import type { ExchangeFinished } from './exchange.ts';
import { startSimulator, type TestSimulator } from '../testing/start-simulator.ts';
import { expectCalls } from '../testing/expect-calls.ts';
import { COVERAGE_IDS } from '../../src/behaviour/coverage-ids.ts';
import { API_OPERATION_IDS } from '../../src/generated/lists.ts';
import { loadSpec } from '../../src/spec/loader.ts';
import { OTHER_ADDRESS } from '../test-support/fixtures.ts';

const ORDER_ID = 'OR20250101000000ABCDEFGH';

let sims: TestSimulator[] = [];
afterEach(async () => {
  await Promise.all(sims.map((s) => s.stop()));
  sims = [];
});

async function start(): Promise<TestSimulator> {
  const sim = await startSimulator({ listen: false });
  sims.push(sim);
  return sim;
}

/** Calls the API in process; a dropped connection is an answer of its own here. */
async function call(
  sim: TestSimulator,
  path: string,
  init: RequestInit & { key?: string | null } = {},
): Promise<number> {
  const { key = 'demo-key', ...rest } = init;
  const headers: Record<string, string> = { ...(key === null ? {} : { 'API-KEY': key }) };
  if (rest.body) headers['content-type'] = 'application/x-www-form-urlencoded';
  try {
    const response = await sim.fetch(`http://simulator${path}`, { ...rest, headers });
    await response.text();
    return response.status;
  } catch {
    return 0;
  }
}

async function control(sim: TestSimulator, method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await sim.fetch(`http://simulator/_sim${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const payload: unknown = await response.json();
  expect(response.status, JSON.stringify(payload)).toBeLessThan(300);
  return payload;
}

const PRICE = '/v1/tron/price?rentalCount=65000&period=1h';
const order = (key: string, extra = ''): Promise<number> =>
  call(sim0!, '/v1/tron/order', {
    method: 'POST',
    key,
    body: `pledgeAddress=${OTHER_ADDRESS}&rentalCount=65000&period=1h${extra}`,
  });
let sim0: TestSimulator | undefined;

async function orderId(sim: TestSimulator, key: string): Promise<string> {
  const journal = await sim.journal({ operation: 'createOrder', limit: 1 });
  const response = journal.at(-1)?.response as { data?: { id?: string } } | undefined;
  expect(response?.data?.id, key).toBeTypeOf('string');
  return response!.data!.id!;
}

describe('behaviour coverage', () => {
  it('counts every id the spec lists when a test drives each, as often as it was driven', async () => {
    const sim = await start();
    sim0 = sim;
    await control(sim, 'PATCH', '/config', {
      duplicateOutOrderNo: 'reject',
      delaysMs: { processing: 1000, outcome: 2000, refund: 3000 },
    });
    const usdt = (await sim.createAccount({ usdt: '100' })).apiKey;
    const poor = (await sim.createAccount({ trx: '0' })).apiKey;

    // Order A: paid in TRX, activates the address, PENDING → PROCESSING → COMPLETED.
    await sim.addRule({ outcome: 'COMPLETED', times: 1 });
    expect(await order('demo-key', '&outOrderNo=a-1')).toBe(200);
    const a = await orderId(sim, 'A');
    // Order B: paid in USDT, PENDING → PROCESSING → FAILED → REFUNDED.
    await sim.addRule({ outcome: 'FAILED', times: 1 });
    expect(await order(usdt)).toBe(200);
    const b = await orderId(sim, 'B');
    const poll = async (): Promise<void> => {
      expect(await call(sim, `/v1/tron/history?orderId=${a}`)).toBe(200);
      expect(await call(sim, `/v1/tron/history?orderId=${b}`, { key: usdt })).toBe(200);
    };
    await sim.advance(1000); // both PROCESSING
    await poll();
    await sim.advance(1000); // A COMPLETED, B FAILED
    await poll();
    await sim.advance(10_000); // B REFUNDED (A stays COMPLETED: no transition)
    await poll();
    // A's energy read on the TRON node, then again once its period is over.
    const energy = (): Promise<number> =>
      call(sim, `/wallet/getaccountresource?address=${OTHER_ADDRESS}&visible=true`, { key: null });
    expect(await energy()).toBe(200);
    await sim.advance(3_600_000);
    expect(await energy()).toBe(200);

    expect(await call(sim, PRICE)).toBe(200);
    // Rejections, one each.
    expect(await call(sim, PRICE, { key: null })).toBe(401);
    expect(await call(sim, PRICE, { key: 'no-such-key' })).toBe(401);
    expect(await call(sim, '/v1/tron/price?rentalCount=65000')).toBe(400);
    expect(await call(sim, '/v1/tron/price?rentalCount=65000&period=2h')).toBe(400);
    expect(
      await call(sim, '/v1/tron/order', {
        method: 'POST',
        body: `pledgeAddress=${OTHER_ADDRESS}&rentalCount=1000&period=1h`,
      }),
    ).toBe(400);
    await control(sim, 'PATCH', '/config', { maxRentalCount: 100_000 });
    expect(await call(sim, '/v1/tron/price?rentalCount=100001&period=1h')).toBe(400);
    await control(sim, 'PATCH', '/config', { maxRentalCount: null });
    expect(await call(sim, `/v1/tron/history?orderId=${ORDER_ID}`)).toBe(404);
    expect(await order(poor)).toBe(402);
    expect(await order('demo-key', '&outOrderNo=a-1')).toBe(409);
    expect(await call(sim, PRICE, { method: 'DELETE' })).toBe(405);
    expect(await call(sim, '/v1/tron/nowhere')).toBe(404);
    // Faults, one each, on the price.
    for (const fault of [
      { response: 'status', status: 429 },
      { response: 'status', status: 500 },
      { response: 'status', status: 502 },
      { response: 'status', status: 503 },
      { response: 'malformed' },
      { response: 'truncated' },
      { response: 'drop' },
      { response: 'reset' },
      { response: 'garbage' },
      { response: 'drip', dripMs: 10 },
      { latencyMs: 1 },
    ] as const) {
      await sim.injectFault({ operation: 'getPrice', times: 1, ...fault });
      // A reset or random bytes reject an in-process fetch, as they would over a socket.
      await call(sim, PRICE).catch(() => 0);
    }
    // Every operation this test does not drive by hand (one the spec gains later) once, with
    // its parameters' examples.
    const api = loadSpec('api');
    const byHand = ['createOrder', 'getOrderHistory', 'getPrice', 'getAccount'];
    for (const id of API_OPERATION_IDS) {
      if (byHand.includes(id)) continue;
      const op = api.operation(id);
      const query = new URLSearchParams();
      for (const p of op.parameters)
        if (p.in === 'query' && p.example !== undefined) query.set(p.name, String(p.example));
      const target = query.size > 0 ? `${op.path}?${query.toString()}` : op.path;
      expect(await call(sim, target, { method: op.method }), `${op.method} ${target}`).toBe(200);
    }
    // The rate limit: the first account read passes, the second is limited.
    await control(sim, 'PATCH', '/config', { rateLimit: { requests: 1, windowMs: 60_000 } });
    expect(await call(sim, '/v1/account')).toBe(200);
    expect(await call(sim, '/v1/account')).toBe(429);

    const coverage = await sim.coverage();
    const once = Object.fromEntries(COVERAGE_IDS.map((id) => [id, 1]));
    expect(coverage.exercised).toEqual({
      ...once,
      // Two orders were needed for both endings; each was created, seen PENDING and PROCESSING.
      'op:createOrder': 2,
      'status:PENDING': 2,
      'status:PROCESSING': 2,
      'transition:PENDING>PROCESSING': 2,
      // Six polls of history; the price answered plainly and under latency alone.
      'op:getOrderHistory': 6,
      'op:getPrice': 2,
    });
    expect(coverage.never).toEqual([]);
    expect(coverage.unclassified).toBe(0);
    expect(coverage.parameters).toEqual({
      createOrder: ['outOrderNo', 'period', 'pledgeAddress', 'rentalCount'],
      getOrderHistory: ['orderId'],
      getPrice: ['period', 'rentalCount'],
    });
  });

  it('lists every id under never when a test exercises none', async () => {
    const sim = await start();
    await control(sim, 'PATCH', '/config', {
      duplicateOutOrderNo: 'reject',
      rateLimit: { requests: 100, windowMs: 1000 },
    });
    const coverage = await sim.coverage();
    expect(coverage.exercised).toEqual({});
    expect(coverage.never).toEqual(COVERAGE_IDS);
    expect(coverage.impossible).toEqual([]);
  });

  it('leaves out of never what the settings in force make impossible, saying why', async () => {
    const sim = await start();
    const coverage = await sim.coverage();
    expect(coverage.never).not.toContain('rejection:duplicateOutOrderNo');
    expect(coverage.never).not.toContain('ratelimit');
    expect(coverage.impossible?.map((i) => i.id)).toEqual(['rejection:duplicateOutOrderNo', 'ratelimit']);
    expect(coverage.never).toHaveLength(COVERAGE_IDS.length - 2);
  });

  it('reports the pair a slow poller saw when it skipped steps', async () => {
    const sim = await start();
    sim0 = sim;
    await control(sim, 'PATCH', '/config', { delaysMs: { processing: 1000, outcome: 2000, refund: 3000 } });
    await sim.addRule({ outcome: 'FAILED', times: 1 });
    await order('demo-key');
    const id = await orderId(sim, 'slow');
    await sim.advance(10_000);
    await call(sim, `/v1/tron/history?orderId=${id}`);
    const { exercised, never } = await sim.coverage();
    expect(exercised['transition:PENDING>REFUNDED']).toBe(1);
    expect(exercised['status:REFUNDED']).toBe(1);
    expect(never).toContain('transition:PENDING>PROCESSING');
    expect(never).not.toContain('transition:PENDING>REFUNDED');
  });

  it('does not take the answer to a repeated outOrderNo for a new look at the order', async () => {
    const sim = await start();
    sim0 = sim;
    await order('demo-key', '&outOrderNo=same');
    const id = await orderId(sim, 'first');
    await sim.advance(60_000);
    await call(sim, `/v1/tron/history?orderId=${id}`);
    await order('demo-key', '&outOrderNo=same');
    const { exercised } = await sim.coverage();
    expect(Object.keys(exercised).filter((k) => k.startsWith('transition:'))).toEqual([
      'transition:PENDING>COMPLETED',
    ]);
    expect(exercised['status:PENDING']).toBe(1);
    expect(exercised['currency:TRX']).toBe(1);
  });

  it('keeps its counts across a simulator reset, and forgets them only by its own reset', async () => {
    const sim = await start();
    await call(sim, PRICE);
    await sim.reset();
    expect((await sim.coverage()).exercised['op:getPrice']).toBe(1);
    await sim.clearCalls();
    expect((await sim.coverage()).exercised['op:getPrice']).toBe(1);
    await sim.clearCoverage();
    expect((await sim.coverage()).exercised).toEqual({});
  });
});

describe('call verification', () => {
  it('counts right past the journal’s thousand entries and across a simulator reset', async () => {
    const sim = await start();
    for (let i = 0; i < 1100; i++) await call(sim, PRICE);
    await call(sim, '/v1/tron/price?rentalCount=65000&period=1d');
    expect(await sim.journal({ limit: 10_000 })).toHaveLength(1000);
    expect(await sim.calls({ operation: 'getPrice' })).toBe(1101);
    await sim.reset();
    await call(sim, PRICE);
    expect(await sim.calls({ operation: 'getPrice', params: { period: '1h' } })).toBe(1101);
    expect(await sim.calls({ method: 'GET', path: '/v1/tron/price', status: 200 })).toBe(1102);
    expect(await sim.calls({ operation: 'getPrice', status: 400 })).toBe(0);
    await sim.clearCalls();
    expect(await sim.calls()).toBe(0);
  });

  it('counts per account by wallet address, never by key', async () => {
    const sim = await start();
    const other = await sim.createAccount({ trx: '5' });
    await call(sim, '/v1/account', { key: other.apiKey });
    await call(sim, '/v1/account');
    await call(sim, '/v1/account');
    expect(await sim.calls({ account: other.walletAddress })).toBe(1);
    const rows = JSON.stringify(await sim.callList());
    expect(rows).not.toContain(other.apiKey);
    expect(rows).not.toContain('demo-key');
  });

  it('answers a count over HTTP, with parameters as params[name]', async () => {
    const sim = await start();
    await call(sim, PRICE);
    const ask = async (query: string): Promise<unknown> =>
      (await sim.fetch(`http://simulator/_sim/calls/count?${query}`)).json();
    expect(await ask('operation=getPrice&params[period]=1h')).toEqual({ count: 1 });
    expect(await ask('operation=getPrice&params[period]=1d')).toEqual({ count: 0 });
    const typo = await sim.fetch('http://simulator/_sim/calls/count?operaton=getPrice');
    expect(typo.status).toBe(400);
    expect(((await typo.json()) as { msg: string }).msg).toContain("Unknown query parameter 'operaton'");
    const bad = await sim.fetch('http://simulator/_sim/calls/count?status=abc');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { msg: string }).msg).toContain('status');
  });

  it('lists the requests no operation took', async () => {
    const sim = await start();
    await call(sim, '/v1/tron/prices');
    await call(sim, '/v1/tron/prices');
    await call(sim, PRICE);
    expect(await sim.unmatched()).toEqual([
      { method: 'GET', path: '/v1/tron/prices', status: 404, count: 2 },
    ]);
  });

  it('fails a verification with the near misses, each saying how it differs', async () => {
    const sim = await start();
    await call(sim, '/v1/tron/price?rentalCount=65000&period=1d');
    await call(sim, '/v1/account');
    await expect(expectCalls(sim, { operation: 'getPrice', params: { period: '1h' } }, 1)).rejects.toThrow(
      /Expected 1 call matching operation=getPrice params\.period=1h, got 0\.\nNear misses \(one criterion off\):\n {2}1× getPrice GET \/v1\/tron\/price → 200 .*period=1d {2}\(params\.period is '1d', not '1h'\)/,
    );
    expect(await expectCalls(sim, { operation: 'getPrice' }, 1)).toBe(1);
  });
});

describe('coverage in front of a service', () => {
  it('counts what a proxy can classify, and says what it cannot', async () => {
    // The upstream is a simulator of its own; its rejections reach the proxy as answers.
    const upstream = createSimulator({ clock: 'manual', timing: 'instant', seed: 5 });
    const proxy = createSimulator({
      clock: 'manual',
      proxy: {
        upstream: 'http://upstream.test',
        fetch: (input, init) => upstream.fetch(new Request(input as RequestInfo, init)),
        onViolation: () => {},
      },
    });
    const get = async (path: string, key = 'demo-key'): Promise<number> =>
      (await proxy.fetch(`http://sim${path}`, { headers: { 'API-KEY': key } })).status;
    expect(await get(PRICE)).toBe(200);
    expect(await get(PRICE, 'no-such-key')).toBe(401);
    const coverage = proxy.calls.coverage();
    expect(coverage.mode).toBe('proxy');
    expect(coverage.exercised).toEqual({ 'op:getPrice': 1 });
    expect(coverage.unclassified).toBe(1);
    expect(coverage.unobservable).toEqual(['activation', 'chain:delivered', 'chain:expired']);
    expect(coverage.never).not.toContain('activation');
    expect(proxy.calls.count({ operation: 'getPrice' })).toEqual({ count: 2 });
  });
});

/** A made-up order id, one for each `i`. */
const madeUpId = (i: number): string => `OR2025010100000${String(i).padStart(9, '0')}`;

/** The creation of order `i` on OTHER_ADDRESS, answered as the simulator answers it. */
const creation = (i: number): ExchangeFinished => ({
  at: 0,
  method: 'POST',
  path: '/v1/tron/order',
  status: 200,
  durationMs: 0,
  operation: 'createOrder',
  account: OTHER_ADDRESS,
  response: { code: 0, msg: 'ok', time: '1', data: { id: madeUpId(i), amount: 4.23, currency: 'TRX' } },
});

/** A history answer showing order `i` in `status` to `account`. */
const historyLook = (i: number, status: string, account = OTHER_ADDRESS): ExchangeFinished => ({
  at: 0,
  method: 'GET',
  path: '/v1/tron/history',
  status: 200,
  durationMs: 0,
  operation: 'getOrderHistory',
  account,
  queryText: `orderId=${madeUpId(i)}`,
  response: { code: 0, msg: 'ok', time: '1', data: { orderId: madeUpId(i), status, currency: 'TRX' } },
});

describe('the bounds of the calls kept apart', () => {
  it('counts every call past the cap, and says a parameter filter can no longer be exact', () => {
    const counts = createCallCounts({
      mode: 'simulator',
      settings: () => ({ duplicateOutOrderNo: 'reject', rateLimit: null, accountSuccessCode: 0 }),
    });
    const price = (query: string, path = '/v1/tron/price'): ExchangeFinished => ({
      at: 0,
      method: 'GET',
      path,
      status: 200,
      durationMs: 0,
      operation: 'getPrice',
      queryText: query,
      response: { code: 0, msg: 'ok', data: {} },
    });
    for (let i = 0; i < MAX_CALL_ROWS; i++) counts.observe(price(`rentalCount=${i + 1}&period=1h`));
    counts.observe(price('rentalCount=65000&period=1d'));
    counts.observe(price('', '/v1/tron/elsewhere'));
    expect(counts.count({ operation: 'getPrice' })).toEqual({ count: MAX_CALL_ROWS + 2 });
    expect(counts.count({ params: { period: '1d' } })).toEqual({ count: 0, exact: false });
    expect(counts.count({ params: { rentalCount: '7' } })).toEqual({ count: 1, exact: false });
    expect(counts.count({ path: '(other paths)' })).toEqual({ count: 1 });
    expect(counts.coverage().exercised['op:getPrice']).toBe(MAX_CALL_ROWS + 2);
  });

  it('counts calls that alternate between rows, and repeats of one, each on its own row', () => {
    const counts = createCallCounts({
      mode: 'simulator',
      settings: () => ({ duplicateOutOrderNo: 'reject', rateLimit: null, accountSuccessCode: 0 }),
    });
    const price = (query: string, status = 200, account?: string): ExchangeFinished => ({
      at: 0,
      method: 'GET',
      path: '/v1/tron/price',
      status,
      durationMs: 0,
      operation: 'getPrice',
      queryText: query,
      ...(account ? { account } : {}),
      response: { code: 0, msg: 'ok', data: {} },
    });
    const a = 'rentalCount=65000&period=1h';
    const b = 'rentalCount=65000&period=1d';
    for (const x of [
      price(a),
      price(a),
      price(b),
      price(a),
      price(b, 429),
      price(b, 429),
      price(a, 200, OTHER_ADDRESS),
    ])
      counts.observe(x);
    expect(counts.count({ params: { period: '1h' } })).toEqual({ count: 4 });
    expect(counts.count({ params: { period: '1h' }, account: OTHER_ADDRESS })).toEqual({ count: 1 });
    expect(counts.count({ params: { period: '1d' }, status: 200 })).toEqual({ count: 1 });
    expect(counts.count({ params: { period: '1d' }, status: 429 })).toEqual({ count: 2 });
    expect(counts.list().calls.map((row) => row.count)).toEqual([3, 2, 1, 1]);
  });

  it('remembers an order for MAX_TRACKED_ORDERS / 2 looks at others, and forgets it past MAX_TRACKED_ORDERS', () => {
    const counts = createCallCounts({
      mode: 'simulator',
      settings: () => ({ duplicateOutOrderNo: 'reject', rateLimit: null, accountSuccessCode: 0 }),
    });
    const created = creation;
    const completed = (i: number): ExchangeFinished => historyLook(i, 'COMPLETED');
    for (let i = 0; i <= MAX_TRACKED_ORDERS; i++) counts.observe(created(i));
    const steps = () => counts.coverage().exercised['transition:PENDING>COMPLETED'];
    // The newest is remembered: seeing it completed is a step from PENDING.
    counts.observe(completed(MAX_TRACKED_ORDERS));
    expect(steps()).toBe(1);
    // MAX_TRACKED_ORDERS looks at others ago: forgotten, so seeing it completed is a first look.
    counts.observe(completed(0));
    expect(steps()).toBe(1);
    // MAX_TRACKED_ORDERS / 2 looks ago: still remembered.
    counts.observe(completed(MAX_TRACKED_ORDERS / 2));
    expect(steps()).toBe(2);
  });

  it('reads a polled answer once, yet takes the same answer as a new look under another account or once the order is forgotten', () => {
    const counts = createCallCounts({
      mode: 'simulator',
      settings: () => ({ duplicateOutOrderNo: 'reject', rateLimit: null, accountSuccessCode: 0 }),
    });
    const look = historyLook;
    const exercised = () => counts.coverage().exercised;
    // A poll: the same answer again and again is one look at a PENDING order.
    for (let i = 0; i < 5; i++) counts.observe(look(0, 'PENDING'));
    expect(exercised()['status:PENDING']).toBe(1);
    expect(exercised()['op:getOrderHistory']).toBe(5);
    // The very same text under another account is that account's first look at it.
    counts.observe(look(0, 'PENDING', 'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3'));
    expect(exercised()['status:PENDING']).toBe(2);
    // Back on the first account, the step to COMPLETED, then a poll of that.
    counts.observe(look(0, 'COMPLETED'));
    counts.observe(look(0, 'COMPLETED'));
    expect(exercised()['transition:PENDING>COMPLETED']).toBe(1);
    expect(exercised()['status:COMPLETED']).toBe(1);
    // MAX_TRACKED_ORDERS orders created since forget it: the same answer again is a first look.
    for (let i = 1; i <= MAX_TRACKED_ORDERS; i++) counts.observe(creation(i));
    counts.observe(look(0, 'COMPLETED'));
    expect(exercised()['status:COMPLETED']).toBe(2);
    expect(exercised()['transition:PENDING>COMPLETED']).toBe(1);
    // Coverage cleared: the same answer once more is the first look of a fresh count.
    counts.clearCoverage();
    counts.observe(look(0, 'COMPLETED'));
    expect(exercised()['status:COMPLETED']).toBe(1);
  });
});
