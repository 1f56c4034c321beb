import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { timedLessStalls } from './loop-stalls.ts';

/** Holds the event loop for `ms`, as a starved process is held. */
function hold(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('timing less the stalls of the event loop', () => {
  it('takes off the time the loop could not run', async () => {
    const { ms, stalledMs } = await timedLessStalls(async () => {
      await sleep(20);
      hold(300);
      await sleep(20);
    });
    expect(ms).toBeGreaterThanOrEqual(300);
    expect(stalledMs).toBeGreaterThanOrEqual(250);
    expect(ms - stalledMs).toBeLessThan(150);
  });

  it('leaves a wait the code chose in the time, so a bound still catches a wait too long', async () => {
    const { result, ms, stalledMs } = await timedLessStalls(async () => {
      await sleep(200);
      return 'answered';
    });
    expect(result).toBe('answered');
    expect(ms).toBeGreaterThanOrEqual(199);
    expect(ms - stalledMs).toBeGreaterThan(150);
  });

  it('gives a number, not NaN, for work shorter than the timer period, which may record no delay', async () => {
    const { result, stalledMs } = await timedLessStalls(() => 'at once');
    expect(result).toBe('at once');
    expect(stalledMs).not.toBeNaN();
    expect(stalledMs).toBeGreaterThanOrEqual(0);
  });
});
