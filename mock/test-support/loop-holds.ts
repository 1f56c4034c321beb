/**
 * What loop-holds-preload.mjs recorded in a child process: the holds of its event loop, to
 * say on a failed responsiveness bound whether the kit's code ran too long, the process
 * waited for a core, or the garbage collector paused it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

/**
 * How long after a hold ends its line is written at the latest, ms: the preload waits its
 * SETTLE_MS (50) for the hold's GC entries, and looks every 5 ms; with room.
 */
const WRITTEN_WITHIN_MS = 100;

/** One hold of a child's event loop, as the preload recorded it (times in ms; `end` in epoch ms). */
export interface LoopHold {
  end: number;
  ms: number;
  runMs: number;
  waitMs: number;
  gcMs: number;
}

/**
 * The environment that makes a child record its event loop's holds to `file`: added to the
 * child's own, it loads the preload through NODE_OPTIONS.
 *
 * @example
 *   const { child } = await startCli(['serve', '--port', '0'], cleanups, undefined, loopHoldsEnv(file));
 */
export function loopHoldsEnv(file: string): Record<string, string> {
  const preload = fileURLToPath(new URL('./loop-holds-preload.mjs', import.meta.url));
  return { NODE_OPTIONS: `--import ${JSON.stringify(preload)}`, LOOP_HOLDS_FILE: file };
}

/**
 * The holds recorded in `file` that ended at or after `since` (epoch ms), the longest first.
 *
 * @example
 *   const since = Date.now(); …; expect(slowest, describeHolds(loopHolds(file, since))).toBeLessThan(100);
 */
export function loopHolds(file: string, since = 0): LoopHold[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as LoopHold)
    .filter((hold) => hold.end >= since)
    .sort((a, b) => b.ms - a.ms);
}

/**
 * `loopHolds` once the preload has written every hold that ended so far: for a bound just
 * failed, whose hold may have ended a moment ago.
 *
 * @example
 *   expect(slowest, describeHolds(await settledHolds(file, since))).toBeLessThan(100);
 */
export async function settledHolds(file: string, since = 0): Promise<LoopHold[]> {
  await sleep(WRITTEN_WITHIN_MS);
  return loopHolds(file, since);
}

/**
 * The longest holds in a sentence, for an assertion's message.
 *
 * @example
 *   describeHolds([{ end: 0, ms: 149.4, runMs: 147.1, waitMs: 2.3, gcMs: 0 }]);
 *   // "the server's event loop was held 149.4 ms (147.1 running, 2.3 waiting for a core, 0 in GC)"
 */
export function describeHolds(holds: readonly LoopHold[], most = 3): string {
  if (holds.length === 0) return "no hold of the server's event loop was recorded";
  const each = holds
    .slice(0, most)
    .map((h) => `${h.ms} ms (${h.runMs} running, ${h.waitMs} waiting for a core, ${h.gcMs} in GC)`);
  return `the server's event loop was held ${each.join('; ')}`;
}
