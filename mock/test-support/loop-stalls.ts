/**
 * Real time, less the time this process could not run. On a loaded machine (two cores, three
 * vitest workers, the static checks and a browser beside them) a 50 ms timer has fired 800 ms
 * late: that lateness is the machine's, not the code's, and a bound on real time that counts
 * it fails without a defect. What the process lost is measured from the lateness of a timer
 * of its own (node:perf_hooks' event-loop delay histogram), and taken off.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

/** The histogram's timer period, ms: a stall shorter than this is not seen, a longer one is. */
const RESOLUTION_MS = 10;

/**
 * Runs `work` and times it in real time (`ms`), and says how long the event loop was held up
 * meanwhile (`stalledMs`: the sum of every period the loop's timer came late by). A bound on
 * the time a piece of code takes then holds `ms - stalledMs`: an answer that waits the wrong
 * amount still fails it (its wait is an idle loop, not a stall), a starved process does not.
 *
 * @example
 *   const { result, ms, stalledMs } = await timedLessStalls(() => call(sim, 'getPrice'));
 *   expect(ms - stalledMs).toBeLessThan(50 + 500);
 */
export async function timedLessStalls<T>(
  work: () => T | Promise<T>,
): Promise<{ result: T; ms: number; stalledMs: number }> {
  const delays = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delays.enable();
  try {
    const started = performance.now();
    const result = await work();
    const ms = performance.now() - started;
    // The period in which the work ended is recorded once it is over: one more, so that a
    // stall at the very end is seen too.
    await sleep(RESOLUTION_MS + 1);
    // Each recorded delay is a whole period; what exceeds the period is time lost. Work
    // shorter than a period may leave no delay recorded, and the mean of none is NaN.
    const lostNs = delays.count === 0 ? 0 : delays.count * (delays.mean - RESOLUTION_MS * 1e6);
    return { result, ms, stalledMs: Math.max(0, lostNs / 1e6) };
  } finally {
    delays.disable();
  }
}
