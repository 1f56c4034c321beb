/**
 * The faults a real network makes, after WireMock's: a reset connection, random bytes
 * instead of an answer, an answer dripped slowly in chunks, and lognormal delays; and a
 * 429 without Retry-After. Each over a real socket, through both servers (the Node
 * server the CLI runs, and the Hono app behind @hono/node-server), and in process.
 */
import type { Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRandomSource } from '../engine/random-source.ts';
import { lognormalMs } from '../http/fault-injector.ts';
import { createSimulatorServer } from '../node-server.ts';
import { createSimulator, type Simulator } from '../simulator.ts';
import { ADDRESS } from '../test-support/fixtures.ts';

const ORDER = `/v1/tron/order?pledgeAddress=${ADDRESS}&rentalCount=65000&period=1h`;
const KEY = { 'API-KEY': 'demo-key' };

const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function inject(sim: Simulator, fault: Record<string, unknown>): Promise<Response> {
  return sim.app.request('/_sim/faults', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(fault),
  });
}

async function injected(sim: Simulator, fault: Record<string, unknown>): Promise<void> {
  const res = await inject(sim, fault);
  expect(res.status, await res.text()).toBe(201);
}

const SERVERS = {
  'the Node server': (sim: Simulator): Server => createSimulatorServer(sim),
  'the Hono app behind @hono/node-server': (sim: Simulator): Server =>
    createAdaptorServer({ fetch: sim.app.fetch }) as Server,
};

/** Serves `sim` on a loopback port with one of the two servers; answers its base URL and port. */
async function serve(sim: Simulator, server: keyof typeof SERVERS): Promise<{ url: string; port: number }> {
  const http = SERVERS[server](sim);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  );
  const { port } = http.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, port };
}

/** One raw GET /v1/account: every byte the server sent, and how the connection ended. */
function rawAccount(port: number): Promise<{ bytes: Buffer; ended: 'end' | string }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('end', () => resolve({ bytes: Buffer.concat(chunks), ended: 'end' }));
    socket.on('error', (error: NodeJS.ErrnoException) =>
      resolve({ bytes: Buffer.concat(chunks), ended: error.code ?? error.message }),
    );
    socket.write(`GET /v1/account HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAPI-KEY: demo-key\r\n\r\n`);
  });
}

/** The rejection of a fetch, with its cause's code. */
async function failureOf(promise: Promise<Response>): Promise<{ error: unknown; code: unknown }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  return { error, code: (error as { cause?: { code?: unknown } } | undefined)?.cause?.code };
}

describe.each(Object.keys(SERVERS) as Array<keyof typeof SERVERS>)('richer faults over %s', (server) => {
  it('reset the connection: fetch rejects with ECONNRESET, nothing is processed, and the server serves on', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const { url, port } = await serve(sim, server);
    await injected(sim, { operation: '*', response: 'reset', times: 2 });
    const failure = await failureOf(fetch(`${url}${ORDER}`, { method: 'POST', headers: KEY }));
    expect(failure.error).toBeInstanceOf(TypeError);
    expect(failure.code).toBe('ECONNRESET');
    expect((await rawAccount(port)).ended).toBe('ECONNRESET');
    expect(sim.engine.storedOrders).toBe(0);
    expect((await fetch(`${url}/v1/account`, { headers: KEY })).status).toBe(200);
    const api = sim.journal.list().filter((e) => e.path.startsWith('/v1'));
    expect(api.map((e) => [e.status, e.fault])).toEqual([
      [599, 'fault-1'],
      [599, 'fault-1'],
      [200, undefined],
    ]);
  });

  it('send random bytes from the seeded source instead of an answer, then close', async () => {
    const sim = createSimulator({ clock: 'manual', seed: 5 });
    const { url, port } = await serve(sim, server);
    await injected(sim, { operation: 'getAccount', response: 'garbage', garbageBytes: 100, times: 2 });
    const raw = await rawAccount(port);
    expect(raw.ended).toBe('end');
    expect(raw.bytes).toHaveLength(100);
    expect(raw.bytes.subarray(0, 5).toString('latin1')).not.toBe('HTTP/');
    // The same seed sends the same bytes.
    const twin = createSimulator({ clock: 'manual', seed: 5 });
    const served = await serve(twin, server);
    await injected(twin, { operation: 'getAccount', response: 'garbage', garbageBytes: 100, times: 1 });
    expect((await rawAccount(served.port)).bytes.equals(raw.bytes)).toBe(true);
    const failure = await failureOf(fetch(`${url}/v1/account`, { headers: KEY }));
    expect(failure.error).toBeInstanceOf(TypeError);
    expect(failure.code).toBe('HPE_INVALID_CONSTANT');
  });

  it('drip the real answer in chunks, after processing the request', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const { url } = await serve(sim, server);
    await injected(sim, { operation: 'createOrder', response: 'drip', dripMs: 400, dripChunks: 5, times: 1 });
    const res = await fetch(`${url}${ORDER}&outOrderNo=drip-1`, { method: 'POST', headers: KEY });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBeNull();
    const reader = res.body!.getReader();
    const pieces: Uint8Array[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      pieces.push(value);
    }
    const text = Buffer.concat(pieces).toString('utf8');
    expect(JSON.parse(text).code).toBe(0);
    // Pieces apart in time arrive apart: an answer written at once comes in one.
    expect(pieces.length).toBeGreaterThanOrEqual(5);
    expect(sim.engine.storedOrders).toBe(1);
  });
});

describe('richer faults in process (sim.fetch, the MSW handlers)', () => {
  it('reject a reset as fetch does over a socket: a TypeError caused by ECONNRESET', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await injected(sim, { operation: 'getAccount', response: 'reset', times: 1 });
    const failure = await failureOf(sim.fetch('http://sim/v1/account', { headers: KEY }));
    expect(failure.error).toBeInstanceOf(TypeError);
    expect((failure.error as TypeError).message).toBe('fetch failed');
    expect(failure.code).toBe('ECONNRESET');
    expect(String((failure.error as TypeError).cause)).toMatch(/reset by injected fault fault-1/);
  });

  it('reject random bytes as fetch rejects a reply that is no HTTP: HPE_INVALID_CONSTANT', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await injected(sim, { operation: 'getAccount', response: 'garbage', times: 1 });
    const failure = await failureOf(sim.fetch('http://sim/v1/account', { headers: KEY }));
    expect(failure.error).toBeInstanceOf(TypeError);
    expect(failure.code).toBe('HPE_INVALID_CONSTANT');
    expect(sim.journal.list().at(-1)!.response).toBe(
      '[64 random bytes instead of an answer, then the connection closed]',
    );
  });

  it('drip the answer as a stream whose chunks come over the given time', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await injected(sim, { operation: 'getAccount', response: 'drip', dripMs: 300, dripChunks: 4, times: 1 });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const res = await sim.fetch('http://sim/v1/account', { headers: KEY });
    const reader = res.body!.getReader();
    const pieces: string[] = [];
    let done = false;
    const reading = (async () => {
      for (;;) {
        const next = await reader.read();
        if (next.done) break;
        pieces.push(new TextDecoder().decode(next.value));
      }
      done = true;
    })();
    // The first piece at once, then one every 100 ms: 3 pieces by 299 ms, all 4 at 300.
    await vi.advanceTimersByTimeAsync(299);
    expect(pieces).toHaveLength(3);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await reading;
    expect(pieces).toHaveLength(4);
    expect(JSON.parse(pieces.join('')).code).toBe(0);
  });
});

describe('a lognormal delay', () => {
  it('is the median exactly with sigma 0, and spreads around it, repeatably, with a sigma', () => {
    expect(lognormalMs(200, 0, createRandomSource(1))).toBe(200);
    const draws = (seed: number): number[] => {
      const random = createRandomSource(seed);
      return Array.from({ length: 2001 }, () => lognormalMs(200, 0.5, random));
    };
    const delays = draws(9);
    expect(draws(9)).toEqual(delays);
    const sorted = [...delays].sort((a, b) => a - b);
    const median = sorted[1000]!;
    expect(median).toBeGreaterThan(180);
    expect(median).toBeLessThan(220);
    // A long tail: the slowest are far slower than the median, the fastest not near 0.
    expect(sorted.at(-1)!).toBeGreaterThan(2 * median);
    expect(sorted[0]!).toBeGreaterThan(0);
  });

  it('is capped at a minute', () => {
    const random = createRandomSource(3);
    for (let i = 0; i < 200; i++) expect(lognormalMs(60_000, 3, random)).toBeLessThanOrEqual(60_000);
  });

  it('delays the answer by the drawn amount', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await injected(sim, { operation: 'getAccount', latencyMedianMs: 150, latencySigma: 0, times: 1 });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let answered = false;
    const pending = sim.fetch('http://sim/v1/account', { headers: KEY }).finally(() => (answered = true));
    await vi.advanceTimersByTimeAsync(149);
    expect(answered).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect((await pending).status).toBe(200);
  });
});

describe('a 429 fault', () => {
  it('sends Retry-After 1 by default, and none with withRetryAfter false', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await injected(sim, { operation: 'getAccount', response: 'status', status: 429, times: 1 });
    await injected(sim, {
      operation: 'getAccount',
      response: 'status',
      status: 429,
      withRetryAfter: false,
      times: 1,
    });
    const first = await sim.fetch('http://sim/v1/account', { headers: KEY });
    const second = await sim.fetch('http://sim/v1/account', { headers: KEY });
    expect([first.status, first.headers.get('retry-after')]).toEqual([429, '1']);
    expect([second.status, second.headers.get('retry-after')]).toEqual([429, null]);
  });
});

describe('the new fault fields', () => {
  it.each([
    [{ operation: '*', latencySigma: 1, latencyMs: 5 }, /'latencySigma' goes with 'latencyMedianMs'/],
    [{ operation: '*', latencyMedianMs: 100, latencyMs: 5 }, /'latencyMedianMs'.*choose one/],
    [{ operation: '*', response: 'drop', garbageBytes: 5 }, /'garbageBytes' goes with "response": "garbage"/],
    [{ operation: '*', response: 'status', dripMs: 5 }, /'dripMs' goes with "response": "drip"/],
    [
      { operation: '*', response: 'drop', withRetryAfter: false },
      /'withRetryAfter' goes with "response": "status"/,
    ],
    [
      { operation: '*', response: 'status', status: 429, retryAfter: 3, withRetryAfter: false },
      /'retryAfter'.*'withRetryAfter: false'/,
    ],
    [{ operation: '*', response: 'drip', dripChunks: 1 }, /dripChunks/],
    [{ operation: '*', response: 'leak' }, /response/],
  ])('refuse %j, naming the field', async (fault, message) => {
    const sim = createSimulator({ clock: 'manual' });
    const res = await inject(sim, fault);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { msg: string }).msg).toMatch(message);
  });
});
