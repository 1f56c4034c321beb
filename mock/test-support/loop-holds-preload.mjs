/**
 * A preload (`node --import`) that records, in a child process under test, every time its
 * event loop was held longer than HOLD_MS, and why: how much of the hold the main thread
 * ran, how much it waited for a core (Linux's per-thread schedstat), and the garbage
 * collector's pauses within it. A test that bounds a server's responsiveness names the
 * kit's code (run), the machine (wait) or the collector on failure, rather than a bare
 * number (loop-holds.ts reads the file).
 *
 * One JSON line per hold to the file in LOOP_HOLDS_FILE: { end, ms, runMs, waitMs, gcMs },
 * `end` in epoch ms (Date.now) so that another process can place it, written SETTLE_MS after
 * the hold. JavaScript rather than
 * TypeScript: the child runs the built CLI, with no TypeScript loader.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';

/** How often the loop is looked at, ms: a hold is seen to within this. */
const TICK_MS = 5;
/** A gap between two looks longer than this is a hold worth a line, ms. */
const HOLD_MS = 30;

const file = process.env.LOOP_HOLDS_FILE;
const schedstat = `/proc/self/task/${process.pid}/schedstat`;

/** The main thread's time on a core and waiting for one so far, ms. */
function threadTimes() {
  try {
    const [run, wait] = readFileSync(schedstat, 'utf8').split(' ').map(Number);
    return { run: run / 1e6, wait: wait / 1e6 };
  } catch {
    return { run: NaN, wait: NaN };
  }
}

/**
 * How long a hold waits before its line is written, ms: Node hands GC entries to observers in
 * a later turn (after the check phase that a setImmediate slice runs in), so a hold measured
 * at once would miss the pauses within it.
 */
const SETTLE_MS = 50;

if (file) {
  /** GC pauses as [start, end] in performance.now() ms, the last few seconds'. */
  const pauses = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) pauses.push([entry.startTime, entry.startTime + entry.duration]);
  }).observe({ entryTypes: ['gc'] });
  /** Holds seen, waiting for their GC entries: { from, to, hold } in performance.now() ms. */
  const pending = [];
  const round = (ms) => Math.round(ms * 10) / 10;
  /** Writes the pending holds that ended before `before`, with the GC pauses within each. */
  const write = (before) => {
    while (pending.length > 0 && pending[0].to < before) {
      const { from, to, hold } = pending.shift();
      const gcMs = pauses.reduce(
        (sum, [start, end]) => sum + Math.max(0, Math.min(end, to) - Math.max(start, from)),
        0,
      );
      appendFileSync(file, `${JSON.stringify({ ...hold, gcMs: round(gcMs) })}\n`);
    }
  };
  let last = performance.now();
  let times = threadTimes();
  setInterval(() => {
    const now = performance.now();
    const next = threadTimes();
    if (now - last > HOLD_MS) {
      const hold = {
        end: Date.now(),
        ms: round(now - last),
        runMs: round(next.run - times.run),
        waitMs: round(next.wait - times.wait),
      };
      pending.push({ from: last, to: now, hold });
    }
    write(now - SETTLE_MS);
    while (pauses.length > 0 && pauses[0][1] < now - 1000 - SETTLE_MS) pauses.shift();
    last = now;
    times = next;
  }, TICK_MS).unref();
  // A process that ends on its own (not killed) writes what it saw last.
  process.once('exit', () => write(Infinity));
}
