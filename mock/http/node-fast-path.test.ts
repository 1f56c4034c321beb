/**
 * The Node fast path must be invisible: for every request, a simulator served through it
 * answers exactly what the same simulator answers through Hono alone, and journals the
 * same entry.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { afterEach, describe, expect, it } from 'vitest';
import { createSimulatorServer } from '../node-server.ts';
import { createSimulator, type Simulator } from '../simulator.ts';

const ADDRESS = 'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3';
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
    sim.engine.createOrder(sim.engine.authenticate('demo-key')!, { pledgeAddress: ADDRESS, rentalCount: 65_000, period: '1h', outOrderNo: 'known' });
    await prepare?.(sim);
  }
  return {
    fastSim,
    honoSim,
    fast: await listen(createSimulatorServer(fastSim)),
    hono: await listen(createAdaptorServer({ fetch: honoSim.app.fetch }) as Server),
  };
}

async function answer(base: string, path: string, headers: Record<string, string>) {
  const res = await fetch(base + path, { headers });
  return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
}

const orderId = (sim: Simulator) => sim.engine.authenticate('demo-key')!.orders[0]!.id;

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
  ['a repeated parameter', () => '/v1/tron/price?rentalCount=65000&rentalCount=64000&period=1h', { 'API-KEY': 'demo-key' }],
  ['an unknown order', () => '/v1/tron/history?orderId=OR20000101000000ZZZZZZZZ', { 'API-KEY': 'demo-key' }],
  ['no order id at all', () => '/v1/tron/history', { 'API-KEY': 'demo-key' }],
];

describe('the Node fast path', () => {
  it.each(CASES)('answers %s exactly as Hono does, and journals it the same', async (_name, path, headers) => {
    const { fast, hono, fastSim, honoSim } = await pair();
    expect(orderId(fastSim)).toBe(orderId(honoSim));
    const [a, b] = [await answer(fast, path(orderId(fastSim)), headers), await answer(hono, path(orderId(honoSim)), headers)];
    expect(a).toEqual(b);
    const strip = (sim: Simulator) => sim.journal.list().map(({ durationMs: _d, id: _i, ...rest }) => rest);
    expect(strip(fastSim)).toEqual(strip(honoSim));
  });

  it('steps aside while a fault is in force, so the fault still applies', async () => {
    const { fast, hono } = await pair((sim) => void sim.faults.add({ operation: 'getPrice', response: 'status', status: 503 }));
    const path = '/v1/tron/price?rentalCount=65000&period=1h';
    expect((await answer(fast, path, { 'API-KEY': 'demo-key' })).status).toBe(503);
    expect(await answer(fast, path, { 'API-KEY': 'demo-key' })).toEqual(await answer(hono, path, { 'API-KEY': 'demo-key' }));
  });

  it('steps aside under a rate limit, so the limit still counts every call', async () => {
    const { fast } = await pair((sim) => void sim.engine.updateSettings({ rateLimit: { requests: 2, windowMs: 60_000 } }));
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await answer(fast, '/v1/account', { 'API-KEY': 'demo-key' })).status);
    expect(statuses).toEqual([200, 200, 429]);
  });

  it('honours the account success code switch', async () => {
    const { fast } = await pair((sim) => void sim.engine.updateSettings({ accountSuccessCode: 1 }));
    expect(JSON.parse((await answer(fast, '/v1/account', { 'API-KEY': 'demo-key' })).body).code).toBe(1);
  });
});

describe('createNodeFastPath', () => {
  function fakeExchange(url: string, headers: Record<string, string>) {
    const written: { status?: number; body?: string } = {};
    const req = { method: 'GET', url, headers } as unknown as import('node:http').IncomingMessage;
    const res = {
      writeHead(status: number) {
        written.status = status;
        return this;
      },
      end(body: string) {
        written.body = body;
      },
    } as unknown as import('node:http').ServerResponse;
    return { req, res, written };
  }

  it('serves a valid read itself, and leaves a rejection to Hono', async () => {
    const { createNodeFastPath } = await import('./node-fast-path.ts');
    const sim = createSimulator({ clock: 'manual' });
    const fast = createNodeFastPath({ engine: sim.engine, journal: sim.journal, faults: sim.faults, apiValidators: sim.apiValidators });
    const served = fakeExchange('/v1/tron/price?rentalCount=65000&period=1h', { 'api-key': 'demo-key' });
    expect(fast(served.req, served.res)).toBe(true);
    expect(served.written.status).toBe(200);
    expect(JSON.parse(served.written.body!).data.trxPrice).toBe('4.23');
    const rejected = fakeExchange('/v1/tron/price?rentalCount=1&period=2h', { 'api-key': 'demo-key' });
    expect(fast(rejected.req, rejected.res)).toBe(false);
    expect(rejected.written).toEqual({});
  });
});
