/**
 * Order latency while `serve --state` saves a large state, and what --state costs an order.
 *
 * Builds a state file of 10^5 COMPLETED orders in-process (the checkout's own
 * createSimulator, the bench scenario), starts `serve --state FILE --save-interval MS` on
 * it and loads POST /v1/tron/order. Every order changes the state, so a save of the whole
 * store (~50 MB) is under way or due all through the measured window; the p99 and max of
 * the order latencies are what a save costs the requests it overlaps. Then the same load on
 * `--state` with a new (empty) state file and on a server without --state, both starting
 * from an empty store: the pair says what --state costs an order, its log line and saves
 * included, with nothing else different.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'yaml';
import { runLoad, type LoadOptions, type LoadResult } from './load.ts';
import { orderTarget } from './requests.ts';
import { BENCH_KEY, BENCH_SCENARIO, DEFAULT_SERVE_ARGS, PLEDGE_ADDRESS, startServer } from './servers.ts';

/** One server of the comparison: with --state at a save interval and a state of `orders`, or without (null). */
export interface SaveCase {
  intervalMs: number | null;
  orders: number;
}

export interface SaveLoadResult extends LoadResult {
  /** The save interval; null for the same load on a server without --state, to compare. */
  intervalMs: number | null;
  storedOrders: number;
  fileBytes: number;
}

/** Writes a state file of `orders` stored orders made by the checkout at `root`. */
async function buildStateFile(root: string, file: string, orders: number): Promise<void> {
  const { createSimulator } = (await import(
    pathToFileURL(path.join(root, 'mock/simulator.ts')).href
  )) as typeof import('../mock/simulator.ts');
  const sim = createSimulator({
    clock: 'manual',
    timing: 'instant',
    scenario: parse(readFileSync(BENCH_SCENARIO, 'utf8')),
  });
  const account = sim.engine.authenticate(BENCH_KEY)!;
  for (let i = 0; i < orders; i++)
    sim.engine.createOrder(account, {
      pledgeAddress: PLEDGE_ADDRESS,
      rentalCount: 65_000,
      period: '1h',
      outOrderNo: `saved-${i}`,
    });
  writeFileSync(file, JSON.stringify(sim.engine.snapshot()));
}

/**
 * Order latency under load, once per case: with --state on a state of its `orders` at its
 * save interval, or without --state.
 *
 * @example
 *   const rows = await measureSaveLatency({ root, cases: [{ intervalMs: 1000, orders: 1e5 }, { intervalMs: null, orders: 0 }], load });
 */
export async function measureSaveLatency(options: {
  root: string;
  cases: SaveCase[];
  load: LoadOptions;
}): Promise<SaveLoadResult[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'energy-rental-bench-state-'));
  const results: SaveLoadResult[] = [];
  try {
    for (const [i, { intervalMs, orders }] of options.cases.entries()) {
      const file = path.join(dir, `state-${i}.json`);
      if (intervalMs !== null) await buildStateFile(options.root, file, orders);
      const fileBytes = intervalMs !== null ? statSync(file).size : 0;
      const sim = await startServer({
        kind: 'sim',
        root: options.root,
        serveArgs:
          intervalMs === null
            ? DEFAULT_SERVE_ARGS
            : [...DEFAULT_SERVE_ARGS, '--state', file, '--save-interval', String(intervalMs)],
      });
      try {
        // Long enough for several whole saves at either interval.
        const result = await runLoad(orderTarget(sim), {
          ...options.load,
          durationS: Math.max(options.load.durationS, 8),
        });
        results.push({
          ...result,
          intervalMs,
          storedOrders: intervalMs === null ? 0 : orders,
          fileBytes,
        });
      } finally {
        await sim.stop();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}
