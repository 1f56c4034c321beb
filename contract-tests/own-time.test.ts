import { afterEach, describe, expect, it, vi } from 'vitest';
import { watchOwnTime } from './contract-test.ts';
import { emptyWaits } from './polite-transport.ts';

afterEach(() => void vi.useRealTimers());

/** Timers and performance.now() on a clock the test moves (the watch looks once a second). */
const fakeClock = () => vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'performance'] });

describe('watchOwnTime', () => {
  it('leaves the waits to be polite out of a case’s time, and aborts once its own time runs out', () => {
    fakeClock();
    const waits = emptyWaits();
    const watch = watchOwnTime(waits, 1_000);
    // 3 s go by, 2.5 s of them waiting for the pace: 0.5 s of its own.
    waits.waitedMs = 2_500;
    vi.advanceTimersByTime(3_000);
    expect(watch.signal.aborted).toBe(false);
    // A wait under way counts as waited too.
    waits.waitingSince = performance.now();
    vi.advanceTimersByTime(7_000);
    expect(watch.signal.aborted).toBe(false);
    // Waiting over, a second more of its own: past its 1 s.
    delete waits.waitingSince;
    waits.waitedMs += 7_000;
    vi.advanceTimersByTime(1_000);
    expect(watch.signal.aborted).toBe(true);
    expect((watch.signal.reason as Error).message).toBe(
      'the case spent more than 1000 ms of its own time (its timeout), not counting the 9500 ms it waited to be polite',
    );
  });

  it('stops watching when told', () => {
    fakeClock();
    const watch = watchOwnTime(emptyWaits(), 1_000);
    watch.stop();
    vi.advanceTimersByTime(5_000);
    expect(watch.signal.aborted).toBe(false);
  });
});
