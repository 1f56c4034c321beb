/**
 * `serve --upstream URL --record FILE`, then `serve --replay FILE`, then `drift` on it:
 * live traffic becomes a recording that replays offline and compares like a suite's.
 */
import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDrift } from '../drift/drift-command.ts';
import { readRecordingFile } from '../recording/recording-lines.ts';
import { loadRecording } from '../recording/recording.ts';
import { baseline } from '../recording/test-support.ts';
import { fileLimit } from '../src/bounded-file.ts';
import { parseServeArgs, serve, type ServeOptions } from './serve.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'serve-record-replay-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const KEY = { 'API-KEY': 'demo-key' };
const FORM = { ...KEY, 'content-type': 'application/x-www-form-urlencoded' };
const ORDER =
  'pledgeAddress=TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3&rentalCount=65000&period=1h&outOrderNo=live-1';

/** The traffic an app sends: each answer as text, in order. */
async function traffic(base: string): Promise<string[]> {
  const answers: string[] = [];
  answers.push(await answer(`${base}/v1/tron/price?rentalCount=65000&period=1h`, { headers: KEY }));
  answers.push(await answer(`${base}/v1/account`, { headers: KEY }));
  answers.push(await answer(`${base}/v1/tron/order`, { method: 'POST', headers: FORM, body: ORDER }));
  answers.push(await answer(`${base}/v1/tron/history?outOrderNo=live-1`, { headers: KEY }));
  answers.push(await answer(`${base}/v1/account`, { headers: { 'API-KEY': 'not-a-key' } }));
  return answers;
}

async function answer(url: string, init: RequestInit): Promise<string> {
  const res = await fetch(url, init);
  return `${res.status} ${res.headers.get('content-type')} ${await res.text()}`;
}

describe('serve --record, then --replay, then drift', () => {
  const file = path.join(dir, 'live.json');
  let live: string[] = [];

  it('records the traffic through the proxy, with no API key in the file', async () => {
    const upstream = await serve(
      { port: 0, host: '127.0.0.1', clock: 'manual', timing: 'instant', quiet: true },
      () => {},
    );
    const proxy = await serve(
      { port: 0, host: '127.0.0.1', upstream: upstream.url, allowSpend: true, record: file, quiet: true },
      () => {},
    );
    try {
      live = await traffic(proxy.url);
    } finally {
      await proxy.close();
      await upstream.close();
    }
    expect(existsSync(file)).toBe(true);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('demo-key');
    expect(text).not.toContain('not-a-key');
    expect(JSON.parse(text.split('\n')[0]!)).toMatchObject({ format: 'energy-rental-kit/recording@2' });
    const recording = loadRecording(file);
    expect(recording.format).toBe('energy-rental-kit/recording@2');
    expect(recording.interactions.map((i) => i.operation)).toEqual([
      'getPrice',
      'getAccount',
      'createOrder',
      'getOrderHistory',
      'getAccount',
    ]);
    expect(new Set(recording.interactions.map((i) => i.request.apiKeyAlias)).size).toBe(2);
  }, 60_000);

  it('answers the same traffic from the recording alone, and names the closest recorded request for one it never saw', async () => {
    const lines: string[] = [];
    const replay = await serve({ port: 0, host: '127.0.0.1', replay: file, quiet: false }, (line) =>
      lines.push(line),
    );
    try {
      expect(await traffic(replay.url)).toEqual(live);
      const miss = await fetch(`${replay.url}/v1/tron/price?rentalCount=70000&period=1h`, { headers: KEY });
      expect(miss.status).toBe(501);
      const body = (await miss.json()) as { code: number; msg: string };
      expect(body.code).toBe(59900);
      expect(body.msg).toMatch(
        /closest recorded request is GET \/v1\/tron\/price.*query rentalCount: "70000" here, "65000" recorded/,
      );
      const health = (await (await fetch(`${replay.url}/_sim/health`)).json()) as {
        mode: string;
        proxy: { upstream: string };
      };
      expect(health).toMatchObject({ mode: 'replay', proxy: { upstream: file } });
      expect(lines[0]).toMatch(/^energy-rental-kit replay listening on /);
      const banner = lines.join('\n');
      expect(banner).toContain(`answers from: ${file}`);
      expect(banner).toContain("API key: key-1, the recording's alias of the key it was made with");
      expect(banner).not.toMatch(/clock (real|manual), timing|seed \d|<API_KEY>/);
    } finally {
      await replay.close();
    }
  }, 60_000);

  it('serves a crafted recording under the header rules of the proxy: no cookie, one length, a foreign page sandboxed', async () => {
    const [header, ...interactions] = readFileSync(file, 'utf8').trimEnd().split('\n');
    const account = interactions
      .map((line) => JSON.parse(line) as { request: { method: string; path: string }; response: object })
      .find((x) => x.request.method === 'GET' && x.request.path === '/v1/account')!;
    account.response = {
      status: 200,
      headers: {
        'content-type': 'text/html',
        'set-cookie': 'sid=1; Path=/',
        'content-length': '3',
        'transfer-encoding': 'chunked',
        'content-encoding': 'gzip',
      },
      text: '<script>fetch("/_sim/reset",{method:"POST"})</script>',
    };
    const crafted = path.join(dir, 'crafted.json');
    writeFileSync(crafted, `${header}\n${JSON.stringify(account)}\n`);
    const replay = await serve({ port: 0, host: '127.0.0.1', replay: crafted, quiet: true }, () => {});
    try {
      const res = await fetch(`${replay.url}/v1/account`, { headers: KEY });
      expect(await res.text()).toBe('<script>fetch("/_sim/reset",{method:"POST"})</script>');
      expect(Object.fromEntries(res.headers)).toMatchObject({
        'content-type': 'text/html',
        'content-security-policy': 'sandbox',
        'x-content-type-options': 'nosniff',
      });
      expect(res.headers.has('set-cookie')).toBe(false);
      expect(res.headers.has('content-encoding')).toBe(false);
      expect(res.headers.has('content-length') && res.headers.has('transfer-encoding')).toBe(false);
    } finally {
      await replay.close();
    }
  }, 60_000);

  it('lets drift compare the recording with itself and with the spec', async () => {
    let out = '';
    expect(await runDrift([file, file], { write: (text) => void (out += text) })).toBe(0);
    expect(await runDrift(['--spec', file], { write: (text) => void (out += text) })).toBe(0);
  }, 60_000);
});

describe('a replayed order that moves', () => {
  it('answers the history of one order in its recorded order: PENDING, then COMPLETED', async () => {
    const file = path.join(dir, 'moving.json');
    const upstream = await serve(
      { port: 0, host: '127.0.0.1', clock: 'manual', timing: 'realistic', quiet: true },
      () => {},
    );
    const proxy = await serve(
      { port: 0, host: '127.0.0.1', upstream: upstream.url, allowSpend: true, record: file, quiet: true },
      () => {},
    );
    const status = async (base: string) =>
      (
        (await (await fetch(`${base}/v1/tron/history?outOrderNo=live-1`, { headers: KEY })).json()) as {
          data: { status: string };
        }
      ).data.status;
    try {
      await fetch(`${proxy.url}/v1/tron/order`, { method: 'POST', headers: FORM, body: ORDER });
      expect(await status(proxy.url)).toBe('PENDING');
      await fetch(`${upstream.url}/_sim/clock/advance`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"ms":60000}',
      });
      expect(await status(proxy.url)).toBe('COMPLETED');
    } finally {
      await proxy.close();
      await upstream.close();
    }
    const replay = await serve({ port: 0, host: '127.0.0.1', replay: file, quiet: true }, () => {});
    try {
      await fetch(`${replay.url}/v1/tron/order`, { method: 'POST', headers: FORM, body: ORDER });
      expect([await status(replay.url), await status(replay.url), await status(replay.url)]).toEqual([
        'PENDING',
        'COMPLETED',
        'COMPLETED',
      ]);
    } finally {
      await replay.close();
    }
  }, 60_000);
});

describe('serve --record while it runs', () => {
  it('writes the recording while traffic comes, not only on exit', async () => {
    const file = path.join(dir, 'running.json');
    const upstream = await serve(
      { port: 0, host: '127.0.0.1', clock: 'manual', timing: 'instant', quiet: true },
      () => {},
    );
    const proxy = await serve(
      { port: 0, host: '127.0.0.1', upstream: upstream.url, record: file, quiet: true },
      () => {},
    );
    try {
      await fetch(`${proxy.url}/v1/account`, { headers: KEY });
      // Appended as the exchange ends; the 10 s bound only keeps a stuck run from hanging.
      const lines = () => readFileSync(file, 'utf8').split('\n').filter(Boolean).length;
      for (let waited = 0; lines() < 2 && waited < 10_000; waited += 50)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(lines()).toBe(2);
    } finally {
      await proxy.close();
      await upstream.close();
    }
  }, 60_000);
});

describe('serve --record on a symlink', () => {
  it('writes through the link onto the file it names, leaving the link a link', async () => {
    const file = path.join(dir, 'linked-target.json');
    const link = path.join(dir, 'linked.json');
    symlinkSync('linked-target.json', link);
    const upstream = await serve(
      { port: 0, host: '127.0.0.1', clock: 'manual', timing: 'instant', quiet: true },
      () => {},
    );
    const proxy = await serve(
      { port: 0, host: '127.0.0.1', upstream: upstream.url, record: link, quiet: true },
      () => {},
    );
    try {
      await fetch(`${proxy.url}/v1/account`, { headers: KEY });
    } finally {
      await proxy.close();
      await upstream.close();
    }
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe('linked-target.json');
    expect(loadRecording(file).interactions).toHaveLength(1);
  });

  it('refuses a recording path that names a pipe or a device, before anything is written over it', async () => {
    const fifo = path.join(dir, 'record-pipe');
    execFileSync('mkfifo', [fifo]);
    await expect(
      serve(
        { port: 0, host: '127.0.0.1', upstream: 'http://127.0.0.1:9', record: fifo, quiet: true },
        () => {},
      ),
    ).rejects.toThrow(
      `--record: '${fifo}' is not a regular file (a named pipe); pass the path of a file to write the recording to.`,
    );
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });
});

describe('serve --replay with a file that is no recording', () => {
  it('refuses to start, naming the flag, the file and how to make one', async () => {
    await expect(
      serve({ port: 0, host: '127.0.0.1', replay: path.join(dir, 'missing.json'), quiet: true }, () => {}),
    ).rejects.toThrow(
      /--replay: cannot read the recording '.*missing\.json'.*Make one with 'energy-rental-kit record --out/,
    );
  });
});

describe('serve --record onto a file that is there', () => {
  // One upstream for every run: a recording is continued only from the upstream it holds.
  let upstream: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    upstream = await serve(
      { port: 0, host: '127.0.0.1', clock: 'manual', timing: 'instant', quiet: true },
      () => {},
    );
  });
  afterAll(() => upstream.close());
  /** One proxied call recorded into `file`; the lines the server logged. */
  const record = async (file: string, extra: Partial<ServeOptions> = {}): Promise<string[]> => {
    const lines: string[] = [];
    const proxy = await serve(
      { port: 0, host: '127.0.0.1', upstream: upstream.url, record: file, quiet: true, ...extra },
      (line) => lines.push(line),
    );
    try {
      await fetch(`${proxy.url}/v1/account`, { headers: KEY });
    } finally {
      await proxy.close();
    }
    return lines;
  };
  const interactions = (file: string): number => readFileSync(file, 'utf8').trimEnd().split('\n').length - 1;

  it('refuses to start, naming --record, the file and the two ways out, and leaves the file as it was', async () => {
    const file = path.join(dir, 'again.jsonl');
    await record(file);
    const before = readFileSync(file, 'utf8');
    await expect(record(file)).rejects.toThrow(
      `--record: '${file}' is there already; add --record-append to continue the recording it holds, or --record-overwrite to replace it (or record to another file).`,
    );
    expect(readFileSync(file, 'utf8')).toBe(before);
  }, 60_000);

  it('continues it with --record-append, and replaces it with --record-overwrite', async () => {
    const file = path.join(dir, 'continued.jsonl');
    await record(file);
    const appending = await record(file, { recordMode: 'append', quiet: false });
    expect(interactions(file)).toBe(2);
    expect(appending.join('\n')).toContain('continuing its 1 interaction)');
    await record(file, { recordMode: 'overwrite' });
    expect(interactions(file)).toBe(1);
  }, 60_000);

  it('cuts a last line left torn before appending, so the file reads whole', async () => {
    const file = path.join(dir, 'torn.jsonl');
    await record(file);
    appendFileSync(file, '{"case":"(live traffic)","fi');
    await record(file, { recordMode: 'append' });
    expect(interactions(file)).toBe(2);
    expect(readRecordingFile(file, fileLimit(1), () => {}).recording.interactions).toHaveLength(2);
  }, 60_000);

  it('refuses to append to a recording@1 file, saying it cannot be appended to', async () => {
    const file = path.join(dir, 'old.json');
    writeFileSync(file, JSON.stringify({ ...baseline(), format: 'energy-rental-kit/recording@1' }));
    await expect(record(file, { recordMode: 'append' })).rejects.toThrow(
      /^--record with --record-append: '.*old\.json' is a energy-rental-kit\/recording@1 file, one JSON document, which cannot be appended to; replace it \(--record-overwrite\), or record to another file\.$/,
    );
  }, 60_000);
});

describe('serve --record-append and --record-overwrite on the command line', () => {
  it('exclude each other, and need --record', () => {
    const upstream = ['--upstream', 'http://127.0.0.1:9'];
    expect(() =>
      parseServeArgs([...upstream, '--record', 'x.jsonl', '--record-append', '--record-overwrite'], {}),
    ).toThrow('--record-append and --record-overwrite exclude each other');
    expect(() => parseServeArgs([...upstream, '--record-append'], {})).toThrow(
      '--record-append says what --record does with a file that is there: add --record FILE, or leave it out.',
    );
    expect(
      parseServeArgs([...upstream, '--record', 'x.jsonl'], { ENERGY_SIM_RECORD_OVERWRITE: '1' }),
    ).toMatchObject({
      record: 'x.jsonl',
      recordMode: 'overwrite',
    });
  });
});
