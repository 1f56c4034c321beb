/** `serve --upstream` passing 100 MB answers on, or refusing them, while /_sim/health is polled. */
import { closeSync, existsSync, openSync, readFileSync, readSync, rmSync, statSync } from 'node:fs';
import { Agent, get } from 'node:http';
import { setPriority } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  fixedCommand,
  LOOP_DELAY_ARGS,
  simCommand,
  startServer,
  stopAll,
  TMP,
  type Server,
} from './servers.ts';

const MB = 1024 * 1024;
export const PRICE = '/v1/tron/price?rentalCount=65000&period=1h';

export interface BigCase {
  name: string;
  upstream: 'big' | 'json' | 'drip';
  flags: string[];
  requests: number;
  status: number;
  record?: boolean;
  /** The bound a test once held on the time to every answer, ms. */
  answerWithinMs?: number;
}

const WIDE = ['--upstream-max-bytes', String(100 * MB), '--upstream-timeout', '60000'];
const passed = (name: string, upstream: 'big' | 'json', record: boolean): BigCase => {
  return { name, upstream, flags: WIDE, requests: 1, status: 200, record };
};
/** Refused after `timeoutMs`: answered within a second more. */
const refused = (name: string, upstream: 'big' | 'drip', timeoutMs: number, requests: number): BigCase => {
  const [flags, status] = [['--upstream-timeout', String(timeoutMs)], upstream === 'big' ? 502 : 504];
  return { name, upstream, flags, requests, status, answerWithinMs: timeoutMs + 1000 };
};
export const BIG_CASES: BigCase[] = [
  passed('100 MB passed on', 'big', false),
  passed('100 MB passed on, --record', 'big', true),
  passed('100 MB of JSON passed on, --record', 'json', true),
  refused('six 100 MB over the cap (502)', 'big', 5000, 6),
  refused('a dripping answer (504)', 'drip', 1000, 1),
];

/** A GET's status and how many bytes its body held, counted as they come. */
function counted(url: string, agent?: Agent): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { 'API-KEY': 'demo-key' }, ...(agent ? { agent } : {}) }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.byteLength));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes })).on('error', reject);
    }).on('error', reject);
  });
}

type Hold = { maxMs: number; maxRunMs: number };

/** Ends the server's current loop-delay window (SIGUSR2): its longest hold, and the most CPU run within one, ms. */
async function loopWindow(server: Server, file: string, window: number): Promise<Hold> {
  process.kill(server.pid, 'SIGUSR2');
  for (let tries = 0; tries < 1000; tries++) {
    try {
      const written = JSON.parse(readFileSync(file, 'utf8')) as Hold & { window: number };
      if (written.window === window) return written;
    } catch {
      // Not written yet, or half-written: look again.
    }
    await sleep(10);
  }
  return { maxMs: NaN, maxRunMs: NaN };
}

/** Resolves once `file`, `before` bytes long, has grown by a whole line of over a megabyte. */
async function lineWritten(file: string, before: number): Promise<void> {
  const last = Buffer.alloc(1);
  for (;;) {
    const size = existsSync(file) ? statSync(file).size : 0;
    if (size > before + MB) {
      const fd = openSync(file, 'r');
      readSync(fd, last, 0, 1, size - 1);
      closeSync(fd);
      if (last[0] === 0x0a) return;
    }
    await sleep(20);
  }
}

/** Runs one case against `serve --upstream` of `root`: `await runBigCase(root, BIG_CASES[0]!)`. */
export async function runBigCase(root: string, c: BigCase) {
  const [loopFile, record] = [path.join(TMP, 'loop-delay.json'), path.join(TMP, 'big-record.jsonl')];
  rmSync(loopFile, { force: true });
  rmSync(record, { force: true });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const upstream = await startServer(`upstream-${c.upstream}`, fixedCommand(c.upstream));
    try {
      setPriority(upstream.pid, 10);
    } catch {
      // Not allowed here: the upstream then shares the machine as an equal.
    }
    const flags = [
      '--quiet',
      '--upstream',
      upstream.url,
      ...c.flags,
      ...(c.record ? ['--record', record] : []),
    ];
    const command = { ...simCommand(root, flags, LOOP_DELAY_ARGS), env: { BENCH_LOOP_FILE: loopFile } };
    const proxy = await startServer('proxy-big', command);
    await counted(`${proxy.url}${PRICE}`); // the upstream's small first answer: warms the proxy
    const before = existsSync(record) ? statSync(record).size : 0;
    await loopWindow(proxy, loopFile, 1);
    const polls: number[] = [];
    let over = false;
    const polling = (async () => {
      while (!over) {
        const began = performance.now();
        const { status } = await counted(`${proxy.url}/_sim/health`, agent);
        if (status !== 200) throw new Error(`/_sim/health answered ${status}`);
        polls.push(performance.now() - began);
        await sleep(5);
      }
    })();
    const began = performance.now();
    const answers = await Promise.all(
      Array.from({ length: c.requests }, () => counted(`${proxy.url}${PRICE}`)),
    );
    const answerMs = performance.now() - began;
    if (c.record) await lineWritten(record, before);
    const recordedMs = performance.now() - began;
    over = true;
    await polling;
    const wrong = answers.find((a) => a.status !== c.status || (c.status === 200 && a.bytes !== 100 * MB));
    return {
      answerMs,
      ...(c.record ? { recordedMs } : {}),
      healthMaxMs: Math.max(...polls),
      polls: polls.length,
      hold: await loopWindow(proxy, loopFile, 2),
      ...(wrong ? { problem: `an answer was ${wrong.status} with ${wrong.bytes} bytes` } : {}),
    };
  } finally {
    agent.destroy();
    await stopAll();
    rmSync(record, { force: true });
  }
}
