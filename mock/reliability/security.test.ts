/**
 * Secrets and who may do what: API keys never appear in a response (except the one
 * that creates the account), in the journal or in the state snapshot; the control plane
 * refuses callers off loopback unless they bring the token; keys are compared through
 * their digest, so a near miss is no key at all.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadSpec, type OperationInfo } from '../../src/spec/loader.ts';
import { createSimulator, DEFAULT_SCENARIO, type Simulator } from '../simulator.ts';
import { ADDRESS } from '../test-support/fixtures.ts';

const CHOSEN_KEY = 'chosen-key-7f3a9c';
const TOKEN = 's3cret-control-token';
const controlOperations = loadSpec('control').operations;
const apiOperations = loadSpec('api').operations;
const label = (op: Pick<OperationInfo, 'method' | 'path'>) => `${op.method} ${op.path}`;

interface Call {
  label: string;
  status: number;
  text: string;
  headers: string;
}

/** Sends one request and keeps everything a caller could read of the answer. */
async function exchange(sim: Simulator, target: string, path: string, init: RequestInit = {}): Promise<Call> {
  const res = await sim.app.request(path, init);
  const type = res.headers.get('content-type') ?? '';
  // A live event stream never ends; its headers are all there is to read at once.
  const text = type.startsWith('text/event-stream') ? (await res.body?.cancel(), '') : await res.text();
  return { label: target, status: res.status, text, headers: JSON.stringify([...res.headers]) };
}

const json = (method: string, body: unknown, apiKey?: string): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json', ...(apiKey ? { 'API-KEY': apiKey } : {}) },
  body: JSON.stringify(body),
});
const keyed = (apiKey: string, init: RequestInit = {}): RequestInit => ({
  ...init,
  headers: { ...(init.headers as Record<string, string>), 'API-KEY': apiKey },
});

/**
 * A session that calls every operation of both documents, with both keys where a key
 * counts, valid and invalid. Returns every exchange, and the key of the created account.
 */
async function sessionOfEveryEndpoint(
  sim: Simulator,
): Promise<{ exchanges: Call[]; createdKey: string; creations: Call[] }> {
  const exchanges: Call[] = [];
  const creations: Call[] = [];
  const call = async (target: string, path: string, init?: RequestInit) => {
    const x = await exchange(sim, target, path, init);
    exchanges.push(x);
    return x;
  };

  // The two responses that create an account, and so carry its key.
  const created = await exchange(
    sim,
    'POST /_sim/accounts',
    '/_sim/accounts',
    json('POST', { balance: { trx: '100', usdt: '10' } }),
  );
  const chosen = await exchange(
    sim,
    'POST /_sim/accounts',
    '/_sim/accounts',
    json('POST', { apiKey: CHOSEN_KEY, balance: { trx: '5' } }),
  );
  creations.push(created, chosen);
  const createdKey = (JSON.parse(created.text) as { apiKey: string }).apiKey;
  expect(createdKey).toMatch(/^sk_/);
  // Refused creations must not echo the key they were given.
  await call('POST /_sim/accounts', '/_sim/accounts', json('POST', { apiKey: CHOSEN_KEY }));
  await call('POST /_sim/accounts', '/_sim/accounts', json('POST', { apiKey: 'demo-key' }));
  await call(
    'POST /_sim/accounts',
    '/_sim/accounts',
    json('POST', { apiKey: CHOSEN_KEY, balance: { trx: 'lots' } }),
  );

  const keys = ['demo-key', createdKey, CHOSEN_KEY];
  const orderIds: string[] = [];
  for (const [i, key] of keys.entries()) {
    const form = `pledgeAddress=${ADDRESS}&rentalCount=65000&period=1h&outOrderNo=sec-${i}`;
    const order = await call(
      'POST /v1/tron/order',
      '/v1/tron/order',
      keyed(key, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form,
      }),
    );
    orderIds.push((JSON.parse(order.text) as { data: { id: string } }).data.id);
    await call('POST /v1/tron/order', '/api/v1/tron/order?rentalCount=1', keyed(key, { method: 'POST' }));
    await call('GET /v1/tron/price', '/v1/tron/price?rentalCount=65000&period=1h', keyed(key));
    await call('GET /v1/tron/history', `/v1/tron/history?orderId=${orderIds[i]}`, keyed(key));
    await call('GET /v1/tron/history', `/v1/tron/history?outOrderNo=sec-${i}`, keyed(key));
    await call('GET /v1/tron/history', `/v1/tron/history?orderId=${orderIds[0]}`, keyed(key));
    await call('GET /v1/account', '/v1/account', keyed(key));
    await call('GET /_sim/accounts/me', '/_sim/accounts/me', keyed(key));
    await call(
      'POST /_sim/accounts/me/deposit',
      '/_sim/accounts/me/deposit',
      json('POST', { trx: '1' }, key),
    );
    await call('GET /_sim/orders', '/_sim/orders?limit=1000', keyed(key));
    await call('GET /_sim/orders/{orderId}', `/_sim/orders/${orderIds[i]}`, keyed(key));
  }
  for (const wrong of ['demo-kez', `${createdKey.slice(0, -1)}x`, createdKey.slice(0, -1), '']) {
    await call('GET /v1/account', '/v1/account', wrong ? keyed(wrong) : {});
    await call('GET /_sim/accounts/me', '/_sim/accounts/me', wrong ? keyed(wrong) : {});
  }

  await call('GET /_sim/health', '/_sim/health');
  await call('GET /_sim/scenario', '/_sim/scenario');
  await call('GET /_sim/clock', '/_sim/clock');
  await call('POST /_sim/clock/advance', '/_sim/clock/advance', json('POST', { ms: 8000 }));
  await call('GET /_sim/config', '/_sim/config');
  await call(
    'PATCH /_sim/config',
    '/_sim/config',
    json('PATCH', { failureRate: 0.5, rateLimit: { requests: 100, windowMs: 1000 } }),
  );
  await call('GET /_sim/accounts', '/_sim/accounts');
  const rule = await call(
    'POST /_sim/rules',
    '/_sim/rules',
    json('POST', { match: { outOrderNo: 'sec-x' }, outcome: 'FAILED' }),
  );
  await call('GET /_sim/rules', '/_sim/rules');
  await call('DELETE /_sim/rules/{id}', `/_sim/rules/${(JSON.parse(rule.text) as { id: string }).id}`, {
    method: 'DELETE',
  });
  await call('DELETE /_sim/rules', '/_sim/rules', { method: 'DELETE' });
  const fault = await call(
    'POST /_sim/faults',
    '/_sim/faults',
    json('POST', { operation: 'getPrice', response: 'status', status: 503, times: 1 }),
  );
  await call('GET /_sim/faults', '/_sim/faults');
  await call('GET /v1/tron/price', '/v1/tron/price?rentalCount=65000&period=1h', keyed(createdKey));
  await call(
    'POST /_sim/faults',
    '/_sim/faults',
    json('POST', { operation: 'getAccount', response: 'truncated', times: 1 }),
  );
  await call('GET /v1/account', '/v1/account', keyed(createdKey));
  await call('DELETE /_sim/faults/{id}', `/_sim/faults/${(JSON.parse(fault.text) as { id: string }).id}`, {
    method: 'DELETE',
  });
  await call('DELETE /_sim/faults', '/_sim/faults', { method: 'DELETE' });
  await call('GET /_sim/supply', '/_sim/supply');
  await call('PUT /_sim/supply', '/_sim/supply', json('PUT', { energy: 1_000_000 }));
  await call('GET /_sim/addresses', '/_sim/addresses');
  await call('GET /_sim/addresses/{address}', `/_sim/addresses/${ADDRESS}`);
  await call('PUT /_sim/addresses/{address}', `/_sim/addresses/${ADDRESS}`, json('PUT', { activated: true }));
  await call('GET /_sim/journal', '/_sim/journal?limit=10000');
  await call('GET /_sim/journal', '/_sim/journal?operation=createAccount');
  // Operations of either document not called above (the dashboard, events, one the spec gains
  // later): called as documented, without parameters.
  const known = new Set(exchanges.map((x) => x.label));
  for (const op of [...apiOperations, ...controlOperations].filter(
    (o) => !known.has(label(o)) && !['DELETE /_sim/journal', 'POST /_sim/reset'].includes(label(o)),
  )) {
    await call(
      label(op),
      op.path.replace(/\{[^}]+\}/g, 'x'),
      keyed(createdKey, {
        method: op.method,
        ...(op.jsonBodySchema ? { body: '{}', headers: { 'content-type': 'application/json' } } : {}),
      }),
    );
  }
  return { exchanges, createdKey, creations };
}

function expectNoKey(where: string, text: string, keys: string[]): void {
  for (const key of keys) expect(text.includes(key), `${where} contains the key '${key}'`).toBe(false);
}

describe('API keys in responses, the journal and the state snapshot', () => {
  it('never appear in any response of a session that calls every endpoint, except the response that creates the account', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const { exchanges, createdKey, creations } = await sessionOfEveryEndpoint(sim);
    // The session did reach every operation of both documents (reset and journal clearing come next).
    expect(new Set(exchanges.map((x) => x.label))).toEqual(
      new Set(
        [...apiOperations, ...controlOperations]
          .map(label)
          .filter((l) => l !== 'POST /_sim/reset' && l !== 'DELETE /_sim/journal'),
      ),
    );
    expect(exchanges.length).toBeGreaterThan(60);
    for (const x of exchanges)
      expectNoKey(`${x.label} → ${x.status}: ${x.text.slice(0, 200)}`, x.text + x.headers, [
        'demo-key',
        createdKey,
        CHOSEN_KEY,
      ]);
    // The creation responses carry their own key, and only their own.
    expect(creations[0]!.text).toContain(createdKey);
    expect(creations[1]!.text).toContain(CHOSEN_KEY);
    expectNoKey('the created account', creations[0]!.text, ['demo-key', CHOSEN_KEY]);

    const after = [
      await exchange(sim, 'DELETE /_sim/journal', '/_sim/journal', { method: 'DELETE' }),
      await exchange(sim, 'POST /_sim/reset', '/_sim/reset', { method: 'POST' }),
      await exchange(sim, 'GET /_sim/accounts/me', '/_sim/accounts/me', keyed(createdKey)),
    ];
    for (const x of after) expectNoKey(x.label, x.text + x.headers, ['demo-key', createdKey, CHOSEN_KEY]);
    expect(after[2]!.status).toBe(401);
  });

  it('never appear in the journal, whether read over HTTP or from the simulator', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const { createdKey } = await sessionOfEveryEndpoint(sim);
    const keys = ['demo-key', createdKey, CHOSEN_KEY];
    const entries = sim.journal.list({ limit: 100_000 });
    // The control plane's reads (GET /_sim/*) are not journaled.
    expect(entries.length).toBeGreaterThan(40);
    expectNoKey('the journal', JSON.stringify(entries), keys);
    expectNoKey(
      'GET /_sim/journal',
      (await exchange(sim, 'journal', '/_sim/journal?limit=10000')).text,
      keys,
    );
    // The creations are journaled, redacted, request and response alike.
    const creations = sim.journal.list({ operation: 'createAccount', limit: 100 });
    expect(creations.filter((e) => e.status === 201)).toHaveLength(2);
    for (const entry of creations.filter((e) => e.status === 201))
      expect(entry.response).toMatchObject({ apiKey: '[redacted]' });
    expect(creations.find((e) => e.body?.includes('apiKey'))!.body).toContain('[redacted]');
  });

  it('never appear in the state snapshot, which holds each key as its SHA-256 digest', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const { createdKey } = await sessionOfEveryEndpoint(sim);
    const snapshot = sim.engine.snapshot();
    const text = JSON.stringify(snapshot);
    expectNoKey('the snapshot', text, ['demo-key', createdKey, CHOSEN_KEY]);
    const digest = (key: string) => createHash('sha256').update(key).digest('base64');
    expect(snapshot.accounts.map((a) => a.keyDigest)).toEqual([
      digest('demo-key'),
      digest(createdKey),
      digest(CHOSEN_KEY),
    ]);
    expect(snapshot.orders.length).toBeGreaterThanOrEqual(3);
  });

  it('are kept by the account only as a digest, in no field of its record', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const created = JSON.parse((await exchange(sim, 'create', '/_sim/accounts', json('POST', {}))).text) as {
      apiKey: string;
    };
    const account = sim.engine.authenticate(created.apiKey)!;
    expect(account.keyDigest).toBe(createHash('sha256').update(created.apiKey).digest('base64'));
    const strings = Object.values(account).filter((v): v is string => typeof v === 'string');
    expect(strings.some((v) => v.includes(created.apiKey))).toBe(false);
    expect(
      JSON.stringify(
        sim.engine
          .accounts()
          .map((a) => ({ ...a, orders: a.orders.length, byOutOrderNo: a.byOutOrderNo.size })),
      ),
    ).not.toContain(created.apiKey);
  });
});

describe('API keys compared through their digest', () => {
  /** Every call a key can make, answered 401 code 10002 for a key that names no account. */
  async function expectUnknownEverywhere(sim: Simulator, key: string): Promise<void> {
    const calls: [string, RequestInit][] = [
      [`/v1/tron/order?pledgeAddress=${ADDRESS}&rentalCount=65000&period=1h`, keyed(key, { method: 'POST' })],
      ['/v1/tron/price?rentalCount=65000&period=1h', keyed(key)],
      ['/v1/tron/history?outOrderNo=x', keyed(key)],
      ['/v1/account', keyed(key)],
      ['/_sim/accounts/me', keyed(key)],
      ['/_sim/accounts/me/deposit', json('POST', { trx: '1' }, key)],
      ['/_sim/orders', keyed(key)],
      ['/_sim/orders/OR20250312175009ZZZZZZZZ', keyed(key)],
    ];
    for (const [path, init] of calls) {
      const x = await exchange(sim, path, path, init);
      expect(x.status, `${path} with '${key}'`).toBe(401);
      expect(JSON.parse(x.text)).toMatchObject({ code: 10002, data: null });
    }
  }

  it('refuse a key that differs from a real one in its last character only', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const created = (
      JSON.parse((await exchange(sim, 'create', '/_sim/accounts', json('POST', {}))).text) as {
        apiKey: string;
      }
    ).apiKey;
    const flip = (key: string) => `${key.slice(0, -1)}${key.endsWith('a') ? 'b' : 'a'}`;
    await expectUnknownEverywhere(sim, flip('demo-key'));
    await expectUnknownEverywhere(sim, flip(created));
    expect((await exchange(sim, 'ok', '/v1/account', keyed(created))).status).toBe(200);
  });

  it('refuse a prefix of a real key, and a real key with more after it', async () => {
    const sim = createSimulator({ clock: 'manual' });
    for (const key of ['demo-ke', 'demo', 'd', 'demo-key-', 'demo-keydemo-key', 'DEMO-KEY'])
      await expectUnknownEverywhere(sim, key);
    expect((await exchange(sim, 'ok', '/v1/account', keyed('demo-key'))).status).toBe(200);
  });

  it('tell a missing key (10001) from an unknown one (10002) without saying which keys exist', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const missing = JSON.parse((await exchange(sim, 'none', '/v1/account')).text) as {
      code: number;
      msg: string;
    };
    const unknown = JSON.parse((await exchange(sim, 'unknown', '/v1/account', keyed('demo-kez'))).text) as {
      code: number;
      msg: string;
    };
    expect([missing.code, unknown.code]).toEqual([10001, 10002]);
    expect(unknown.msg).not.toContain('demo-ke');
  });
});

describe('the control plane off loopback', () => {
  /** Every control-plane operation, its path parameters filled in, with a valid body where it takes one. */
  function controlCalls(): [string, string, RequestInit][] {
    const bodies: Record<string, unknown> = {
      advanceClock: { ms: 1 },
      updateConfig: { failureRate: 0 },
      createAccount: {},
      deposit: { trx: '1' },
      addRule: { outcome: 'FAILED' },
      injectFault: { operation: '*', response: 'drop' },
      setSupply: { energy: null },
      setAddress: { activated: true },
    };
    return controlOperations
      .filter((op) => op.path !== '/_sim/health' && op.path !== '/_sim/ui')
      .map((op) => [
        label(op),
        op.path.replace('{address}', ADDRESS).replace(/\{[^}]+\}/g, 'x'),
        {
          method: op.method,
          headers: { 'API-KEY': 'demo-key', 'content-type': 'application/json' },
          ...(bodies[op.operationId] ? { body: JSON.stringify(bodies[op.operationId]) } : {}),
        },
      ]);
  }

  it('refuses every control call from a remote address without a token, with 401, code 10004 and a message that says what to do', async () => {
    const sim = createSimulator({ clock: 'manual', remoteAddress: () => '203.0.113.9' });
    const before = JSON.stringify(sim.engine.snapshot());
    const calls = controlCalls();
    expect(calls.length).toBeGreaterThanOrEqual(25);
    for (const [target, path, init] of calls) {
      const x = await exchange(sim, target, path, init);
      expect(x.status, target).toBe(401);
      const body = JSON.parse(x.text) as { code: number; msg: string };
      expect(body.code, target).toBe(10004);
      expect(body.msg).toMatch(
        /refuses callers off loopback without a token.*--token.*Authorization: Bearer/,
      );
    }
    // Nothing changed, and health and the API stay open.
    expect(JSON.stringify(sim.engine.snapshot())).toBe(before);
    expect((await exchange(sim, 'health', '/_sim/health')).status).toBe(200);
    expect((await exchange(sim, 'account', '/v1/account', keyed('demo-key'))).status).toBe(200);
  });

  it.each(['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1', undefined])(
    'lets a loopback caller (%s) in without a token',
    async (address) => {
      const sim = createSimulator({ clock: 'manual', remoteAddress: () => address });
      expect((await exchange(sim, 'rules', '/_sim/rules')).status).toBe(200);
    },
  );

  it.each(['10.0.0.1', '::ffff:10.0.0.1', '2001:db8::1', '128.0.0.1', 'localhost.example'])(
    'refuses %s without a token',
    async (address) => {
      const sim = createSimulator({ clock: 'manual', remoteAddress: () => address });
      expect(JSON.parse((await exchange(sim, 'rules', '/_sim/rules')).text)).toMatchObject({ code: 10004 });
    },
  );

  it('asks for the token when none is sent, refuses a wrong one, and accepts the right one', async () => {
    const sim = createSimulator({
      clock: 'manual',
      remoteAddress: () => '203.0.113.9',
      control: { token: TOKEN },
    });
    const withAuth = (value?: string): RequestInit =>
      value === undefined ? {} : { headers: { Authorization: value } };
    const missing = JSON.parse((await exchange(sim, 'none', '/_sim/rules', withAuth())).text) as {
      code: number;
      msg: string;
    };
    expect(missing).toMatchObject({
      code: 10004,
      msg: "The control plane needs its token: send 'Authorization: Bearer <token>'.",
    });
    for (const value of [`Basic ${TOKEN}`, TOKEN, 'Bearer', 'Bearer ']) {
      expect(
        JSON.parse((await exchange(sim, value, '/_sim/rules', withAuth(value))).text),
        value,
      ).toMatchObject({ code: 10004, msg: expect.stringMatching(/needs its token/) });
    }
    for (const value of [
      'Bearer wrong',
      `Bearer ${TOKEN.slice(0, -1)}`,
      `Bearer ${TOKEN}x`,
      `Bearer ${TOKEN.toUpperCase()}`,
    ]) {
      const x = await exchange(sim, value, '/_sim/rules', withAuth(value));
      expect(x.status, value).toBe(401);
      expect(JSON.parse(x.text)).toMatchObject({
        code: 10004,
        msg: expect.stringMatching(
          /^Wrong control-plane token: send the token the simulator was started with/,
        ),
      });
      expect(x.text).not.toContain(TOKEN);
    }
    for (const value of [`Bearer ${TOKEN}`, `bearer ${TOKEN}`, `BEARER  ${TOKEN}`])
      expect((await exchange(sim, value, '/_sim/rules', withAuth(value))).status, value).toBe(200);
  });

  it('asks loopback callers for the token too once one is set', async () => {
    const sim = createSimulator({ clock: 'manual', control: { token: TOKEN } });
    expect(JSON.parse((await exchange(sim, 'none', '/_sim/accounts')).text)).toMatchObject({ code: 10004 });
    expect(
      (await exchange(sim, 'right', '/_sim/accounts', { headers: { Authorization: `Bearer ${TOKEN}` } }))
        .status,
    ).toBe(200);
    // The token never shows in the journal either.
    expect(JSON.stringify(sim.journal.list({ limit: 1000 }))).not.toContain(TOKEN);
  });

  it('is not there at all when turned off, except health', async () => {
    const sim = createSimulator({ clock: 'manual', control: { enabled: false }, scenario: DEFAULT_SCENARIO });
    for (const [target, path, init] of controlCalls()) {
      const x = await exchange(sim, target, path, init);
      expect(x.status, target).toBe(404);
      expect(JSON.parse(x.text)).toMatchObject({
        code: 40400,
        msg: expect.stringMatching(/control plane is off/),
      });
    }
    expect(JSON.parse((await exchange(sim, 'health', '/_sim/health')).text)).toMatchObject({
      ok: true,
      capabilities: ['duplicates'],
    });
  });
});
