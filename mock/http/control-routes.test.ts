/**
 * The control plane under /_sim: every endpoint of spec/control.yaml, its answers
 * checked against that document.
 */
import { describe, expect, it } from 'vitest';
import { createValidators, loadSpec, type ValidateFunction } from '../../src/spec/loader.ts';
import { createSimulator, type Simulator } from '../simulator.ts';

const ADDRESS = 'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3';
const OTHER_ADDRESS = 'TAcN9gFvXZAxsWQQzWWbydBmscBHnEi5nZ';
const START_MS = 1_741_801_809_000;
const HOUR_MS = 3_600_000;

const control = createValidators(loadSpec('control'));
const api = createValidators(loadSpec('api'));

interface Reply {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

async function send(sim: Simulator, method: string, path: string, options: { body?: unknown; apiKey?: string } = {}): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (options.apiKey) headers['API-KEY'] = options.apiKey;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await sim.app.request(path, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined, text };
}

const get = (sim: Simulator, path: string, apiKey?: string) => send(sim, 'GET', path, apiKey ? { apiKey } : {});

async function order(sim: Simulator, pledgeAddress = ADDRESS, extra = '', apiKey = 'demo-key'): Promise<string> {
  const reply = await send(sim, 'POST', `/v1/tron/order?pledgeAddress=${pledgeAddress}&rentalCount=65000&period=1h${extra}`, { apiKey });
  expect(reply.status).toBe(200);
  return reply.body.data.id;
}

async function statusOf(sim: Simulator, orderId: string, apiKey = 'demo-key'): Promise<string> {
  return (await get(sim, `/v1/tron/history?orderId=${orderId}`, apiKey)).body.data.status;
}

async function trxOf(sim: Simulator, apiKey = 'demo-key'): Promise<{ available: string; frozen: string }> {
  const { balance } = (await get(sim, '/v1/account', apiKey)).body.data;
  return { available: balance.available.trx, frozen: balance.frozen.trx };
}

/** Checks a control-plane answer against control.yaml's response for the operation and status. */
function expectResponse(operationId: string, reply: Reply): void {
  const validate = control.response(operationId, reply.status);
  expect(validate, `control.yaml defines ${operationId} ${reply.status}`).toBeDefined();
  expect(validate!(reply.body), JSON.stringify(validate!.errors)).toBe(true);
}

/**
 * Checks the items of a list answer whose schema control.yaml writes inline, against the
 * component schema of its items: the loader cannot compile inline response schemas (see
 * the failing test 'validates the inline list schemas of control.yaml').
 */
function expectItems(reply: Reply, key: string, schema: string): void {
  expect(Object.keys(reply.body)).toEqual([key]);
  expect(Array.isArray(reply.body[key])).toBe(true);
  const validate: ValidateFunction = control.schema(schema);
  for (const item of reply.body[key]) expect(validate(item), JSON.stringify(validate.errors)).toBe(true);
}

function expectError(reply: Reply, status: number, code: number, msg?: RegExp): void {
  expect(reply.status).toBe(status);
  expect(reply.body).toMatchObject({ code, data: null });
  if (msg) expect(reply.body.msg).toMatch(msg);
  expect(control.schema('Error')(reply.body)).toBe(true);
}

describe('GET /_sim/health', () => {
  it('reports a manual clock and every capability, as control.yaml describes', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await get(sim, '/_sim/health');
    expect(reply.status).toBe(200);
    expectResponse('getHealth', reply);
    expect(reply.body).toEqual({
      ok: true,
      simulator: 'energy-rental-kit',
      version: expect.any(String),
      clock: 'manual',
      now: START_MS,
      timing: 'realistic',
      capabilities: expect.arrayContaining(['clock', 'rules', 'accounts', 'activation', 'duplicates']),
    });
  });

  it("leaves out 'clock' with a real clock", async () => {
    const sim = createSimulator({ clock: 'real' });
    const reply = await get(sim, '/_sim/health');
    expectResponse('getHealth', reply);
    expect(reply.body.clock).toBe('real');
    expect(reply.body.capabilities).not.toContain('clock');
    expect(reply.body.capabilities).toContain('rules');
  });

  it("leaves out 'duplicates' when duplicate outOrderNo are rejected", async () => {
    const sim = createSimulator({ clock: 'manual' });
    await send(sim, 'PATCH', '/_sim/config', { body: { duplicateOutOrderNo: 'reject' } });
    expect((await get(sim, '/_sim/health')).body.capabilities).not.toContain('duplicates');
  });

  it('follows the clock', async () => {
    const sim = createSimulator({ clock: 'manual' });
    sim.advance(1234);
    expect((await get(sim, '/_sim/health')).body.now).toBe(START_MS + 1234);
  });
});

describe('POST /_sim/reset', () => {
  it('returns every account, order, rule, setting and the manual clock to the starting scenario', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const walletBefore = (await get(sim, '/v1/account', 'demo-key')).body.data.walletAddress;
    const created = (await send(sim, 'POST', '/_sim/accounts', { body: { balance: { trx: '5' } } })).body;
    await order(sim);
    await send(sim, 'POST', '/_sim/rules', { body: { outcome: 'FAILED' } });
    await send(sim, 'PATCH', '/_sim/config', { body: { failureRate: 0.5 } });
    sim.advance(10_000);

    const reply = await send(sim, 'POST', '/_sim/reset');
    expect(reply.status).toBe(200);
    expectResponse('reset', reply);
    expect(reply.body).toEqual({ ok: true });

    expect((await get(sim, '/_sim/orders', 'demo-key')).body.orders).toEqual([]);
    expect(await trxOf(sim)).toEqual({ available: '1000', frozen: '0' });
    expect((await get(sim, '/v1/account', 'demo-key')).body.data.walletAddress).toBe(walletBefore);
    expect((await get(sim, '/v1/account', created.apiKey)).body.code).toBe(10002);
    expect((await get(sim, '/_sim/rules')).body.rules).toEqual([]);
    expect((await get(sim, '/_sim/config')).body.failureRate).toBe(0);
    expect((await get(sim, '/_sim/clock')).body.now).toBe(START_MS);
    expect((await get(sim, '/_sim/accounts')).body.accounts).toHaveLength(1);
  });

  it('cancels the lifecycle of orders open at the reset', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await order(sim);
    await send(sim, 'POST', '/_sim/reset');
    sim.advance(10_000);
    expect(await trxOf(sim)).toEqual({ available: '1000', frozen: '0' });
    expect(sim.engine.checkInvariants()).toEqual([]);
  });
});

describe('GET /_sim/scenario', () => {
  it('answers the embedded default scenario, with even the demo key redacted', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await get(sim, '/_sim/scenario');
    expect(reply.status).toBe(200);
    expectResponse('getScenario', reply);
    expect(reply.body).toEqual({ accounts: [{ apiKey: '[redacted]', balance: { trx: '1000', usdt: '100' } }] });
  });

  it('redacts the API keys of a scenario of its own', async () => {
    const sim = createSimulator({ clock: 'manual', scenario: { seed: 5, accounts: [{ apiKey: 'secret-key-1', balance: { trx: '7' } }], supply: 1000000 } });
    const reply = await get(sim, '/_sim/scenario');
    expectResponse('getScenario', reply);
    expect(reply.body).toEqual({ seed: 5, accounts: [{ apiKey: '[redacted]', balance: { trx: '7' } }], supply: 1000000 });
    expect(reply.text).not.toContain('secret-key-1');
  });
});

describe('GET /_sim/clock and POST /_sim/clock/advance', () => {
  it('reads the manual clock at its starting time', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await get(sim, '/_sim/clock');
    expectResponse('getClock', reply);
    expect(reply.body).toEqual({ mode: 'manual', now: START_MS, iso: '2025-03-12T17:50:09.000Z' });
  });

  it('moves the manual clock forward and answers the clock after the move', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await send(sim, 'POST', '/_sim/clock/advance', { body: { ms: 6000 } });
    expect(reply.status).toBe(200);
    expectResponse('advanceClock', reply);
    expect(reply.body).toEqual({ mode: 'manual', now: START_MS + 6000, iso: '2025-03-12T17:50:15.000Z' });
    expect(sim.clock.now()).toBe(START_MS + 6000);
  });

  it('runs the lifecycle steps that fall due on the way', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const id = await order(sim);
    await send(sim, 'POST', '/_sim/clock/advance', { body: { ms: 7000 } });
    expect(await statusOf(sim, id)).toBe('COMPLETED');
  });

  it('refuses to advance a real clock with 409', async () => {
    const sim = createSimulator({ clock: 'real' });
    const reply = await send(sim, 'POST', '/_sim/clock/advance', { body: { ms: 1000 } });
    expectError(reply, 409, 30003, /--clock manual/);
    expectResponse('advanceClock', reply);
  });

  it.each([
    [{}, 20001, /'ms'/],
    [{ ms: -1 }, 20002, /'ms'.*at least 0/],
    [{ ms: 1.5 }, 20002, /'ms'.*integer/],
    [{ ms: 1, by: 2 }, 20002, /'by'/],
  ])('refuses the body %j with 400, naming the field', async (body, code, msg) => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await send(sim, 'POST', '/_sim/clock/advance', { body });
    expectError(reply, 400, code, msg);
    expectResponse('advanceClock', reply);
    expect(sim.clock.now()).toBe(START_MS);
  });
});

describe('POST /_sim/accounts', () => {
  it('creates an account with a fresh key that works on /v1/account, answering 201', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await send(sim, 'POST', '/_sim/accounts', { body: { balance: { trx: '100', usdt: '5' } } });
    expect(reply.status).toBe(201);
    expectResponse('createAccount', reply);
    const { apiKey, name, walletAddress } = reply.body;
    expect(apiKey).toMatch(/^sk_[A-Za-z0-9_-]{32}$/);
    expect(name).toBe(`User-${walletAddress.slice(0, 6)}`);
    const account = await get(sim, '/v1/account', apiKey);
    expect(account.status).toBe(200);
    expect(account.body.data).toMatchObject({ name, walletAddress, balance: { available: { trx: '100', usdt: '5.000000' }, frozen: { trx: '0' } } });
    expect(api.response('getAccount', 200)!(account.body)).toBe(true);
  });

  it('creates an empty account when sent no body', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await send(sim, 'POST', '/_sim/accounts');
    expect(reply.status).toBe(201);
    expect((await get(sim, '/v1/account', reply.body.apiKey)).body.data.balance.available).toEqual({ trx: '0', usdt: '0.000000' });
  });

  it('uses an apiKey of the caller’s choosing', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await send(sim, 'POST', '/_sim/accounts', { body: { apiKey: 'my-own-key.1', balance: { trx: '9' } } });
    expect(reply.status).toBe(201);
    expect(reply.body.apiKey).toBe('my-own-key.1');
    expect((await get(sim, '/v1/account', 'my-own-key.1')).body.data.balance.available.trx).toBe('9');
  });

  it('refuses an apiKey that is taken with 409', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await send(sim, 'POST', '/_sim/accounts', { body: { apiKey: 'my-own-key.1' } });
    const again = await send(sim, 'POST', '/_sim/accounts', { body: { apiKey: 'my-own-key.1' } });
    expectError(again, 409, 30003, /apiKey/);
    expectResponse('createAccount', again);
    expectError(await send(sim, 'POST', '/_sim/accounts', { body: { apiKey: 'demo-key' } }), 409, 30003);
    expect((await get(sim, '/_sim/accounts')).body.accounts).toHaveLength(2);
  });

  it.each([
    [{ apiKey: 'short' }, /'apiKey'.*at least 8/],
    [{ apiKey: 'has a space' }, /'apiKey'/],
    [{ balance: { trx: '-1' } }, /'balance.trx'/],
    [{ balance: { trx: '1.1234567' } }, /decimals/],
    [{ name: 'x' }, /'name'/],
  ])('refuses %j with 400, naming the field', async (body, msg) => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await send(sim, 'POST', '/_sim/accounts', { body });
    expectError(reply, 400, 20002, msg);
    expectResponse('createAccount', reply);
    expect((await get(sim, '/_sim/accounts')).body.accounts).toHaveLength(1);
  });
});

describe('GET /_sim/accounts', () => {
  it('lists every account with its ledger and never an API key', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const created = (await send(sim, 'POST', '/_sim/accounts', { body: { apiKey: 'custom-key-42', balance: { usdt: '3' } } })).body;
    const generated = (await send(sim, 'POST', '/_sim/accounts', { body: {} })).body;
    await order(sim);
    const reply = await get(sim, '/_sim/accounts');
    expect(reply.status).toBe(200);
    expectItems(reply, 'accounts', 'AccountView');
    expect(reply.body.accounts.map((a: { walletAddress: string }) => a.walletAddress)).toEqual([
      (await get(sim, '/v1/account', 'demo-key')).body.data.walletAddress,
      created.walletAddress,
      generated.walletAddress,
    ]);
    expect(reply.body.accounts[0]).toMatchObject({ orders: 1, ledger: { trx: { deposited: '1000', available: '995.77', frozen: '4.23', spent: '0' } } });
    for (const secret of ['demo-key', 'custom-key-42', generated.apiKey, 'apiKey']) expect(reply.text).not.toContain(secret);
  });
});

describe('GET /_sim/accounts/me', () => {
  it("reads the ledger of the key's account", async () => {
    const sim = createSimulator({ clock: 'manual' });
    await order(sim);
    sim.advance(7000);
    await order(sim);
    const reply = await get(sim, '/_sim/accounts/me', 'demo-key');
    expect(reply.status).toBe(200);
    expectResponse('getOwnAccount', reply);
    expect(reply.body).toMatchObject({
      orders: 2,
      referralCount: 0,
      ledger: {
        trx: { deposited: '1000', available: '991.54', frozen: '4.23', spent: '4.23' },
        usdt: { deposited: '100', available: '100', frozen: '0', spent: '0' },
      },
    });
  });

  it('needs an API key', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await get(sim, '/_sim/accounts/me');
    expectError(reply, 401, 10001);
    expectResponse('getOwnAccount', reply);
  });
});

describe('POST /_sim/accounts/me/deposit', () => {
  it('adds TRX and USDT to the account of the key', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await send(sim, 'POST', '/_sim/accounts/me/deposit', { apiKey: 'demo-key', body: { trx: '50', usdt: '0.5' } });
    expect(reply.status).toBe(200);
    expectResponse('deposit', reply);
    expect(reply.body.ledger.trx).toMatchObject({ deposited: '1050', available: '1050' });
    expect(reply.body.ledger.usdt).toMatchObject({ deposited: '100.5', available: '100.5' });
    expect((await get(sim, '/v1/account', 'demo-key')).body.data.balance.available).toEqual({ trx: '1050', usdt: '100.500000' });
  });

  it('lets a poor account pay an order after a deposit', async () => {
    const sim = createSimulator({ clock: 'manual', scenario: { accounts: [{ apiKey: 'poor-key-1', balance: { trx: '1' } }] } });
    const refused = await send(sim, 'POST', `/v1/tron/order?pledgeAddress=${ADDRESS}&rentalCount=65000&period=1h`, { apiKey: 'poor-key-1' });
    expect(refused.status).toBe(402);
    await send(sim, 'POST', '/_sim/accounts/me/deposit', { apiKey: 'poor-key-1', body: { trx: '3.23' } });
    await order(sim, ADDRESS, '', 'poor-key-1');
    expect(await trxOf(sim, 'poor-key-1')).toEqual({ available: '0', frozen: '4.23' });
  });

  it.each([
    [{}, /trx.*usdt/],
    [{ trx: '0' }, /trx/],
    [{ trx: '1.1234567' }, /'trx'.*6 decimals/],
    [{ trx: 'ten' }, /'trx'/],
    [{ trx: 5 }, /'trx'.*string/],
    [{ eur: '5' }, /'eur'/],
  ])('refuses %j with 400 and changes nothing', async (body, msg) => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await send(sim, 'POST', '/_sim/accounts/me/deposit', { apiKey: 'demo-key', body });
    expectError(reply, 400, 20002, msg);
    expectResponse('deposit', reply);
    expect(await trxOf(sim)).toEqual({ available: '1000', frozen: '0' });
  });

  it('refuses a deposit that would pass the largest balance and books neither currency', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await send(sim, 'POST', '/_sim/accounts/me/deposit', { apiKey: 'demo-key', body: { usdt: '1', trx: '9007199254' } });
    expectError(reply, 400, 20002, /TRX/);
    expect((await get(sim, '/v1/account', 'demo-key')).body.data.balance.available).toEqual({ trx: '1000', usdt: '100.000000' });
  });

  it('needs an API key', async () => {
    const sim = createSimulator({ clock: 'manual' });
    expectError(await send(sim, 'POST', '/_sim/accounts/me/deposit', { body: { trx: '1' } }), 401, 10001);
  });
});

describe('GET /_sim/orders', () => {
  it("lists the key's orders newest first, with their views", async () => {
    const sim = createSimulator({ clock: 'manual' });
    const first = await order(sim, ADDRESS, '&outOrderNo=a');
    sim.advance(1000);
    const second = await order(sim, OTHER_ADDRESS);
    const reply = await get(sim, '/_sim/orders', 'demo-key');
    expect(reply.status).toBe(200);
    expectItems(reply, 'orders', 'OrderView');
    expect(reply.body.orders.map((o: { orderId: string }) => o.orderId)).toEqual([second, first]);
    expect(reply.body.orders[1]).toMatchObject({ orderId: first, outOrderNo: 'a', pledgeAddress: ADDRESS, rentalCount: 65000, amount: '4.23', currency: 'TRX', txId: '' });
  });

  it('filters by status and limits the count', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const done = await order(sim);
    sim.advance(7000);
    const open1 = await order(sim);
    const open2 = await order(sim);
    const ids = async (query: string) => (await get(sim, `/_sim/orders${query}`, 'demo-key')).body.orders.map((o: { orderId: string }) => o.orderId);
    expect(await ids('?status=COMPLETED')).toEqual([done]);
    expect(await ids('?status=PENDING')).toEqual([open2, open1]);
    expect(await ids('?status=REFUNDED')).toEqual([]);
    expect(await ids('?limit=1')).toEqual([open2]);
    expect(await ids('?status=PENDING&limit=1')).toEqual([open2]);
  });

  it.each(['?status=DONE', '?limit=0', '?limit=1001', '?limit=x'])('refuses %s with 400', async (query) => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await get(sim, `/_sim/orders${query}`, 'demo-key');
    expectError(reply, 400, 20002);
    expectResponse('listOrders', reply);
  });

  it('shows an account none of the orders of another', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const other = (await send(sim, 'POST', '/_sim/accounts', { body: {} })).body.apiKey;
    await order(sim);
    expect((await get(sim, '/_sim/orders', other)).body.orders).toEqual([]);
  });

  it('needs an API key', async () => {
    const sim = createSimulator({ clock: 'manual' });
    expectError(await get(sim, '/_sim/orders'), 401, 10001);
  });
});

describe('GET /_sim/orders/{orderId}', () => {
  it('shows the timeline PENDING, PROCESSING, COMPLETED with the time of each step', async () => {
    const sim = createSimulator({ clock: 'manual', scenario: { accounts: [{ apiKey: 'demo-key', balance: { trx: '100' } }], activatedAddresses: [ADDRESS] } });
    const id = await order(sim);
    const open = await get(sim, `/_sim/orders/${id}`, 'demo-key');
    expectResponse('getOrderTimeline', open);
    expect(open.body).toMatchObject({ orderId: id, status: 'PENDING', activatedAddress: false, timeline: [{ status: 'PENDING', at: START_MS }] });
    expect(open.body.next).toEqual({ status: 'PROCESSING', at: expect.any(Number) });
    expect(open.body.next.at).toBeGreaterThan(START_MS);

    sim.advance(7000);
    const done = await get(sim, `/_sim/orders/${id}`, 'demo-key');
    expect(done.status).toBe(200);
    expectResponse('getOrderTimeline', done);
    const { timeline } = done.body;
    expect(timeline.map((s: { status: string }) => s.status)).toEqual(['PENDING', 'PROCESSING', 'COMPLETED']);
    expect(timeline[1].at).toBe(open.body.next.at);
    expect(timeline[0].at).toBeLessThan(timeline[1].at);
    expect(timeline[1].at).toBeLessThan(timeline[2].at);
    expect(timeline[2].at - START_MS).toBeGreaterThanOrEqual(3000);
    expect(timeline[2].at - START_MS).toBeLessThanOrEqual(6000);
    expect(done.body.next).toBeUndefined();
    expect(done.body.txId).toMatch(/^[0-9a-f]{64}$/);
  });

  it('marks the order that activated its address, with a note on PROCESSING', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const id = await order(sim);
    sim.advance(7000);
    const reply = await get(sim, `/_sim/orders/${id}`, 'demo-key');
    expect(reply.body.activatedAddress).toBe(true);
    expect(reply.body.timeline[1]).toMatchObject({ status: 'PROCESSING', note: expect.stringMatching(/activated/) });
  });

  it("answers 404 with code 40401 for an unknown id and for another account's order", async () => {
    const sim = createSimulator({ clock: 'manual' });
    const other = (await send(sim, 'POST', '/_sim/accounts', { body: {} })).body.apiKey;
    const id = await order(sim);
    const foreign = await get(sim, `/_sim/orders/${id}`, other);
    expectError(foreign, 404, 40401);
    expectResponse('getOrderTimeline', foreign);
    expectError(await get(sim, '/_sim/orders/OR20250312175009AAAAAAAA', 'demo-key'), 404, 40401);
  });
});

describe('/_sim/rules', () => {
  it('adds a rule with 201 and lists it, unused', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const added = await send(sim, 'POST', '/_sim/rules', { body: { match: { pledgeAddress: ADDRESS }, outcome: 'FAILED', delayMs: 2000, times: 1 } });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({ id: expect.any(String) });
    const list = await get(sim, '/_sim/rules');
    expect(list.status).toBe(200);
    expectItems(list, 'rules', 'Rule');
    expect(list.body.rules).toEqual([{ id: added.body.id, match: { pledgeAddress: ADDRESS }, outcome: 'FAILED', delayMs: 2000, times: 1, used: 0 }]);
  });

  it('fails a matching order, then refunds it, and leaves other addresses alone', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await send(sim, 'POST', '/_sim/rules', { body: { match: { pledgeAddress: ADDRESS }, outcome: 'FAILED', delayMs: 2000 } });
    const failing = await order(sim, ADDRESS);
    const fine = await order(sim, OTHER_ADDRESS);
    expect(await trxOf(sim)).toEqual({ available: '991.54', frozen: '8.46' });
    sim.advance(2000);
    const failed = await get(sim, `/_sim/orders/${failing}`, 'demo-key');
    expect(failed.body.status).toBe('FAILED');
    expect(failed.body.next.status).toBe('REFUNDED');
    expect(await trxOf(sim)).toEqual({ available: '991.54', frozen: '8.46' });
    sim.advance(5000);
    expect(await statusOf(sim, fine)).toBe('COMPLETED');
    expect(await statusOf(sim, failing)).toBe('REFUNDED');
    expect(await trxOf(sim)).toEqual({ available: '995.77', frozen: '0' });
    const timeline = (await get(sim, `/_sim/orders/${failing}`, 'demo-key')).body.timeline.map((s: { status: string }) => s.status);
    expect(timeline).toEqual(['PENDING', 'PROCESSING', 'FAILED', 'REFUNDED']);
  });

  it('decides exactly `times` orders, then is used up and gone', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await send(sim, 'POST', '/_sim/rules', { body: { outcome: 'FAILED', times: 2 } });
    const ids = [await order(sim), await order(sim)];
    expect((await get(sim, '/_sim/rules')).body.rules).toEqual([]);
    ids.push(await order(sim));
    sim.advance(10_000);
    expect([await statusOf(sim, ids[0]!), await statusOf(sim, ids[1]!), await statusOf(sim, ids[2]!)]).toEqual(['REFUNDED', 'REFUNDED', 'COMPLETED']);
  });

  it('counts its uses while it has some left', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await send(sim, 'POST', '/_sim/rules', { body: { outcome: 'COMPLETED', times: 3 } });
    await order(sim);
    expect((await get(sim, '/_sim/rules')).body.rules[0]).toMatchObject({ used: 1, times: 3 });
  });

  it('sets the delay from creation to the outcome with delayMs', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await send(sim, 'POST', '/_sim/rules', { body: { outcome: 'COMPLETED', delayMs: 20_000 } });
    const id = await order(sim);
    sim.advance(19_999);
    expect(await statusOf(sim, id)).not.toBe('COMPLETED');
    sim.advance(1);
    expect(await statusOf(sim, id)).toBe('COMPLETED');
  });

  it('matches by outOrderNo', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await send(sim, 'POST', '/_sim/rules', { body: { match: { outOrderNo: 'doomed' }, outcome: 'FAILED' } });
    const doomed = await order(sim, ADDRESS, '&outOrderNo=doomed');
    const other = await order(sim, ADDRESS, '&outOrderNo=lucky');
    sim.advance(7000);
    expect(await statusOf(sim, doomed)).toBe('FAILED');
    expect(await statusOf(sim, other)).toBe('COMPLETED');
  });

  it('deletes one rule, and answers 404 for a rule that is not there', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const first = (await send(sim, 'POST', '/_sim/rules', { body: { outcome: 'FAILED' } })).body.id;
    const second = (await send(sim, 'POST', '/_sim/rules', { body: { outcome: 'COMPLETED' } })).body.id;
    const deleted = await send(sim, 'DELETE', `/_sim/rules/${first}`);
    expect(deleted.status).toBe(200);
    expectResponse('deleteRule', deleted);
    expect((await get(sim, '/_sim/rules')).body.rules.map((r: { id: string }) => r.id)).toEqual([second]);
    const again = await send(sim, 'DELETE', `/_sim/rules/${first}`);
    expectError(again, 404, 40400, new RegExp(first));
    expectResponse('deleteRule', again);
  });

  it('deletes every rule at once', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await send(sim, 'POST', '/_sim/rules', { body: { outcome: 'FAILED' } });
    await send(sim, 'POST', '/_sim/rules', { body: { outcome: 'FAILED' } });
    const cleared = await send(sim, 'DELETE', '/_sim/rules');
    expectResponse('clearRules', cleared);
    expect(cleared.body).toEqual({ ok: true });
    expect((await get(sim, '/_sim/rules')).body.rules).toEqual([]);
    const id = await order(sim);
    sim.advance(7000);
    expect(await statusOf(sim, id)).toBe('COMPLETED');
  });

  it.each([
    [{}, 20001, /'outcome'/],
    [{ outcome: 'MAYBE' }, 20002, /'outcome'.*COMPLETED, FAILED/],
    [{ outcome: 'FAILED', times: 0 }, 20002, /'times'/],
    [{ outcome: 'FAILED', match: { status: 'x' } }, 20002, /'match.status'/],
  ])('refuses the rule %j with 400, naming the field', async (body, code, msg) => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await send(sim, 'POST', '/_sim/rules', { body });
    expectError(reply, 400, code, msg);
    expectResponse('addRule', reply);
    expect((await get(sim, '/_sim/rules')).body.rules).toEqual([]);
  });
});

describe('/_sim/supply', () => {
  it('is unlimited by default', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await get(sim, '/_sim/supply');
    expectResponse('getSupply', reply);
    expect(reply.body).toEqual({ energy: null, delegated: 0 });
  });

  it('fails and refunds an order beyond the supply, and takes energy back when a rental ends', async () => {
    const sim = createSimulator({ clock: 'manual', scenario: { accounts: [{ apiKey: 'demo-key', balance: { trx: '100' } }], supply: 100_000 } });
    const fits = await order(sim);
    sim.advance(7000);
    expect(await statusOf(sim, fits)).toBe('COMPLETED');
    expect((await get(sim, '/_sim/supply')).body).toEqual({ energy: 100_000, delegated: 65_000 });

    const beyond = await order(sim);
    sim.advance(10_000);
    const refunded = await get(sim, `/_sim/orders/${beyond}`, 'demo-key');
    expect(refunded.body.status).toBe('REFUNDED');
    expect(refunded.body.timeline.map((s: { status: string }) => s.status)).toEqual(['PENDING', 'PROCESSING', 'FAILED', 'REFUNDED']);
    expect(refunded.body.timeline[2].note).toMatch(/insufficient supply/);
    expect(await trxOf(sim)).toEqual({ available: '95.77', frozen: '0' });

    sim.advance(HOUR_MS);
    const after = await get(sim, '/_sim/supply');
    expectResponse('getSupply', after);
    expect(after.body).toEqual({ energy: 100_000, delegated: 0 });
  });

  // BUG: PUT /_sim/supply always answers 500 (code 50000, "schema is invalid: data/$id must
  // match pattern"). Its request body schema is written inline in control.yaml, and
  // createValidators().jsonBody (src/spec/loader.ts:207) compiles an inline schema with
  // `$id: <base>#inline-N`, an $id with a fragment that JSON Schema 2020-12 forbids.
  it('sets the supply, and an order beyond it fails and is refunded', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await send(sim, 'PUT', '/_sim/supply', { body: { energy: 64_000 } });
    expect(reply.status).toBe(200);
    expectResponse('setSupply', reply);
    expect(reply.body).toEqual({ energy: 64_000, delegated: 0 });
    const id = await order(sim);
    sim.advance(10_000);
    expect(await statusOf(sim, id)).toBe('REFUNDED');
    expect(await trxOf(sim)).toEqual({ available: '1000', frozen: '0' });
  });
});

describe('/_sim/addresses', () => {
  it('reads an address it never saw as not activated', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await get(sim, `/_sim/addresses/${ADDRESS}`);
    expect(reply.status).toBe(200);
    expectResponse('getAddress', reply);
    expect(reply.body).toEqual({ address: ADDRESS, activated: false });
  });

  it('records the first order to a new address as its activator, and no later one', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const first = await order(sim);
    const second = await order(sim);
    sim.advance(8000);
    const reply = await get(sim, `/_sim/addresses/${ADDRESS}`);
    expectResponse('getAddress', reply);
    const processingAt = (await get(sim, `/_sim/orders/${first}`, 'demo-key')).body.timeline[1].at;
    expect(reply.body).toEqual({ address: ADDRESS, activated: true, activatedAt: processingAt, activatedByOrderId: first });
    expect((await get(sim, `/_sim/orders/${second}`, 'demo-key')).body.activatedAddress).toBe(false);
    const list = await get(sim, '/_sim/addresses');
    expectItems(list, 'addresses', 'AddressState');
    expect(list.body.addresses).toEqual([reply.body]);
  });

  it('lists the activated addresses of the scenario', async () => {
    const sim = createSimulator({ clock: 'manual', scenario: { activatedAddresses: [ADDRESS, OTHER_ADDRESS] } });
    const list = await get(sim, '/_sim/addresses');
    expect(list.status).toBe(200);
    expectItems(list, 'addresses', 'AddressState');
    expect(list.body.addresses).toEqual([
      { address: ADDRESS, activated: true, activatedAt: START_MS },
      { address: OTHER_ADDRESS, activated: true, activatedAt: START_MS },
    ]);
  });

  it.each(['abc', 'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP4'])('refuses the address %s with 400 on GET and PUT', async (address) => {
    const sim = createSimulator({ clock: 'manual' });
    const read = await get(sim, `/_sim/addresses/${address}`);
    expectError(read, 400, 20002, /'address'.*TRON address/);
    expectResponse('getAddress', read);
    const write = await send(sim, 'PUT', `/_sim/addresses/${address}`, { body: { activated: true } });
    expectError(write, 400, 20002, /'address'/);
    expectResponse('setAddress', write);
  });

  // BUG: PUT /_sim/addresses/{address} with a valid address always answers 500 (code 50000),
  // for the reason given at PUT /_sim/supply: its inline body schema cannot be compiled
  // (src/spec/loader.ts:207). This also blocks the documented way of pre-activating an
  // address before an order.
  it('marks an address activated, so an order to it completes within 6 seconds without activation', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await send(sim, 'PUT', `/_sim/addresses/${ADDRESS}`, { body: { activated: true } });
    expect(reply.status).toBe(200);
    expectResponse('setAddress', reply);
    expect(reply.body).toEqual({ address: ADDRESS, activated: true, activatedAt: START_MS });
    const id = await order(sim);
    sim.advance(2000);
    expect(['PENDING', 'PROCESSING']).toContain(await statusOf(sim, id));
    sim.advance(4000);
    expect(await statusOf(sim, id)).toBe('COMPLETED');
    expect((await get(sim, `/_sim/orders/${id}`, 'demo-key')).body.activatedAddress).toBe(false);
  });
});

describe('the list schemas of control.yaml', () => {
  // BUG: createValidators(loadSpec('control')).response() throws "schema is invalid:
  // data/$id must match pattern" for every response schema written inline (listAccounts,
  // listOrders, listRules, addRule, listAddresses, getJournal): src/spec/loader.ts:207
  // gives inline schemas an $id with a non-empty fragment.
  it('validates the inline list schemas of control.yaml', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await order(sim);
    expectResponse('listAccounts', await get(sim, '/_sim/accounts'));
    expectResponse('listOrders', await get(sim, '/_sim/orders', 'demo-key'));
    expectResponse('listRules', await get(sim, '/_sim/rules'));
    expectResponse('addRule', await send(sim, 'POST', '/_sim/rules', { body: { outcome: 'FAILED' } }));
    expectResponse('listAddresses', await get(sim, '/_sim/addresses'));
    expectResponse('getJournal', await get(sim, '/_sim/journal'));
  });
});
