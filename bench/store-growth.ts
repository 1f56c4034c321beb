/**
 * History lookups as the store grows, and memory per stored order.
 *
 * One child process per store size (10^3 … 10^6 orders), each started with
 * `node --expose-gc --import tsx bench/store-growth.ts --child …`. Each builds one
 * in-process simulator (manual clock, instant timing, an account with 10^9 TRX), fills it
 * through `engine.createOrder` (every order with an outOrderNo), warms up, and then
 * measures on command, on orders picked at random from its whole store:
 *
 * - history lookups through the HTTP stack in-process (`sim.app.request`), by orderId
 *   and by outOrderNo: what a client sees, minus the socket;
 * - `engine.findOrder` alone, by orderId and by outOrderNo.
 *
 * The parent asks the children in turn (10^3, 10^4, …, then the other way round), one
 * short window each, for several rounds: the sizes are compared side by side in time, so
 * the load of a shared machine falls on all of them alike, and each size keeps its own
 * heap, so a big store's garbage collection costs show up where they belong. The slowdown
 * is (rate at the smallest size / rate at the largest), each rate the operations over the
 * time summed over all rounds; the median of the per-round ratios is reported too.
 *
 * Memory: the largest child's RSS and heap used after `gc()`, before its first order and
 * with the store full, divided by the number of orders stored.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'yaml';
import { AUTH } from './requests.ts';
import { BENCH_DIR, BENCH_KEY, BENCH_SCENARIO, PLEDGE_ADDRESS, REPO_ROOT } from './servers.ts';
import { median } from './stats.ts';

const METRICS = ['httpByOrderId', 'httpByOutOrderNo', 'engineByOrderId', 'engineByOutOrderNo'] as const;
type Metric = (typeof METRICS)[number];

export interface GrowthPoint {
  size: number;
  /** Orders the engine actually holds (less than size if it evicted). */
  stored: number;
  /** Orders created per second while filling the store. */
  createPerSec: number;
  /** Lookups per second: operations over time, summed over the rounds. */
  httpByOrderIdPerSec: number;
  httpByOutOrderNoPerSec: number;
  engineByOrderIdPerSec: number;
  engineByOutOrderNoPerSec: number;
}

export interface MemoryFigures {
  orders: number;
  rssBeforeMb: number;
  rssAfterMb: number;
  heapUsedBeforeMb: number;
  heapUsedAfterMb: number;
  rssBytesPerOrder: number;
  heapBytesPerOrder: number;
}

export interface GrowthResult {
  points: GrowthPoint[];
  memory: MemoryFigures;
  /** Lookups/s at the smallest size / lookups/s at the largest (1 = flat), from the totals over all rounds. */
  slowdown: Record<Metric, number>;
  /** The same, as the median of the per-round ratios (steadier against other processes, blind to rare pauses). */
  medianRoundSlowdown: Record<Metric, number>;
  rounds: number;
  seconds: number;
}

interface ReadyMessage {
  type: 'ready';
  size: number;
  stored: number;
  createPerSec: number;
  memory: MemoryFigures;
}
interface RateMessage {
  type: 'rate';
  metric: Metric;
  ops: number;
  ms: number;
}
type ChildMessage = ReadyMessage | RateMessage;

// ---------------------------------------------------------------------------------------
// Parent side

class GrowthChild {
  private waiting: ((message: ChildMessage) => void) | undefined;
  private failed: Error | undefined;
  private stderr = '';

  constructor(
    readonly child: ChildProcess,
    readonly size: number,
  ) {
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-8000);
      if (process.env.BENCH_VERBOSE) process.stderr.write(chunk);
    });
    child.on('message', (message: ChildMessage) => {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve?.(message);
    });
    child.once('exit', (code, signal) => {
      this.failed = new Error(
        `store-growth child for ${size} orders exited (${code ?? signal}):\n${this.stderr}`,
      );
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve?.({ type: 'rate', metric: 'httpByOrderId', ops: NaN, ms: NaN });
    });
  }

  next(): Promise<ChildMessage> {
    if (this.failed) return Promise.reject(this.failed);
    return new Promise((resolve, reject) => {
      this.waiting = (message) => (this.failed ? reject(this.failed) : resolve(message));
    });
  }

  async measure(metric: Metric): Promise<{ ops: number; ms: number }> {
    const reply = this.next();
    this.child.send({ type: 'measure', metric });
    const message = await reply;
    if (message.type !== 'rate') throw new Error(`unexpected message ${JSON.stringify(message)}`);
    return { ops: message.ops, ms: message.ms };
  }
}

/** Runs the measurement in child processes with --expose-gc and returns the figures. */
export async function measureStoreGrowth(options: {
  root?: string;
  sizes: number[];
  windowMs: number;
  rounds: number;
}): Promise<GrowthResult> {
  const started = performance.now();
  const root = options.root ?? REPO_ROOT;
  const sizes = [...options.sizes].sort((a, b) => a - b);
  const children: GrowthChild[] = [];
  const ready: ReadyMessage[] = [];
  try {
    // Built one at a time, so no child's filling competes with another's.
    for (const size of sizes) {
      const child = spawn(
        process.execPath,
        [
          '--expose-gc',
          '--max-old-space-size=4096',
          '--import',
          'tsx',
          path.join(BENCH_DIR, 'store-growth.ts'),
          '--child',
          root,
          String(size),
          String(options.windowMs),
        ],
        { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] },
      );
      const handle = new GrowthChild(child, size);
      children.push(handle);
      const message = await handle.next();
      if (message.type !== 'ready') throw new Error(`unexpected message ${JSON.stringify(message)}`);
      ready.push(message);
      process.stderr.write(
        `  store of ${size} orders built (${Math.round(message.createPerSec)} orders/s)\n`,
      );
    }

    // Per metric and size: operations and milliseconds summed over the rounds, so pauses
    // that come now and then (a major GC of a big heap) count in proportion; and the
    // per-round ratios, whose median is steadier against other processes.
    const totals = new Map<string, { ops: number; ms: number }>();
    const ratios = new Map<Metric, number[]>();
    for (let round = 0; round < options.rounds; round++) {
      for (const metric of METRICS) {
        const order = round % 2 === 0 ? children : [...children].reverse();
        const got = new Map<number, number>();
        for (const child of order) {
          const { ops, ms } = await child.measure(metric);
          got.set(child.size, ops / ms);
          const total = totals.get(`${metric}@${child.size}`) ?? { ops: 0, ms: 0 };
          totals.set(`${metric}@${child.size}`, { ops: total.ops + ops, ms: total.ms + ms });
        }
        ratios.set(metric, [...(ratios.get(metric) ?? []), got.get(sizes[0]!)! / got.get(sizes.at(-1)!)!]);
      }
    }
    const rate = (metric: Metric, size: number): number => {
      const total = totals.get(`${metric}@${size}`);
      return total ? total.ops / (total.ms / 1000) : NaN;
    };
    const points: GrowthPoint[] = ready.map((r) => ({
      size: r.size,
      stored: r.stored,
      createPerSec: r.createPerSec,
      httpByOrderIdPerSec: rate('httpByOrderId', r.size),
      httpByOutOrderNoPerSec: rate('httpByOutOrderNo', r.size),
      engineByOrderIdPerSec: rate('engineByOrderId', r.size),
      engineByOutOrderNoPerSec: rate('engineByOutOrderNo', r.size),
    }));
    const first = sizes[0]!;
    const last = sizes.at(-1)!;
    const slowdown = Object.fromEntries(METRICS.map((m) => [m, rate(m, first) / rate(m, last)])) as Record<
      Metric,
      number
    >;
    const medianRoundSlowdown = Object.fromEntries(
      METRICS.map((m) => [m, median(ratios.get(m) ?? [])]),
    ) as Record<Metric, number>;
    return {
      points,
      memory: ready.at(-1)!.memory,
      slowdown,
      medianRoundSlowdown,
      rounds: options.rounds,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    for (const handle of children) if (handle.child.exitCode === null) handle.child.kill('SIGKILL');
  }
}

// ---------------------------------------------------------------------------------------
// Child side

interface OrderLike {
  id: string;
  outOrderNo?: string | undefined;
}
interface AccountLike {
  orders: OrderLike[];
}
interface EngineLike {
  authenticate(key: string): AccountLike | undefined;
  createOrder(
    account: AccountLike,
    input: { pledgeAddress: string; rentalCount: number; period: '1h'; outOrderNo?: string },
  ): unknown;
  findOrder(account: AccountLike, ref: { orderId?: string; outOrderNo?: string }): OrderLike;
  settings(): object;
  updateSettings(patch: object): object;
}
interface SimLike {
  engine: EngineLike;
  app: { request(path: string, init?: RequestInit): Response | Promise<Response> };
}

const MB = 1024 * 1024;

async function child(root: string, size: number, windowMs: number): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc || !process.send)
    throw new Error('run by measureStoreGrowth: needs --expose-gc and an IPC channel');
  const send = (message: ChildMessage): void => void process.send!(message);
  const fullGc = (): void => {
    for (let i = 0; i < 4; i++) gc();
  };
  const { createSimulator } = (await import(pathToFileURL(path.join(root, 'mock/simulator.ts')).href)) as {
    createSimulator(options: object): SimLike;
  };
  const sim = createSimulator({
    clock: 'manual',
    timing: 'instant',
    seed: 1,
    // The load runs' scenario: one rich account, the pledge address already activated.
    scenario: parse(readFileSync(BENCH_SCENARIO, 'utf8')) as object,
  });
  const engine = sim.engine;
  // A simulator that evicts old orders must keep them all here.
  if ('maxStoredOrders' in engine.settings()) engine.updateSettings({ maxStoredOrders: size * 2 });
  const account = engine.authenticate(BENCH_KEY);
  if (!account) throw new Error('no bench account');

  fullGc();
  const before = process.memoryUsage();
  const t0 = performance.now();
  for (let i = 0; i < size; i++) {
    engine.createOrder(account, {
      pledgeAddress: PLEDGE_ADDRESS,
      rentalCount: 65000,
      period: '1h',
      outOrderNo: `bench-${i}`,
    });
  }
  const createPerSec = size / ((performance.now() - t0) / 1000);
  fullGc();
  const after = process.memoryUsage();
  const orders = account.orders;
  const stored = orders.length;

  // Random picks over the whole store: xorshift32, seeded, so every run looks up the same orders.
  let state = 0x9e3779b9;
  const pick = (): OrderLike => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return orders.at((state >>> 0) % stored)!;
  };
  const headers = AUTH;
  const request = async (url: string): Promise<void> => {
    const res = await sim.app.request(url, { headers });
    if (res.status !== 200) throw new Error(`${url}: HTTP ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  };
  let sink = 0;
  const httpOps: Partial<Record<Metric, () => Promise<void>>> = {
    httpByOrderId: () => request(`/v1/tron/history?orderId=${pick().id}`),
    httpByOutOrderNo: () => request(`/v1/tron/history?outOrderNo=${pick().outOrderNo!}`),
  };
  const engineOps: Partial<Record<Metric, () => void>> = {
    engineByOrderId: () => void (sink += engine.findOrder(account, { orderId: pick().id }).id.length),
    engineByOutOrderNo: () =>
      void (sink += engine.findOrder(account, { outOrderNo: pick().outOrderNo! }).id.length),
  };
  /** Runs one metric for `ms`; the operations done and the milliseconds taken. */
  const window = async (metric: Metric, ms: number): Promise<{ ops: number; ms: number }> => {
    const httpOp = httpOps[metric];
    const engineOp = engineOps[metric];
    let count = 0;
    const start = performance.now();
    let now = start;
    while (now - start < ms) {
      if (httpOp) {
        for (let i = 0; i < 16; i++) await httpOp();
        count += 16;
      } else {
        for (let i = 0; i < 256; i++) engineOp!();
        count += 256;
      }
      now = performance.now();
    }
    return { ops: count, ms: now - start };
  };
  // Warm the JIT on every path before the first measured window.
  for (let i = 0; i < 3; i++) for (const metric of METRICS) await window(metric, windowMs);
  if (sink === 0) throw new Error('no lookups ran');
  fullGc();

  process.on('message', (message: { type: string; metric: Metric }) => {
    if (message.type !== 'measure') return;
    // A short unmeasured lead-in brings caches back after the idle wait for this turn.
    void window(message.metric, Math.min(50, windowMs / 5))
      .then(() => window(message.metric, windowMs))
      .then(({ ops, ms }) => send({ type: 'rate', metric: message.metric, ops, ms }));
  });
  send({
    type: 'ready',
    size,
    stored,
    createPerSec,
    memory: {
      orders: stored,
      rssBeforeMb: before.rss / MB,
      rssAfterMb: after.rss / MB,
      heapUsedBeforeMb: before.heapUsed / MB,
      heapUsedAfterMb: after.heapUsed / MB,
      rssBytesPerOrder: (after.rss - before.rss) / stored,
      heapBytesPerOrder: (after.heapUsed - before.heapUsed) / stored,
    },
  });
  // The parent ends this process; the IPC channel keeps it alive until then.
  process.once('disconnect', () => process.exit(0));
}

if (process.argv[2] === '--child') {
  const [, , , root = REPO_ROOT, size = '1000', windowMs = '300'] = process.argv;
  await child(root, Number(size), Number(windowMs));
}
