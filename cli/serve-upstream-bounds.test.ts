/**
 * The real CLI (`serve --upstream`) in front of an upstream that answers 100 MB, or drips:
 * the client gets its envelope, the process stays small, a recording holds the whole
 * answer, and the control plane answers meanwhile. Peak memory is the child's own high
 * water mark (VmHWM in /proc/<pid>/status), so Linux only. How long any of it takes is
 * `npm run bench -- --only big`'s (no test bounds real time).
 */
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, get } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { readRecordingFile } from '../recording/recording-lines.ts';
import { fileLimit } from '../src/bounded-file.ts';
import { startCli, type Cleanups } from './test-support.ts';

const cleanups: Cleanups = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

const MB = 1024 * 1024;
const PRICE = '/v1/tron/price?rentalCount=65000&period=1h';
const TIMEOUT_MS = 5000;
/** A key the upstream hands out in its JSON answer: it must never reach a recording. */
const SECRET = 'sk_live_0123456789abcdef';
/** One element of the JSON answer's array (as bench/fixed-servers.mjs writes it), and how many fill a megabyte. */
const JSON_ELEMENT = `{"id":1,"apiKey":"${SECRET}","note":"an element of a large answer"},`;
const JSON_ELEMENTS_PER_MB = Math.floor((MB - 64) / JSON_ELEMENT.length);

/**
 * The upstream, bench/fixed-servers.mjs in a process of its own. Its first answer is a small
 * JSON (it warms the proxy); then, by `mode`, 100 MB of spaces (every other answer declaring
 * its Content-Length), 100 MB of JSON whose every element is JSON_ELEMENT, or headers and
 * then a kilobyte every 20 ms.
 */
async function upstream(mode: 'big' | 'json' | 'drip'): Promise<string> {
  const script = fileURLToPath(new URL('../bench/fixed-servers.mjs', import.meta.url));
  const child = spawn(process.execPath, [script, mode, '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').once('data', (line: string) => resolve(line.trim()));
    child.once('exit', (code) => reject(new Error(`the upstream exited with ${code} before listening`)));
  });
  return `http://127.0.0.1:${port}`;
}

/** Resolves once a file that was `before` bytes long has grown by a whole line of over a megabyte. */
async function lineWritten(file: string, before: number): Promise<void> {
  for (;;) {
    const size = statSizeOf(file);
    if (size > before + MB && lastByteOf(file, size) === 0x0a) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The byte at the end of a file `size` long. */
function lastByteOf(file: string, size: number): number {
  const fd = openSync(file, 'r');
  try {
    const byte = Buffer.alloc(1);
    readSync(fd, byte, 0, 1, size - 1);
    return byte[0]!;
  } finally {
    closeSync(fd);
  }
}

/** The size of a file, 0 while there is none. */
function statSizeOf(file: string): number {
  return existsSync(file) ? statSync(file).size : 0;
}

/** The child's peak resident set, MB. */
function peakRssMb(pid: number): number {
  const kb = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) / 1024;
}

/** Starts `serve --upstream` in front of `upstreamUrl`, with `flags`. */
function startProxy(upstreamUrl: string, flags: string[]): Promise<{ child: ChildProcess; url: string }> {
  return startCli(['serve', '--port', '0', '--upstream', upstreamUrl, ...flags], cleanups);
}

/**
 * Polls /_sim/health while `during` runs (started after the first poll, so that the polls
 * already run when the load begins), each poll on a kept-alive connection of its own and
 * answered 200; `during`'s result.
 */
async function whilePolling<T>(url: string, during: () => Promise<T>): Promise<T> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  cleanups.push(() => agent.destroy());
  const poll = async (): Promise<void> => {
    const status = await new Promise<number | undefined>((resolve, reject) => {
      get(`${url}/_sim/health`, { agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
      }).on('error', reject);
    });
    expect(status).toBe(200);
  };
  await poll();
  let over = false;
  const load = during().finally(() => (over = true));
  while (!over) {
    await poll();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return load;
}

/** The status of a GET and how many bytes its body held, counted as they come (not joined: 100 MB). */
function countedAnswer(url: string): Promise<{ status: number | undefined; bytes: number }> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { 'API-KEY': 'live-key' } }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.byteLength));
      res.on('end', () => resolve({ status: res.statusCode, bytes }));
      res.on('error', reject);
    }).on('error', reject);
  });
}

async function envelope(url: string): Promise<{ status: number; body: { code: number; msg: string } }> {
  const res = await fetch(`${url}${PRICE}`, { headers: { 'API-KEY': 'live-key' } });
  return { status: res.status, body: (await res.json()) as { code: number; msg: string } };
}

/** Room for 100 MB to pass on a machine of two cores shared with other work: a hang guard, not a bound. */
const LARGE = { timeout: 180_000 };

describe.skipIf(!existsSync('/proc/self/status'))(
  'serve --upstream in front of an upstream that answers too much or too slowly',
  () => {
    it(
      'answers six 100 MB answers at once with the 502 envelope, under 300 MB of RSS, health answering meanwhile',
      LARGE,
      async () => {
        const url = await upstream('big');
        const { child, url: proxy } = await startProxy(url, ['--upstream-timeout', String(TIMEOUT_MS)]);
        await envelope(proxy);
        const replies = await whilePolling(proxy, () =>
          Promise.all(Array.from({ length: 6 }, () => envelope(proxy))),
        );
        for (const reply of replies) {
          expect(reply.status).toBe(502);
          expect(reply.body).toMatchObject({
            code: 50200,
            msg: expect.stringContaining('--upstream-max-bytes'),
          });
        }
        expect(peakRssMb(child.pid!)).toBeLessThan(300);
      },
    );

    it(
      'keeps the cap while recording: --record reads no more of an answer than --upstream-max-bytes',
      LARGE,
      async () => {
        const url = await upstream('big');
        const record = join(mkdtempSync(join(tmpdir(), 'erk-bounds-')), 'live.json');
        cleanups.push(() => rmSync(dirname(record), { recursive: true, force: true }));
        const { child, url: proxy } = await startProxy(url, [
          '--record',
          record,
          '--upstream-max-bytes',
          String(MB),
        ]);
        await envelope(proxy);
        const replies = await Promise.all(Array.from({ length: 6 }, () => envelope(proxy)));
        for (const reply of replies) {
          expect(reply.status).toBe(502);
          expect(reply.body.msg).toMatch(/over --upstream-max-bytes 1048576/);
        }
        expect(peakRssMb(child.pid!)).toBeLessThan(300);
      },
    );

    it.each([
      ['a text (spaces)', 'big'],
      ['a JSON whose every element holds a key', 'json'],
    ] as const)(
      'records a 100 MB answer passed on at --upstream-max-bytes, %s, as one whole line, health answering meanwhile',
      LARGE,
      async (_kind, mode) => {
        const url = await upstream(mode);
        const record = join(mkdtempSync(join(tmpdir(), 'erk-bounds-')), 'live.jsonl');
        cleanups.push(() => rmSync(dirname(record), { recursive: true, force: true }));
        const { url: proxy } = await startProxy(url, [
          '--upstream-max-bytes',
          String(100 * MB),
          '--upstream-timeout',
          '60000',
          '--record',
          record,
        ]);
        await envelope(proxy);
        const recorded = statSizeOf(record);
        const status = await whilePolling(proxy, async () => {
          const { status, bytes } = await countedAnswer(`${proxy}${PRICE}`);
          expect(bytes).toBe(100 * MB);
          // The answer is passed on; its line is written after, and the polls go on meanwhile.
          await lineWritten(record, recorded);
          return status;
        });
        expect(status).toBe(200);
        const { recording: read } = readRecordingFile(record, fileLimit(200), () => {});
        const response = read.interactions.at(-1)!.response!;
        if (mode === 'big') expect(response.text).toHaveLength(100 * MB);
        else {
          // Recorded as its JSON, without its white space, each element's key given one alias.
          const data = (response.body as { data: { id: number; apiKey?: string }[] }).data;
          expect(data).toHaveLength(100 * JSON_ELEMENTS_PER_MB + 1);
          const aliases = [...new Set(data.slice(0, -1).map((element) => element.apiKey))];
          expect(aliases).toEqual([expect.stringMatching(/^key-\d+$/)]);
          expect(readFileSync(record, 'utf8')).not.toContain(SECRET);
        }
      },
    );

    it(
      'answers an upstream that sends its headers and then drips the body with the 504 envelope',
      LARGE,
      async () => {
        const url = await upstream('drip');
        const { url: proxy } = await startProxy(url, ['--upstream-timeout', '1000']);
        await envelope(proxy);
        const reply = await whilePolling(proxy, () => envelope(proxy));
        expect(reply.status).toBe(504);
        expect(reply.body.msg).toContain('did not answer within 1000 ms (--upstream-timeout)');
      },
    );
  },
);
