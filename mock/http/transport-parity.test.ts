/**
 * The transports are invisible: for every request, a simulator served by its Node server
 * (the core's Node adapter) answers exactly what the same simulator answers through the
 * Hono app (the core's Hono adapter, which `sim.fetch` and `app.request` reach), and
 * journals the same entry.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { afterEach, describe, expect, it } from 'vitest';
import { createSimulatorServer } from '../node-server.ts';
import { createSimulator, type Simulator } from '../simulator.ts';
import { ADDRESS, ORDER_QUERY } from '../test-support/fixtures.ts';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Two identical simulators, one served with the fast path and one through Hono only. */
async function pair(prepare?: (sim: Simulator) => Promise<void> | void) {
  const fastSim = createSimulator({ clock: 'manual', timing: 'instant', seed: 3 });
  const honoSim = createSimulator({ clock: 'manual', timing: 'instant', seed: 3 });
  for (const sim of [fastSim, honoSim]) {
    sim.engine.createOrder(sim.engine.authenticate('demo-key')!, {
      pledgeAddress: ADDRESS,
      rentalCount: 65_000,
      period: '1h',
      outOrderNo: 'known',
    });
    sim.engine.createAccount({ apiKey: 'empty-key' });
    await prepare?.(sim);
  }
  return {
    fastSim,
    honoSim,
    fast: await listen(createSimulatorServer(fastSim)),
    hono: await listen(createAdaptorServer({ fetch: honoSim.app.fetch }) as Server),
  };
}

async function answer(
  base: string,
  path: string,
  headers: Record<string, string>,
  init: { method?: string; body?: string } = {},
) {
  const res = await fetch(base + path, { headers, ...init });
  return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
}

const orderId = (sim: Simulator) => sim.engine.authenticate('demo-key')!.orders.at(0)!.id;

const CASES: Array<[string, (id: string) => string, Record<string, string>]> = [
  ['a price', () => '/v1/tron/price?rentalCount=65000&period=1h', { 'API-KEY': 'demo-key' }],
  ['a price under /api', () => '/api/v1/tron/price?rentalCount=64000&period=30d', { 'API-KEY': 'demo-key' }],
  ['a history by orderId', (id) => `/v1/tron/history?orderId=${id}`, { 'API-KEY': 'demo-key' }],
  ['a history by outOrderNo', () => '/v1/tron/history?outOrderNo=known', { 'API-KEY': 'demo-key' }],
  ['the account', () => '/v1/account', { 'API-KEY': 'demo-key' }],
  ['a missing key', () => '/v1/account', {}],
  ['an unknown key', () => '/v1/account', { 'API-KEY': 'nope' }],
  ['an invalid period', () => '/v1/tron/price?rentalCount=65000&period=2h', { 'API-KEY': 'demo-key' }],
  ['Infinity', () => '/v1/tron/price?rentalCount=Infinity&period=1h', { 'API-KEY': 'demo-key' }],
  [
    'a repeated parameter',
    () => '/v1/tron/price?rentalCount=65000&rentalCount=64000&period=1h',
    { 'API-KEY': 'demo-key' },
  ],
  [
    'parameters named like prototype members',
    () => '/v1/tron/price?rentalCount=65000&period=1h&toString=1&__proto__=x',
    { 'API-KEY': 'demo-key' },
  ],
  ['an unknown order', () => '/v1/tron/history?orderId=OR20000101000000ZZZZZZZZ', { 'API-KEY': 'demo-key' }],
  ['no order id at all', () => '/v1/tron/history', { 'API-KEY': 'demo-key' }],
];

const FORM = { 'API-KEY': 'demo-key', 'content-type': 'application/x-www-form-urlencoded' };

const ORDER_CASES: Array<[string, string, Record<string, string>, string, ((sim: Simulator) => void)?]> = [
  ['an order', '/v1/tron/order', FORM, ORDER_QUERY],
  ['an order under /api with an outOrderNo', '/api/v1/tron/order', FORM, `${ORDER_QUERY}&outOrderNo=fresh-1`],
  ['an order repeating a known outOrderNo', '/v1/tron/order', FORM, `${ORDER_QUERY}&outOrderNo=known`],
  [
    'an order repeating a known outOrderNo when repeats are rejected',
    '/v1/tron/order',
    FORM,
    `${ORDER_QUERY}&outOrderNo=known`,
    (sim) => void sim.engine.updateSettings({ duplicateOutOrderNo: 'reject' }),
  ],
  ['an order in the query string', `/v1/tron/order?${ORDER_QUERY}`, { 'API-KEY': 'demo-key' }, ''],
  [
    'an order split between query and body',
    `/v1/tron/order?period=1h`,
    FORM,
    `pledgeAddress=${ADDRESS}&rentalCount=65000&period=1h`,
  ],
  ['an order naming a parameter twice with different values', `/v1/tron/order?period=1d`, FORM, ORDER_QUERY],
  ['a percent-encoded order', '/v1/tron/order', FORM, `${ORDER_QUERY}&outOrderNo=a%20b`],
  [
    'an order with a JSON body',
    '/v1/tron/order',
    { 'API-KEY': 'demo-key', 'content-type': 'application/json' },
    JSON.stringify({ pledgeAddress: ADDRESS }),
  ],
  ['an order without a key', '/v1/tron/order', { 'content-type': FORM['content-type'] }, ORDER_QUERY],
  ['an order with an unknown key', '/v1/tron/order', { ...FORM, 'API-KEY': 'nope' }, ORDER_QUERY],
  [
    'an order to an invalid address',
    '/v1/tron/order',
    FORM,
    'pledgeAddress=TT3D8Br4YEkJtvS1DNSj77ymip51BemoP4&rentalCount=65000&period=1h',
  ],
  [
    'an order below the minimum',
    '/v1/tron/order',
    FORM,
    `pledgeAddress=${ADDRESS}&rentalCount=100&period=1h`,
  ],
  ['an order the account cannot pay', '/v1/tron/order', { ...FORM, 'API-KEY': 'empty-key' }, ORDER_QUERY],
  [
    'an order with Infinity',
    '/v1/tron/order',
    FORM,
    `pledgeAddress=${ADDRESS}&rentalCount=Infinity&period=1h`,
  ],
  [
    'an order larger than the body limit',
    '/v1/tron/order',
    FORM,
    `${ORDER_QUERY}&outOrderNo=${'x'.repeat(70_000)}`,
  ],
];

describe('the Node transport and the Hono transport', () => {
  it.each(ORDER_CASES)(
    'answers %s exactly as Hono does, journals it the same and leaves the same state',
    async (_name, path, headers, body, prepare) => {
      const { fast, hono, fastSim, honoSim } = await pair(prepare);
      const init = { method: 'POST', body };
      const [a, b] = [await answer(fast, path, headers, init), await answer(hono, path, headers, init)];
      expect(a).toEqual(b);
      const strip = (sim: Simulator) => sim.journal.list().map(({ durationMs: _d, id: _i, ...rest }) => rest);
      expect(strip(fastSim)).toEqual(strip(honoSim));
      expect(fastSim.engine.snapshot()).toEqual(honoSim.engine.snapshot());
      expect(fastSim.engine.checkInvariants()).toEqual([]);
    },
  );

  it.each(CASES)(
    'answers %s exactly as Hono does, and journals it the same',
    async (_name, path, headers) => {
      const { fast, hono, fastSim, honoSim } = await pair();
      expect(orderId(fastSim)).toBe(orderId(honoSim));
      const [a, b] = [
        await answer(fast, path(orderId(fastSim)), headers),
        await answer(hono, path(orderId(honoSim)), headers),
      ];
      expect(a).toEqual(b);
      const strip = (sim: Simulator) => sim.journal.list().map(({ durationMs: _d, id: _i, ...rest }) => rest);
      expect(strip(fastSim)).toEqual(strip(honoSim));
    },
  );

  it('answers every read as Hono does after each change of state, never an earlier answer', async () => {
    // A realistic-timing order, so that it moves through its steps as the clock advances.
    const { fast, hono, fastSim, honoSim } = await pair(
      (sim) => void sim.engine.updateSettings({ timing: 'realistic' }),
    );
    const key = { 'API-KEY': 'demo-key' };
    const reads = () => {
      const account = fastSim.engine.authenticate('demo-key')!;
      // After the reset the account has no order: the read of an unknown one must match too.
      const newest = account.orders.at(account.orders.length - 1)?.id ?? 'OR20000101000000ZZZZZZZZ';
      return [
        '/v1/tron/price?rentalCount=65000&period=1h',
        '/v1/account',
        `/v1/tron/history?orderId=${newest}`,
        '/v1/tron/history?outOrderNo=later',
      ];
    };
    const changes: Array<[string, (sim: Simulator) => void]> = [
      ['nothing', () => {}],
      ['the prices', (sim) => void sim.engine.updateSettings({ prices: { '1h': 70 } })],
      [
        'a new order',
        (sim) =>
          void sim.engine.createOrder(sim.engine.authenticate('demo-key')!, {
            pledgeAddress: ADDRESS,
            rentalCount: 65_000,
            period: '1h',
            outOrderNo: 'later',
          }),
      ],
      ['its first step', (sim) => sim.advance(1_000)],
      ['its completion', (sim) => sim.advance(60_000)],
      [
        'a deposit',
        (sim) => void sim.engine.deposit(sim.engine.authenticate('demo-key')!, { trx: 5_000_000 }),
      ],
      ['the account success code', (sim) => void sim.engine.updateSettings({ accountSuccessCode: 1 })],
      ['a reset', (sim) => sim.engine.reset()],
    ];
    const seen = new Set<string>();
    for (const [change, apply] of changes) {
      apply(fastSim);
      apply(honoSim);
      for (const path of reads()) {
        // Twice: the second read may come from what the first one left behind.
        for (let i = 0; i < 2; i++) {
          const [a, b] = [await answer(fast, path, key), await answer(hono, path, key)];
          expect(a, `${path} after ${change}`).toEqual(b);
          seen.add(a.body.replace(/"time":"\d+"/, ''));
        }
      }
    }
    // The changes did change the answers: a cache that never forgot would fail above.
    expect(seen.size).toBeGreaterThan(12);
  });

  it('steps aside while a fault is in force, so the fault still applies', async () => {
    const { fast, hono } = await pair(
      (sim) => void sim.faults.add({ operation: 'getPrice', response: 'status', status: 503 }),
    );
    const path = '/v1/tron/price?rentalCount=65000&period=1h';
    expect((await answer(fast, path, { 'API-KEY': 'demo-key' })).status).toBe(503);
    expect(await answer(fast, path, { 'API-KEY': 'demo-key' })).toEqual(
      await answer(hono, path, { 'API-KEY': 'demo-key' }),
    );
  });

  it('steps aside under a rate limit, so the limit still counts every call', async () => {
    const { fast } = await pair(
      (sim) => void sim.engine.updateSettings({ rateLimit: { requests: 2, windowMs: 60_000 } }),
    );
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await answer(fast, '/v1/account', { 'API-KEY': 'demo-key' })).status);
    expect(statuses).toEqual([200, 200, 429]);
  });

  it("forgets a connection's account when the simulator is reset", async () => {
    const { fast, fastSim } = await pair();
    const { Agent, get } = await import('node:http');
    // One keep-alive socket for both requests.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const ports: number[] = [];
    const balance = () =>
      new Promise<string>((resolve, reject) => {
        get(`${fast}/v1/account`, { agent, headers: { 'API-KEY': 'demo-key' } }, (res) => {
          ports.push(res.socket.localPort!);
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve(JSON.parse(text).data.balance.available.trx));
        }).on('error', reject);
      });
    const before = await balance();
    fastSim.engine.reset();
    const after = await balance();
    agent.destroy();
    expect(ports[0]).toBe(ports[1]);
    expect(before).toBe('995.77');
    expect(after).toBe('1000');
  });

  it('honours the account success code switch', async () => {
    const { fast } = await pair((sim) => void sim.engine.updateSettings({ accountSuccessCode: 1 }));
    expect(JSON.parse((await answer(fast, '/v1/account', { 'API-KEY': 'demo-key' })).body).code).toBe(1);
  });
});

describe('one simulator behind both transports', () => {
  it("answers in process with its own length after a socket answer of another length, as the Node adapter leaves a source's headers alone", async () => {
    const sim = createSimulator({ clock: 'manual' });
    const url = await listen(createSimulatorServer(sim));
    const key = { 'api-key': 'demo-key' };
    // One answer over the socket, then one of another length in process: both share the engine source's headers.
    await (await fetch(`${url}/v1/tron/price?rentalCount=65000&period=1h`, { headers: key })).text();
    const short = await sim.fetch(new Request('http://sim.test/v1/account', { headers: key }));
    const text = await short.text();
    const length = short.headers.get('content-length');
    if (length !== null) expect(Number(length)).toBe(Buffer.byteLength(text));
    const again = await fetch(`${url}/v1/tron/price?rentalCount=65000&period=1h`, { headers: key });
    expect(Number(again.headers.get('content-length'))).toBe(Buffer.byteLength(await again.text()));
  });
});

describe('the Node adapter', () => {
  it("writes the length of the body it sends, whatever length a source's headers name", async () => {
    const body = JSON.stringify({ code: 0, msg: 'replayed', data: { long: 'x'.repeat(100) } });
    // A recording may hold the length of an answer it now serves re-serialised.
    const sim = createSimulator({
      clock: 'manual',
      replay: {
        fetch: async () =>
          new Response(body, { headers: { 'content-type': 'application/json', 'Content-Length': '2' } }),
        source: 'r.json',
      },
    });
    const url = await listen(createSimulatorServer(sim));
    const res = await fetch(`${url}/v1/account`, { headers: { 'API-KEY': 'demo-key' } });
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
    expect(await res.text()).toBe(body);
  });
});
