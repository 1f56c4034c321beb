/**
 * The real CLI (`serve --upstream`) in front of an upstream that answers 100 MB, or drips:
 * the client gets its envelope within `--upstream-timeout` + 1 s, the process stays small,
 * and the control plane stays responsive meanwhile. Peak memory is the child's own high
 * water mark (VmHWM in /proc/<pid>/status), so Linux only.
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
import { setPriority, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, get } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { readRecordingFile } from '../recording/recording.ts';
import { fileLimit } from '../src/bounded-file.ts';
import { describeHolds, loopHoldsEnv, settledHolds } from '../mock/test-support/loop-holds.ts';
import { timedLessStalls } from '../mock/test-support/loop-stalls.ts';
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
/** One element of the JSON answer's array, and how many fill a megabyte (with room for the envelope). */
const JSON_ELEMENT = `{"id":1,"apiKey":"${SECRET}","note":"an element of a large answer"},`;
const JSON_ELEMENTS_PER_MB = Math.floor((MB - 64) / JSON_ELEMENT.length);

/**
 * The upstream, in a process of its own so that its writing never delays the health polls
 * measured here. Its first answer is a small JSON (it warms the proxy: Node loads its fetch
 * and web-stream internals on first use); then, by
 * `mode`, 100 MB streamed from one reused 1 MB block of spaces (every other answer
 * declaring its Content-Length), 100 MB of JSON whose every element holds a secret-named
 * field (SECRET), or headers and then a kilobyte every 20 ms.
 */
const UPSTREAM = `
const { createServer } = require('node:http');
const mode = process.argv[1];
let block = Buffer.alloc(1024 * 1024, 0x20);
if (mode === 'json') block = (n) => {
  const out = Buffer.alloc(1024 * 1024, 0x20);
  const elements = ${JSON.stringify(JSON_ELEMENT)}.repeat(${JSON_ELEMENTS_PER_MB});
  out.write((n === 0 ? '{"code":0,"msg":"large","data":[' : '') + elements + (n === 99 ? '{"id":0}]}' : ''));
  return out;
};
let index = 0;
const server = createServer((req, res) => {
  res.on('error', () => {});
  const n = index++;
  if (n === 0) {
    res.writeHead(200, { 'content-type': 'application/json' });
    return void res.end('{"code":0,"msg":"warm","time":"1","data":null}');
  }
  if (mode === 'drip') {
    res.writeHead(200, { 'content-type': 'application/json' });
    const timer = setInterval(() => res.write(block.subarray(0, 1024)), 20);
    return void res.once('close', () => clearInterval(timer));
  }
  res.writeHead(200, { 'content-type': 'application/json', ...(n % 2 === 0 ? { 'content-length': String(100 * block.length) } : {}) });
  let sent = 0;
  const pump = () => {
    while (sent < 100 && !res.destroyed) {
      const next = typeof block === 'function' ? block(sent) : block;
      sent++;
      if (!res.write(next)) return void res.once('drain', pump);
    }
    if (!res.destroyed) res.end();
  };
  pump();
});
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
`;

async function upstream(mode: 'hundred-megabytes' | 'json' | 'drip'): Promise<string> {
  const child = spawn(process.execPath, ['-e', UPSTREAM, mode], { stdio: ['ignore', 'pipe', 'inherit'] });
  // It stands in for a server on another machine: its writing of 100 MB takes a core from
  // the proxy only when the proxy leaves one (on two cores it held the proxy's event loop
  // waiting for a core 13-60 ms at a time, which a real upstream never does).
  try {
    setPriority(child.pid!, 10);
  } catch {
    // Not allowed here: the upstream then shares the machine as an equal.
  }
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').once('data', (line: string) => resolve(line.trim()));
    child.once('exit', (code) => reject(new Error(`the upstream exited with ${code} before listening`)));
  });
  return `http://127.0.0.1:${port}`;
}

/** Resolves once a file that was `before` bytes long has grown by a whole line (30 s at most). */
async function lineWritten(file: string, before: number): Promise<void> {
  for (let waited = 0; waited < 30_000; waited += 20) {
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

/**
 * Starts `serve --upstream` in front of `upstreamUrl`, with `flags`, its event loop's holds
 * recorded (loop-holds-preload.mjs), so that a slow poll is told with what held the server
 * meanwhile: its code running, a core it waited for, or the garbage collector. `holdsSince`
 * takes an epoch ms (whilePolling's `since`).
 */
async function startProxy(
  upstreamUrl: string,
  flags: string[],
): Promise<{ child: ChildProcess; url: string; holdsSince: (since: number) => Promise<string> }> {
  const file = join(mkdtempSync(join(tmpdir(), 'erk-holds-')), 'holds.jsonl');
  cleanups.push(() => rmSync(dirname(file), { recursive: true, force: true }));
  const { child, url } = await startCli(
    ['serve', '--port', '0', '--upstream', upstreamUrl, ...flags],
    cleanups,
    undefined,
    loopHoldsEnv(file),
  );
  return { child, url, holdsSince: async (since) => describeHolds(await settledHolds(file, since)) };
}

/**
 * Polls /_sim/health while `during` runs (started after the first poll, so that the polls
 * already run when the load begins); `during`'s result and the latency of every poll that
 * overlapped it, ms. The polls have a kept-alive connection of their own: sharing the
 * global fetch's pool with the load, a poll would wait for a connection of the test's own
 * making. A poll's latency is the server's: the time this process itself could not run
 * meanwhile (reading the 100 MB beside the polls, or descheduled) is taken off
 * (loop-stalls.ts); a server that holds its loop still keeps this process waiting, idle.
 * Also gives when the load began (epoch ms), for the server's holds since.
 */
async function whilePolling<T>(url: string, during: () => Promise<T>): Promise<[T, number[], number]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  cleanups.push(() => agent.destroy());
  const poll = async (): Promise<number> => {
    const {
      result: status,
      ms,
      stalledMs,
    } = await timedLessStalls(
      () =>
        new Promise<number | undefined>((resolve, reject) => {
          get(`${url}/_sim/health`, { agent }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode));
          }).on('error', reject);
        }),
    );
    expect(status).toBe(200);
    return ms - stalledMs;
  };
  await poll();
  const since = Date.now();
  let over = false;
  const load = during().finally(() => (over = true));
  const latencies: number[] = [];
  // The helper waits a timer period after each poll: the polls' pace.
  while (!over) latencies.push(await poll());
  return [await load, latencies, since];
}

/**
 * The status of a GET and how many bytes its body held, counted as they come: joined, 100
 * MB would stall this process's own polls. Through node:http, not fetch: reading 100 MB
 * through fetch's web streams took this process four times the CPU (about 280 ms against 70
 * on two shared cores), a core the server under test then waited for.
 */
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

async function envelope(
  url: string,
): Promise<{ status: number; body: { code: number; msg: string }; ms: number }> {
  const started = performance.now();
  const res = await fetch(`${url}${PRICE}`, { headers: { 'API-KEY': 'live-key' } });
  const body = (await res.json()) as { code: number; msg: string };
  return { status: res.status, body, ms: performance.now() - started };
}

/**
 * The tests that hold wall-clock figures. Two shared cores, with other test files running
 * beside these, can delay one poll past 100 ms by scheduling alone; what these tests guard
 * against (an event loop stalled for seconds, a gigabyte of RSS) fails every attempt.
 */
const TIMED = { timeout: 60_000, retry: 2 };

describe.skipIf(!existsSync('/proc/self/status'))(
  'serve --upstream in front of an upstream that answers too much or too slowly',
  () => {
    it(
      'answers six 100 MB answers at once with the 502 envelope within --upstream-timeout + 1 s, under 300 MB of RSS, health under 100 ms',
      TIMED,
      async () => {
        const url = await upstream('hundred-megabytes');
        const {
          child,
          url: proxy,
          holdsSince,
        } = await startProxy(url, ['--upstream-timeout', String(TIMEOUT_MS)]);
        await envelope(proxy);
        let elapsed = 0;
        const [replies, latencies, since] = await whilePolling(proxy, async () => {
          const started = performance.now();
          const all = await Promise.all(Array.from({ length: 6 }, () => envelope(proxy)));
          elapsed = performance.now() - started;
          return all;
        });
        const rss = peakRssMb(child.pid!);
        const slowest = Math.max(...latencies);
        const held = await holdsSince(since);
        console.info(
          `six 100 MB answers: all envelopes in ${elapsed.toFixed(0)} ms (slowest ${Math.max(...replies.map((r) => r.ms)).toFixed(0)} ms); peak RSS ${rss.toFixed(0)} MB; health max ${slowest.toFixed(1)} ms (${held}) over ${latencies.length} polls (${latencies.map((l) => l.toFixed(0)).join(' ')})`,
        );
        for (const reply of replies) {
          expect(reply.status).toBe(502);
          expect(reply.body).toMatchObject({
            code: 50200,
            msg: expect.stringContaining('--upstream-max-bytes'),
          });
        }
        expect(elapsed).toBeLessThan(TIMEOUT_MS + 1000);
        expect(rss).toBeLessThan(300);
        expect(slowest, held).toBeLessThan(100);
      },
    );

    it(
      'keeps the cap while recording: --record reads no more of an answer than --upstream-max-bytes',
      { timeout: 60_000 },
      async () => {
        const url = await upstream('hundred-megabytes');
        const record = join(mkdtempSync(join(tmpdir(), 'erk-bounds-')), 'live.json');
        cleanups.push(() => rmSync(dirname(record), { recursive: true, force: true }));
        const { child, url: proxy } = await startCli(
          ['serve', '--port', '0', '--upstream', url, '--record', record, '--upstream-max-bytes', String(MB)],
          cleanups,
        );
        await envelope(proxy);
        const replies = await Promise.all(Array.from({ length: 6 }, () => envelope(proxy)));
        const rss = peakRssMb(child.pid!);
        console.info(`six 100 MB answers recorded: peak RSS ${rss.toFixed(0)} MB`);
        for (const reply of replies) {
          expect(reply.status).toBe(502);
          expect(reply.body.msg).toMatch(/over --upstream-max-bytes 1048576/);
        }
        expect(rss).toBeLessThan(300);
      },
    );

    // Why no poll waits 100 ms, though the answer is 100 MB and the work on it takes
    // seconds: no step of it holds the event loop for more than a few milliseconds. The
    // proxy joins the answer's chunks a few megabytes per turn (joinChunks) and, over its
    // check limit, neither parses nor checks it; the recorder reads it beside the proxy as
    // the chunks that arrive, then decodes, tokenises and scrubs it in slices of about 5 ms
    // with a turn between two (recording/large-answer.ts), and writes its line a quarter
    // megabyte at a time, each waiting for the file to drain; the proxy writes the answer
    // to its client a megabyte per turn. Measured in the server with CPU time per event-loop
    // gap, the longest such step was 15-35 ms on a loaded machine, 25-58 ms on a slower one
    // (plus 13-60 ms waiting for a core, before the upstream ran at a lower priority and this
    // test read through node:http); what is left of a slow poll is scheduling, which TIMED's
    // retries absorb.
    it.each([
      ['a text (spaces)', 'hundred-megabytes'],
      ['a JSON whose every element holds a key', 'json'],
    ] as const)(
      'records a 100 MB answer passed on at --upstream-max-bytes, %s, as one whole line with no health poll over 100 ms',
      TIMED,
      async (_kind, mode) => {
        const url = await upstream(mode);
        const record = join(mkdtempSync(join(tmpdir(), 'erk-bounds-')), 'live.jsonl');
        cleanups.push(() => rmSync(dirname(record), { recursive: true, force: true }));
        const {
          child,
          url: proxy,
          holdsSince,
        } = await startProxy(url, [
          '--upstream-max-bytes',
          String(100 * MB),
          '--upstream-timeout',
          '60000',
          '--record',
          record,
        ]);
        await envelope(proxy);
        const recorded = statSizeOf(record);
        const [status, latencies, since] = await whilePolling(proxy, async () => {
          const { status, bytes } = await countedAnswer(`${proxy}${PRICE}`);
          expect(bytes).toBe(100 * MB);
          // The answer is passed on; its line is written after, and the polls go on meanwhile.
          await lineWritten(record, recorded);
          return status;
        });
        const slowest = Math.max(...latencies);
        const held = await holdsSince(since);
        console.info(
          `a 100 MB ${mode} answer passed on and recorded: peak RSS ${peakRssMb(child.pid!).toFixed(0)} MB; health max ${slowest.toFixed(1)} ms (${held}) over ${latencies.length} polls (${latencies.map((l) => l.toFixed(0)).join(' ')})`,
        );
        expect(status).toBe(200);
        expect(slowest, held).toBeLessThan(100);
        const { recording: read } = readRecordingFile(record, fileLimit(200), () => {});
        const response = read.interactions.at(-1)!.response!;
        if (mode === 'hundred-megabytes') expect(response.text).toHaveLength(100 * MB);
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
      'answers an upstream that sends its headers and then drips the body with the 504 envelope within --upstream-timeout + 1 s',
      TIMED,
      async () => {
        const url = await upstream('drip');
        const { child, url: proxy, holdsSince } = await startProxy(url, ['--upstream-timeout', '1000']);
        await envelope(proxy);
        const [reply, latencies, since] = await whilePolling(proxy, () => envelope(proxy));
        const held = await holdsSince(since);
        console.info(
          `a dripped answer: envelope in ${reply.ms.toFixed(0)} ms; peak RSS ${peakRssMb(child.pid!).toFixed(0)} MB; health max ${Math.max(...latencies).toFixed(1)} ms (${held})`,
        );
        expect(reply.status).toBe(504);
        expect(reply.body.msg).toContain('did not answer within 1000 ms (--upstream-timeout)');
        expect(reply.ms).toBeLessThan(1000 + 1000);
        expect(Math.max(...latencies), held).toBeLessThan(100);
      },
    );
  },
);
