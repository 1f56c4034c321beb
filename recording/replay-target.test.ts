/**
 * The replay target: matching by content, recorded order per identical request, key
 * aliases, health from the recording, and a clear error naming the closest request.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { fileLimit } from '../src/bounded-file.ts';
import { writeRecordingFile } from './recording-lines.ts';
import { loadRecording, type Interaction, type Recording } from './recording.ts';
import { CANDIDATES_PER_OPERATION, CANDIDATES_PER_VALUE } from './replay-index.ts';
import {
  createReplay,
  loadReplay,
  missAdvice,
  REPLAY_MISS_CODE,
  REPLAY_MISS_STATUS,
} from './replay-target.ts';
import { LIVE_CASE } from './live-recording.ts';
import { recordingOf } from './test-support.ts';

const BASE = 'http://replay.invalid';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'replay-target-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let files = 0;

/** `serve --replay`'s way: the recording written to a file, read back a line at a time. */
function replayFromFile(recording: Recording, options: Parameters<typeof createReplay>[1]) {
  const file = path.join(scratch, `recording-${++files}.jsonl`);
  writeRecordingFile(file, recording);
  return loadReplay(file, fileLimit(64), { ...options, onWarning: () => {} });
}

/** Both ways to a replay: from a recording in memory, and from its file. */
const BUILDERS = [
  ['a recording in memory', createReplay],
  ['a recording read from its file a line at a time', replayFromFile],
] as const;
const CASE_A = 'x.contract.test.ts > a';
const CASE_B = 'x.contract.test.ts > b';

function interaction(
  caseName: string,
  request: Partial<Interaction['request']>,
  body: unknown,
  status = 200,
): Interaction {
  return {
    case: caseName,
    file: 'x.contract.test.ts',
    operation: 'op',
    request: { method: 'GET', path: '/v1/tron/history', query: {}, ...request },
    response: { status, headers: { 'content-type': 'application/json' }, body },
    at: '2025-03-12T17:50:09.000Z',
    durationMs: 1,
  };
}

const history = (orderId: string, status: string, caseName = CASE_A) =>
  interaction(caseName, { query: { orderId }, apiKeyAlias: 'key-1' }, { code: 0, data: { orderId, status } });

const recording = recordingOf(
  [
    history('OR1', 'PENDING'),
    history('OR2', 'PENDING'),
    history('OR1', 'PROCESSING'),
    history('OR1', 'COMPLETED'),
    interaction(
      CASE_A,
      {
        method: 'POST',
        path: '/v1/tron/order',
        form: { outOrderNo: 'erk-1', period: '10min' },
        apiKeyAlias: 'key-1',
      },
      { code: 0, data: { id: 'OR1' } },
    ),
    interaction(
      CASE_A,
      { method: 'POST', path: '/_sim/accounts', json: { balance: { trx: '100' } } },
      { apiKey: 'key-2' },
    ),
    interaction(
      CASE_B,
      { method: 'POST', path: '/_sim/accounts', json: { balance: { trx: '100' } } },
      { apiKey: 'key-3' },
    ),
    interaction(
      CASE_A,
      { path: '/v1/account', apiKeyAlias: 'key-2' },
      { code: 0, data: { who: 'account of key-2' } },
    ),
    interaction(
      CASE_A,
      { path: '/v1/account', apiKeyAlias: 'key-4' },
      { code: 10002, msg: 'Unknown API key', data: null },
      401,
    ),
  ],
  {
    target: {
      kind: 'in-process',
      baseUrl: 'http://simulator.in-process',
      simulator: true,
      capabilities: ['clock', 'rules'],
      clock: 'manual',
      timing: 'realistic',
    },
    apiKeys: [
      { alias: 'key-1', role: 'main' },
      { alias: 'key-2', role: 'issued' },
      { alias: 'key-3', role: 'issued' },
      { alias: 'key-4', role: 'foreign' },
    ],
  },
);

const get = (path: string, key?: string) =>
  new Request(`${BASE}${path}`, key ? { headers: { 'API-KEY': key } } : {});
const json = async (response: Response) =>
  (await response.json()) as {
    code: number;
    msg?: string;
    data: Record<string, unknown> | null;
    apiKey?: string;
  };

describe.each(BUILDERS)('a replay of %s', (_from, createReplay) => {
  it('serves identical requests in recorded order, repeating the last one', async () => {
    const { transport } = createReplay(recording, { apiKey: 'demo-key' });
    const statuses = [];
    for (let i = 0; i < 5; i++)
      statuses.push(
        (await json(await transport(get('/v1/tron/history?orderId=OR1', 'demo-key'), CASE_A, ''))).data!
          .status,
      );
    expect(statuses).toEqual(['PENDING', 'PROCESSING', 'COMPLETED', 'COMPLETED', 'COMPLETED']);
  });

  it('skips the 429s the recording run waited out and sent again, serving what came after', async () => {
    const superseded = {
      ...interaction(
        CASE_A,
        { query: { orderId: 'OR9' }, apiKeyAlias: 'key-1' },
        { code: 42900, data: null },
        429,
      ),
      retried: true,
    };
    const replay = createReplay(
      { ...recording, interactions: [superseded, { ...history('OR9', 'COMPLETED'), attempt: 2 }] },
      { apiKey: 'demo-key' },
    );
    const response = await replay.transport(get('/v1/tron/history?orderId=OR9', 'demo-key'), CASE_A, '');
    expect(response.status).toBe(200);
    expect((await json(response)).data!.status).toBe('COMPLETED');
  });

  it('matches by content, not by sequence', async () => {
    const { transport } = createReplay(recording, { apiKey: 'demo-key' });
    // OR2 was recorded second; asked first, it still gets its own answer.
    expect(
      (await json(await transport(get('/v1/tron/history?orderId=OR2', 'demo-key'), CASE_A, ''))).data,
    ).toEqual({ orderId: 'OR2', status: 'PENDING' });
    const form = new Request(`${BASE}/v1/tron/order`, {
      method: 'POST',
      headers: { 'API-KEY': 'demo-key', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'period=10min&outOrderNo=erk-1', // another parameter order
    });
    expect((await json(await transport(form, CASE_A, ''))).data).toEqual({ id: 'OR1' });
  });

  it("prefers the case's own recording of an identical request, so concurrent cases keep their accounts apart", async () => {
    const { transport } = createReplay(recording, { apiKey: 'demo-key' });
    const create = () =>
      new Request(`${BASE}/_sim/accounts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"balance":{"trx":"100"}}',
      });
    expect((await json(await transport(create(), CASE_B, ''))).apiKey).toBe('key-3');
    expect((await json(await transport(create(), CASE_A, ''))).apiKey).toBe('key-2');
  });

  it('uses aliases as keys, maps the run key to key-1 and any other key to the foreign alias', async () => {
    const { transport } = createReplay(recording, { apiKey: 'my-real-key' });
    expect((await json(await transport(get('/v1/account', 'key-2'), CASE_A, ''))).data).toEqual({
      who: 'account of key-2',
    });
    expect((await transport(get('/v1/tron/history?orderId=OR2', 'my-real-key'), CASE_A, '')).status).toBe(
      200,
    );
    const unknown = await transport(get('/v1/account', 'erk-contract-no-such-key'), CASE_A, '');
    expect(unknown.status).toBe(401);
  });

  it("serves health from the recording's target, so the suite sees its capabilities", async () => {
    const replay = createReplay(recording, { apiKey: 'demo-key' });
    const health = await json(await replay.transport(get('/_sim/health'), '(connect)', ''));
    expect(health).toMatchObject({
      simulator: 'energy-rental-kit',
      capabilities: ['clock', 'rules'],
      clock: 'manual',
    });
    expect(replay.info).toMatchObject({ kind: 'replay', simulator: true, capabilities: ['clock', 'rules'] });
    const opaque = createReplay(recordingOf([]), { apiKey: 'demo-key' });
    expect((await opaque.transport(get('/_sim/health'), '(connect)', '')).status).toBe(404);
  });

  it('answers an unmatched request with 501 and code 59900 naming the closest recorded request, and notes the miss', async () => {
    const onMiss = vi.fn();
    const replay = createReplay(recording, { apiKey: 'demo-key', onMiss });
    const response = await replay.transport(get('/v1/tron/history?orderId=OR9', 'demo-key'), CASE_A, '');
    expect(response.status).toBe(REPLAY_MISS_STATUS);
    const body = await json(response);
    expect(body).toMatchObject({ code: REPLAY_MISS_CODE, data: null, time: expect.stringMatching(/^\d+$/) });
    expect(body.msg).toMatch(
      /^No recorded interaction matches GET \/v1\/tron\/history\?orderId=OR9, API key key-1; the closest recorded request is GET \/v1\/tron\/history\?orderId=OR\d, API key key-1 .*differs in query orderId: "OR9" here, "OR\d" recorded/,
    );
    expect(onMiss).toHaveBeenCalledWith(body.msg);
    expect(replay.takeMisses(CASE_A)).toEqual([body.msg]);
    expect(replay.takeMisses(CASE_A)).toEqual([]);
  });

  it('names no key of a missed request, in its query, form or JSON body, whatever its field', async () => {
    const SECRET = 'sk_live_SECRET_0123456789';
    const onMiss = vi.fn();
    const replay = createReplay(recording, { apiKey: SECRET, onMiss });
    await replay.transport(
      get(`/v1/tron/history?orderId=OR9&api_key=${SECRET}&ref=${SECRET}`, SECRET),
      CASE_A,
      '',
    );
    const post = (body: string, type: string) =>
      new Request(`${BASE}/v1/tron/order`, {
        method: 'POST',
        headers: { 'API-KEY': SECRET, 'content-type': type },
        body,
      });
    await replay.transport(
      post(JSON.stringify({ password: 'hunter2_PASSWORD_x', note: SECRET }), 'application/json'),
      CASE_A,
      '',
    );
    await replay.transport(
      post(`token=${SECRET}&rentalCount=1`, 'application/x-www-form-urlencoded'),
      CASE_A,
      '',
    );
    await replay.transport(post(`{"apiKey":"sk_other_0123456789","x":[`, 'application/json'), CASE_A, '');
    expect(onMiss).toHaveBeenCalledTimes(4);
    for (const [message] of onMiss.mock.calls as [string][]) {
      expect(message).not.toContain(SECRET);
      expect(message).not.toContain('hunter2_PASSWORD_x');
      expect(message).not.toContain('sk_other_0123456789');
    }
  });

  it('names a different method or body in the closest request', async () => {
    const replay = createReplay(recording, { apiKey: 'demo-key' });
    const post = new Request(`${BASE}/v1/tron/order`, {
      method: 'POST',
      headers: { 'API-KEY': 'demo-key', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'period=1h&outOrderNo=erk-1',
    });
    const body = await json(await replay.transport(post, CASE_A, ''));
    expect(body.msg).toMatch(
      /closest recorded request is POST \/v1\/tron\/order, form outOrderNo=erk-1&period=10min, API key key-1 .*form period: "1h" here, "10min" recorded/,
    );
  });
});

describe('a replay across the two spellings of the API', () => {
  const account = (path: string) =>
    recordingOf([interaction(LIVE_CASE, { path, apiKeyAlias: 'key-1' }, { code: 0, data: { at: path } })]);

  it.each([
    ['/api/v1/account', '/v1/account'],
    ['/v1/account', '/api/v1/account'],
  ])('answers a request for %s from a recording of %s', async (recorded, asked) => {
    const replay = createReplay(account(recorded), { apiKey: 'demo-key' });
    const response = await replay.transport(get(asked, 'demo-key'), LIVE_CASE, LIVE_CASE);
    expect(response.status).toBe(200);
    expect((await json(response)).data).toEqual({ at: recorded });
  });

  it('still tells /api/v2 from /v1', async () => {
    const replay = createReplay(account('/v1/account'), { apiKey: 'demo-key' });
    expect((await replay.transport(get('/api/v2/account', 'demo-key'), LIVE_CASE, LIVE_CASE)).status).toBe(
      REPLAY_MISS_STATUS,
    );
  });
});

describe('the advice of a miss', () => {
  const price = (caseName: string) => interaction(caseName, { path: '/v1/tron/price' }, { code: 0 });

  it('tells a recording of live traffic to send the request through the recording proxy once', () => {
    const advice = missAdvice(recordingOf([]).target, true);
    expect(advice).toMatch(/live traffic a proxy forwarded to https:\/\/api\.example\.test\/api/);
    expect(advice).toContain('serve --upstream https://api.example.test/api --record FILE --record-append');
    expect(advice).not.toMatch(/energy-rental-kit record --/);
  });

  it("tells the suite's recording of a live service to record the suite at that URL, or the traffic through a proxy", () => {
    const advice = missAdvice(recordingOf([]).target, false);
    expect(advice).toContain("record --base-url https://api.example.test/api --api-key KEY --out FILE'");
    expect(advice).toContain('serve --upstream URL --record FILE');
  });

  it("tells the suite's recording of a simulator to record again or to run the simulator itself", () => {
    const advice = missAdvice(recording.target, false);
    expect(advice).toMatch(
      /recording of a simulator: .*'npx energy-rental-kit record --out FILE'.*'npx energy-rental-kit serve', without --replay/,
    );
  });

  it('ends the 501 of a miss with the advice of its recording', async () => {
    const replay = createReplay(recordingOf([price(LIVE_CASE)]), { apiKey: 'demo-key' });
    const body = await json(
      await replay.transport(get('/v1/tron/price?period=1h', 'demo-key'), LIVE_CASE, ''),
    );
    expect(body.msg?.endsWith(missAdvice(recordingOf([]).target, true))).toBe(true);
  });
});

describe.each(BUILDERS)('a large replay of %s', (_from, createReplay) => {
  it('answers a miss from its index, comparing a bounded number of recorded requests, and still names the closest', async () => {
    const interactions: Interaction[] = [];
    for (let i = 0; i < 100_000; i++)
      interactions.push(
        interaction(
          CASE_A,
          { path: '/v1/tron/price', query: { rentalCount: String(65_000 + i), period: i % 2 ? '1h' : '1d' } },
          { code: 0, data: { i } },
        ),
      );
    const replay = createReplay(recordingOf(interactions), { apiKey: 'demo-key' });
    const hit = await replay.transport(
      new Request(`${BASE}/v1/tron/price?rentalCount=65001&period=1h`),
      CASE_A,
      'x.contract.test.ts',
    );
    expect(((await hit.json()) as { data: { i: number } }).data.i).toBe(1);
    const miss = await replay.transport(
      new Request(`${BASE}/v1/tron/price?rentalCount=99999999&period=1h&extra=1`),
      CASE_A,
      'x.contract.test.ts',
    );
    expect(miss.status).toBe(REPLAY_MISS_STATUS);
    expect(replay.lastMissComparisons).toBeGreaterThan(0);
    expect(replay.lastMissComparisons).toBeLessThanOrEqual(
      CANDIDATES_PER_OPERATION + 3 * CANDIDATES_PER_VALUE,
    );
    expect(((await miss.json()) as { msg: string }).msg).toMatch(
      /closest recorded request is GET \/v1\/tron\/price\?rentalCount=65001&period=1h.*query extra: "1" here, absent recorded; query rentalCount: "99999999" here, "65001" recorded/,
    );
  });
});

describe('loadReplay', () => {
  it('serves a recording@1 document as createReplay serves it read whole', async () => {
    const fixture = 'fixtures/simulator-recording.json';
    const whole = createReplay(loadRecording(fixture), { apiKey: 'demo-key' });
    const read = loadReplay(fixture, fileLimit(64), { apiKey: 'demo-key', onWarning: () => {} });
    const account = () => get('/v1/account', 'demo-key');
    const [a, b] = await Promise.all([
      whole.transport(account(), CASE_A, ''),
      read.transport(account(), CASE_A, ''),
    ]);
    expect(b.status).toBe(a.status);
    expect(await b.json()).toEqual(await a.json());
    expect(read.info).toEqual(whole.info);
  });

  it('warns of a key in clear by its line and of a torn last line, and serves the lines before it', async () => {
    const file = path.join(scratch, 'keys.jsonl');
    const withKey = recordingOf([
      interaction(
        CASE_A,
        { path: '/v1/account', query: { api_key: 'sk_live_12345' } },
        { code: 0, data: null },
      ),
      history('OR1', 'PENDING'),
    ]);
    writeRecordingFile(file, withKey);
    writeFileSync(file, `${JSON.stringify(history('OR2', 'PENDING')).slice(0, 40)}`, { flag: 'a' });
    const warnings: string[] = [];
    const replay = loadReplay(file, fileLimit(64), {
      apiKey: 'demo-key',
      onWarning: (w) => warnings.push(w),
    });
    expect(warnings).toEqual([
      expect.stringMatching(/line 4 is cut short/),
      expect.stringMatching(/looks like an API key in clear at line 2 \/request\/query\/api_key;/),
    ]);
    expect(warnings.join('\n')).not.toContain('sk_live_12345');
    const response = await replay.transport(get('/v1/tron/history?orderId=OR1', 'demo-key'), CASE_A, '');
    expect((await json(response)).data!.status).toBe('PENDING');
  });
});
