/**
 * Recording at the fetch level and assembling the workers' logs: keys never written,
 * aliases consistent between headers and createAccount bodies, paths relative to the
 * base URL, and timing from server time.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSimulator } from '../mock/simulator.ts';
import { assembleRecording, createRecorder } from './recorder.ts';
import { CONNECT_CASE } from './recording.ts';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'drift-recorder-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const TARGET = { kind: 'url' as const, baseUrl: 'http://sim.test/api', simulator: true, capabilities: [] };

/** One connection's session against its own simulator, as a contract file makes one. */
async function session(dir: string, file: string) {
  const sim = createSimulator({ clock: 'manual', timing: 'realistic', seed: 7 });
  const recorder = createRecorder({ dir, mainKey: 'demo-key', baseUrl: 'http://sim.test/api' });
  // The target lives under /api, like the real service; the simulator behind it at the root.
  const transport = recorder.wrap((request) => {
    const url = new URL(request.url);
    url.pathname = url.pathname.replace(/^\/api/, '');
    return sim.fetch(new Request(url, request));
  });
  const caseName = `${file} > a case`;
  const send = (url: string, init: RequestInit = {}, name = caseName) =>
    transport(new Request(`http://sim.test/api${url}`, init), name, name === CONNECT_CASE ? '' : file);
  await send('/_sim/health', {}, CONNECT_CASE);
  recorder.noteTarget(TARGET);
  const created = (await (
    await send('/_sim/accounts', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer secret-token' },
      body: JSON.stringify({ balance: { trx: '100' } }),
    })
  ).json()) as { apiKey: string };
  await send('/v1/account', { headers: { 'API-KEY': created.apiKey } });
  await send('/v1/account', { headers: { 'API-KEY': 'erk-contract-no-such-key' } });
  const order = (await (
    await send('/v1/tron/order', {
      method: 'POST',
      headers: { 'API-KEY': 'demo-key', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'pledgeAddress=TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3&rentalCount=64000&period=10min&outOrderNo=erk-1',
    })
  ).json()) as { data: { id: string } };
  for (let i = 0; i < 16; i++) {
    await send(`/v1/tron/history?orderId=${order.data.id}`, { headers: { 'API-KEY': 'demo-key' } });
    sim.advance(500);
  }
  return created.apiKey;
}

describe('createRecorder and assembleRecording', () => {
  it('records every exchange with keys replaced by aliases, never the keys themselves', async () => {
    const dir = path.join(scratch, 'one');
    const issued = await session(dir, 'contract-tests/a.contract.test.ts');
    const raw = readdirSync(dir)
      .map((f) => readFileSync(path.join(dir, f), 'utf8'))
      .join('');
    const recording = assembleRecording(dir, {
      runId: 'run-1',
      settings: { allowSpend: false, maxOrders: 1 },
    });
    const text = JSON.stringify(recording);
    for (const secret of ['demo-key', issued, 'erk-contract-no-such-key', 'secret-token']) {
      expect(raw, `the worker log holds ${secret}`).not.toContain(secret);
      expect(text, `the recording holds ${secret}`).not.toContain(secret);
    }
    expect(recording.apiKeys).toEqual([
      { alias: 'key-1', role: 'main' },
      { alias: 'key-2', role: 'issued' },
      { alias: 'key-3', role: 'foreign' },
    ]);
    const [health, create, own, foreign, order] = recording.interactions;
    expect(health).toMatchObject({
      case: CONNECT_CASE,
      file: 'contract-tests/a.contract.test.ts',
      operation: 'getHealth',
    });
    expect(create).toMatchObject({
      operation: 'createAccount',
      request: { method: 'POST', path: '/_sim/accounts', json: { balance: { trx: '100' } } },
      response: { body: { apiKey: 'key-2' } },
    });
    expect(create!.request.apiKeyAlias).toBeUndefined();
    expect(own).toMatchObject({
      operation: 'getAccount',
      request: { path: '/v1/account', apiKeyAlias: 'key-2' },
      response: { status: 200 },
    });
    expect(foreign).toMatchObject({ request: { apiKeyAlias: 'key-3' }, response: { status: 401 } });
    expect(order).toMatchObject({
      operation: 'createOrder',
      request: {
        form: {
          outOrderNo: 'erk-1',
          period: '10min',
          pledgeAddress: 'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3',
          rentalCount: '64000',
        },
        apiKeyAlias: 'key-1',
      },
      response: { headers: { 'content-type': expect.stringContaining('application/json') } },
    });
    expect(recording.target).toEqual(TARGET);
  });

  it('times each status from createdAt to the envelope time of the first response that showed it', async () => {
    const dir = path.join(scratch, 'timing');
    await session(dir, 'contract-tests/a.contract.test.ts');
    const { timing } = assembleRecording(dir, {
      runId: 'run-1',
      settings: { allowSpend: false, maxOrders: 1 },
    });
    expect(timing.orders).toHaveLength(1);
    const { PROCESSING, COMPLETED } = timing.orders[0]!.secondsToStatus;
    // Realistic timing: processing within a second or two, delivery 3 to 6 s (+1 s activation).
    expect(PROCESSING).toBeGreaterThan(0);
    expect(COMPLETED).toBeGreaterThanOrEqual(3);
    expect(COMPLETED).toBeLessThanOrEqual(8);
    expect(timing.summary).toEqual({ orders: 1, medianSecondsTo: { PROCESSING, COMPLETED } });
  });

  it('numbers the keys of several connections apart, files in order', async () => {
    const dir = path.join(scratch, 'two');
    // Each file's simulator is seeded alike, so both issue the same key string: two accounts all the same.
    await session(dir, 'contract-tests/b.contract.test.ts');
    await session(dir, 'contract-tests/a.contract.test.ts');
    const recording = assembleRecording(dir, {
      runId: 'run-2',
      settings: { allowSpend: false, maxOrders: 1 },
    });
    expect([...new Set(recording.interactions.map((i) => i.file))]).toEqual([
      'contract-tests/a.contract.test.ts',
      'contract-tests/b.contract.test.ts',
    ]);
    const created = recording.interactions
      .filter((i) => i.operation === 'createAccount')
      .map((i) => (i.response!.body as { apiKey: string }).apiKey);
    expect(created).toEqual(['key-2', 'key-4']);
    expect(recording.apiKeys.map((k) => k.alias)).toEqual(['key-1', 'key-2', 'key-3', 'key-4', 'key-5']);
  });

  it('marks an answer the suite sends its request again after, and the retry, as the transport above asks', async () => {
    const dir = path.join(scratch, 'marks');
    const recorder = createRecorder({ dir, mainKey: 'demo-key', baseUrl: 'http://sim.test' });
    let calls = 0;
    const transport = recorder.wrap(() =>
      Promise.resolve(
        ++calls === 1
          ? Response.json({ code: 42900, msg: 'Too many requests', time: 0, data: null }, { status: 429 })
          : Response.json({ code: 0, msg: 'ok', time: 0, data: {} }),
      ),
    );
    recorder.noteTarget(TARGET);
    const request = () => new Request('http://sim.test/v1/account', { headers: { 'API-KEY': 'demo-key' } });
    await transport(request(), 'x > a case', 'x', () => ({ retried: true }));
    await transport(request(), 'x > a case', 'x', () => ({ attempt: 2 }));
    const recording = assembleRecording(dir, {
      runId: 'run-3',
      settings: { allowSpend: false, maxOrders: 1 },
    });
    expect(recording.interactions.map((i) => [i.response?.status, i.retried, i.attempt])).toEqual([
      [429, true, undefined],
      [200, undefined, 2],
    ]);
  });
});
