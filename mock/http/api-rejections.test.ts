/**
 * The API's rejections over HTTP: keys, parameters, balance and duplicates, and the lifecycle with realistic
 * timing.
 */
import { request } from 'node:http';
import bs58check from 'bs58check';
import { describe, expect, it } from 'vitest';
import { createValidators, loadSpec } from '../../src/spec/loader.ts';
import { createSimulator } from '../simulator.ts';
import { call, expectValid, get, send } from '../test-support/http-test-support.ts';
import { listen } from '../test-support/socket-test-support.ts';
import {
  ADDRESS,
  ORDER_QUERY,
  createAccount,
  expectError,
  ordersOf,
  postOrder,
} from '../test-support/fixtures.ts';

const ORDER_ID = /^OR\d{14}[A-Z0-9]{8}$/;
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

const api = createValidators(loadSpec('api'));

/** A Base58Check string of 21 bytes whose first byte is `version`. */
function base58check(version: number): string {
  const payload = new Uint8Array(21);
  payload[0] = version;
  payload.fill(7, 1);
  return bs58check.encode(payload);
}

describe('API keys', () => {
  const operations = [
    ['GET', '/v1/tron/price?rentalCount=65000&period=1h'],
    ['POST', `/v1/tron/order?${ORDER_QUERY}`],
    ['GET', '/v1/tron/history?outOrderNo=x'],
    ['GET', '/v1/account'],
  ] as const;

  it.each(operations)(
    '%s %s without an API-KEY header is rejected with 401 and code 10001',
    async (method, path) => {
      const sim = createSimulator({ clock: 'manual' });
      const reply = await send(sim, path, { method });
      expectError(reply, 401, 10001, /API-KEY/);
      expect(await ordersOf(sim)).toEqual([]);
    },
  );

  it.each(operations)(
    '%s %s with an unknown key is rejected with 401 and code 10002',
    async (method, path) => {
      const sim = createSimulator({ clock: 'manual' });
      const reply = await send(sim, path, { method, headers: { 'API-KEY': 'no-such-key' } });
      expectError(reply, 401, 10002, /Unknown API key/);
      expect(await ordersOf(sim)).toEqual([]);
    },
  );

  it('refuses two API-KEY headers with 400 naming API-KEY in every mode, in process and over a socket, reaching nothing behind', async () => {
    let reached = 0;
    const behind = async (): Promise<Response> => (reached++, Response.json({ code: 0 }));
    const sims = [
      createSimulator({ clock: 'manual' }),
      createSimulator({ clock: 'manual', proxy: { upstream: 'http://127.0.0.1:9', fetch: behind } }),
      createSimulator({ clock: 'manual', replay: { fetch: behind, source: 'r.jsonl' } }),
    ];
    for (const sim of sims) {
      const headers = new Headers();
      headers.append('API-KEY', 'demo-key');
      headers.append('API-KEY', 'other-key-123');
      expectError(await send(sim, '/v1/account', { headers }), 400, 20002, /More than one API-KEY/);
      const served = await listen(sim);
      try {
        const reply = await new Promise<number>((resolve, reject) => {
          const req = request(
            {
              port: served.port,
              host: '127.0.0.1',
              path: '/v1/account',
              headers: { 'API-KEY': ['demo-key', 'demo-key'] },
            },
            (res) => (res.resume(), resolve(res.statusCode!)),
          );
          req.on('error', reject).end();
        });
        expect(reply, sim.mode).toBe(400);
      } finally {
        await served.close();
      }
    }
    expect(reached).toBe(0);
  });

  it('treats an empty API-KEY header as missing', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await send(sim, '/v1/account', { headers: { 'API-KEY': '' } });
    expectError(reply, 401, 10001, /API-KEY/);
  });

  it("hides another account's order by orderId exactly like an id that does not exist", async () => {
    const sim = createSimulator({ clock: 'manual' });
    const other = await createAccount(sim, { balance: { trx: '100' } });
    const { id } = (await postOrder(sim, ORDER_QUERY)).body.data;
    const unknownId = 'OR20250312175009AAAAAAAA';
    const foreign = await get(sim, `/v1/tron/history?orderId=${id}`, other.apiKey);
    const unknown = await get(sim, `/v1/tron/history?orderId=${unknownId}`, other.apiKey);
    expectError(foreign, 404, 40401, /Order not found/);
    expect(foreign.body.msg.replace(id, '<id>')).toBe(unknown.body.msg.replace(unknownId, '<id>'));
    expect(Object.keys(foreign.body)).toEqual(Object.keys(unknown.body));
  });

  it("hides another account's order by outOrderNo exactly like one never sent", async () => {
    const sim = createSimulator({ clock: 'manual' });
    const other = await createAccount(sim, { balance: { trx: '100' } });
    await postOrder(sim, `${ORDER_QUERY}&outOrderNo=mine`);
    const foreign = await get(sim, '/v1/tron/history?outOrderNo=mine', other.apiKey);
    const unknown = await get(sim, '/v1/tron/history?outOrderNo=none', other.apiKey);
    expectError(foreign, 404, 40401, /Order not found/);
    expect(foreign.body.msg.replace("'mine'", '<x>')).toBe(unknown.body.msg.replace("'none'", '<x>'));
  });

  it('lets two accounts use the same outOrderNo for orders of their own', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const other = await createAccount(sim, { balance: { trx: '100' } });
    const mine = (await postOrder(sim, `${ORDER_QUERY}&outOrderNo=same`)).body.data.id;
    const theirs = (await postOrder(sim, `${ORDER_QUERY}&outOrderNo=same`, other.apiKey)).body.data.id;
    expect(theirs).not.toBe(mine);
    expect((await get(sim, '/v1/tron/history?outOrderNo=same')).body.data.orderId).toBe(mine);
    expect((await get(sim, '/v1/tron/history?outOrderNo=same', other.apiKey)).body.data.orderId).toBe(theirs);
    expect((await ordersOf(sim, other.apiKey)).map((o) => o.orderId)).toEqual([theirs]);
  });

  it('places an order on the account of the key that sent it', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const other = await createAccount(sim, { balance: { trx: '100' } });
    await postOrder(sim, ORDER_QUERY, other.apiKey);
    expect((await get(sim, '/v1/account', other.apiKey)).body.data.balance.frozen.trx).toBe('4.23');
    expect((await get(sim, '/v1/account')).body.data.balance.frozen.trx).toBe('0');
  });
});

describe('createOrder parameter validation', () => {
  const cases: [string, string, number, RegExp][] = [
    ['a missing rentalCount', `pledgeAddress=${ADDRESS}&period=1h`, 20001, /'rentalCount'/],
    ['a missing period', `pledgeAddress=${ADDRESS}&rentalCount=65000`, 20001, /'period'/],
    ['a missing pledgeAddress', 'rentalCount=65000&period=1h', 20001, /'pledgeAddress'/],
    [
      'rentalCount abc',
      `pledgeAddress=${ADDRESS}&rentalCount=abc&period=1h`,
      20002,
      /'rentalCount' must be an integer \(got 'abc'\)/,
    ],
    [
      'rentalCount 100, below the minimum',
      `pledgeAddress=${ADDRESS}&rentalCount=100&period=1h`,
      20002,
      /'rentalCount' must be at least 64000/,
    ],
    [
      'rentalCount 63999',
      `pledgeAddress=${ADDRESS}&rentalCount=63999&period=1h`,
      20002,
      /'rentalCount' must be at least 64000/,
    ],
    [
      'rentalCount 1.5',
      `pledgeAddress=${ADDRESS}&rentalCount=1.5&period=1h`,
      20002,
      /'rentalCount' must be an integer/,
    ],
    [
      'rentalCount above 10^9',
      `pledgeAddress=${ADDRESS}&rentalCount=1000000001&period=1h`,
      20002,
      /'rentalCount' must be at most 1000000000/,
    ],
    [
      'period 2h',
      `pledgeAddress=${ADDRESS}&rentalCount=65000&period=2h`,
      20002,
      /'period' must be one of 10min, 1h, 1d, 3d, 7d, 14d, 30d \(got '2h'\)/,
    ],
    [
      'an address with a bad checksum',
      'pledgeAddress=TT3D8Br4YEkJtvS1DNSj77ymip51BemoP4&rentalCount=65000&period=1h',
      20002,
      /'pledgeAddress' must be a TRON address.*checksum/,
    ],
    [
      'a valid Base58Check address with version byte 0x42',
      `pledgeAddress=${base58check(0x42)}&rentalCount=65000&period=1h`,
      20002,
      /'pledgeAddress' must be a TRON address.*0x41 prefix/,
    ],
    ['a too short address', 'pledgeAddress=TT3D8Br4&rentalCount=65000&period=1h', 20002, /'pledgeAddress'/],
    [
      'an outOrderNo of 65 characters',
      `${ORDER_QUERY}&outOrderNo=${'x'.repeat(65)}`,
      20002,
      /'outOrderNo' must have at most 64 characters/,
    ],
  ];

  it('builds the wrong-prefix address as a T address that passes the pattern, so only the prefix rule can catch it', () => {
    const address = base58check(0x42);
    expect(address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    expect(bs58check.decode(address)[0]).toBe(0x42);
  });

  it.each(cases)(
    'rejects %s with 400, its code, the parameter and the rule, and creates nothing',
    async (_name, query, code, msg) => {
      const sim = createSimulator({ clock: 'manual' });
      const reply = await postOrder(sim, query);
      expectError(reply, 400, code, msg);
      expect(await ordersOf(sim)).toEqual([]);
      expect((await get(sim, '/v1/account')).body.data.balance.available.trx).toBe('1000');
    },
  );

  it('names every missing parameter at once', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await postOrder(sim, '');
    expectError(reply, 400, 20001, /'pledgeAddress'.*'rentalCount'.*'period'/);
  });

  it('validates a form body exactly like the query string', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await postOrder(sim, '', 'demo-key', {
      headers: FORM,
      body: `pledgeAddress=${ADDRESS}&rentalCount=100&period=1h`,
    });
    expectError(reply, 400, 20002, /'rentalCount' must be at least 64000 \(got '100'\)/);
  });
});

describe('parameters given twice', () => {
  it('rejects a parameter in the query string and the form body with different values with code 20003', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await postOrder(sim, ORDER_QUERY, 'demo-key', { headers: FORM, body: 'rentalCount=70000' });
    expectError(reply, 400, 20003, /'rentalCount'.*'65000'.*'70000'/);
    expect(await ordersOf(sim)).toEqual([]);
  });

  it('accepts a parameter in the query string and the form body with the same value', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await postOrder(sim, ORDER_QUERY, 'demo-key', {
      headers: FORM,
      body: 'rentalCount=65000&period=1h',
    });
    expect(reply.status).toBe(200);
    expect(reply.body.data.amount).toBe(4.23);
  });

  it('rejects a parameter repeated in the query string with different values with code 20003', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await get(sim, '/v1/tron/price?rentalCount=65000&period=1h&period=1d');
    expectError(reply, 400, 20003, /'period'/);
  });
});

describe('insufficient balance', () => {
  it('rejects an order the account cannot pay with 402 and code 30001, creating nothing and charging nothing', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const poor = await createAccount(sim, { balance: { trx: '1.5' } });
    const before = await get(sim, '/v1/account', poor.apiKey);
    const reply = await postOrder(sim, ORDER_QUERY, poor.apiKey);
    expectError(reply, 402, 30001, /Insufficient balance.*4\.23 TRX.*0\.80 USDT.*1\.5 TRX/);
    expect(await ordersOf(sim, poor.apiKey)).toEqual([]);
    const after = await get(sim, '/v1/account', poor.apiKey);
    expect(after.body).toEqual(before.body);
    expect(after.body.data.balance).toEqual({
      available: { trx: '1.5', usdt: '0.000000' },
      frozen: { trx: '0' },
    });
  });

  it('pays in USDT at the default rate when the TRX balance is short', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const account = await createAccount(sim, { balance: { trx: '1', usdt: '10' } });
    const reply = await postOrder(sim, ORDER_QUERY, account.apiKey);
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({ id: expect.stringMatching(ORDER_ID), amount: 0.8, currency: 'USDT' });
    expectValid(api.response('createOrder', 200), reply.body);
    const history = await get(sim, `/v1/tron/history?orderId=${reply.body.data.id}`, account.apiKey);
    expect(history.body.data).toMatchObject({ amount: '0.80', currency: 'USDT' });
    const balance = (await get(sim, '/v1/account', account.apiKey)).body.data.balance;
    expect(balance).toEqual({ available: { trx: '1', usdt: '9.200000' }, frozen: { trx: '0' } });
  });
});

describe('duplicate outOrderNo', () => {
  it('returns the first order again and charges nothing more', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const first = await postOrder(sim, `${ORDER_QUERY}&outOrderNo=dup-1`);
    const second = await postOrder(sim, `${ORDER_QUERY}&outOrderNo=dup-1`);
    expect(second.status).toBe(200);
    expect(second.body.data).toEqual(first.body.data);
    expect(await ordersOf(sim)).toHaveLength(1);
    expect((await get(sim, '/v1/account')).body.data.balance).toEqual({
      available: { trx: '995.77', usdt: '100.000000' },
      frozen: { trx: '4.23' },
    });
  });

  it("is rejected with 409 and code 30002 under duplicateOutOrderNo 'reject', naming the first order", async () => {
    const sim = createSimulator({ clock: 'manual' });
    const patch = await call(sim, 'PATCH', '/_sim/config', { body: { duplicateOutOrderNo: 'reject' } });
    expect(patch.status).toBe(200);
    const first = (await postOrder(sim, `${ORDER_QUERY}&outOrderNo=dup-1`)).body.data.id;
    const second = await postOrder(sim, `${ORDER_QUERY}&outOrderNo=dup-1`);
    expectError(second, 409, 30002, new RegExp(`'dup-1'.*${first}`));
    expect(await ordersOf(sim)).toHaveLength(1);
    expect((await get(sim, '/v1/account')).body.data.balance.frozen.trx).toBe('4.23');
  });
});

describe('order lifecycle over HTTP with realistic timing', () => {
  it('is at most PROCESSING two seconds after creation and COMPLETED after seven', async () => {
    const sim = createSimulator({
      clock: 'manual',
      timing: 'realistic',
      scenario: {
        accounts: [{ apiKey: 'demo-key', balance: { trx: '1000' } }],
        activatedAddresses: [ADDRESS],
      },
    });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await postOrder(sim, ORDER_QUERY)).body.data.id);
    sim.advance(2000);
    for (const id of ids) {
      const { data } = (await get(sim, `/v1/tron/history?orderId=${id}`)).body;
      expect(['PENDING', 'PROCESSING']).toContain(data.status);
      expect(data.txId).toBe('');
    }
    sim.advance(5000);
    for (const id of ids) {
      const reply = await get(sim, `/v1/tron/history?orderId=${id}`);
      expect(reply.body.data.status).toBe('COMPLETED');
      expect(reply.body.data.txId).toMatch(/^[0-9a-f]{64}$/);
      expectValid(api.response('getOrderHistory', 200), reply.body);
    }
  });

  it('is never COMPLETED before three seconds', async () => {
    const sim = createSimulator({
      clock: 'manual',
      timing: 'realistic',
      scenario: {
        accounts: [{ apiKey: 'demo-key', balance: { trx: '1000' } }],
        activatedAddresses: [ADDRESS],
      },
    });
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await postOrder(sim, ORDER_QUERY)).body.data.id);
    sim.advance(2999);
    for (const id of ids)
      expect((await get(sim, `/v1/tron/history?orderId=${id}`)).body.data.status).not.toBe('COMPLETED');
  });

  it('completes an order at once with the instant profile', async () => {
    const sim = createSimulator({ clock: 'manual', timing: 'instant' });
    const { id } = (await postOrder(sim, ORDER_QUERY)).body.data;
    const reply = await get(sim, `/v1/tron/history?orderId=${id}`);
    expect(reply.body.data.status).toBe('COMPLETED');
  });
});
