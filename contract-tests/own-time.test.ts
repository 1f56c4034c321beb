import { afterEach, describe, expect, it, vi } from 'vitest';
import { watchOwnTime } from './contract-test.ts';
import { emptyWaits } from './polite-transport.ts';

afterEach(() => void vi.useRealTimers());

describe('watchOwnTime', () => {
  it('leaves the waits to be polite out of a case’s time, and aborts once its own time runs out', () => {
    vi.useFakeTimers();
    let now = 0;
    const waits = emptyWaits();
    const watch = watchOwnTime(waits, 1_000, { now: () => now, everyMs: 100 });
    // 3 s go by, 2.5 s of them waiting for the pace: 0.5 s of its own.
    now = 3_000;
    waits.waitedMs = 2_500;
    vi.advanceTimersByTime(100);
    expect(watch.signal.aborted).toBe(false);
    // A wait under way counts as waited too.
    waits.waitingSince = 3_000;
    now = 10_000;
    vi.advanceTimersByTime(100);
    expect(watch.signal.aborted).toBe(false);
    // Waiting over, 600 ms more of its own: past its 1 s.
    delete waits.waitingSince;
    waits.waitedMs += 7_000;
    now = 10_600;
    vi.advanceTimersByTime(100);
    expect(watch.signal.aborted).toBe(true);
    expect((watch.signal.reason as Error).message).toBe(
      'the case spent more than 1000 ms of its own time (its timeout), not counting the 9500 ms it waited to be polite',
    );
  });

  it('stops watching when told', () => {
    vi.useFakeTimers();
    let now = 0;
    const watch = watchOwnTime(emptyWaits(), 1_000, { now: () => now, everyMs: 100 });
    watch.stop();
    now = 5_000;
    vi.advanceTimersByTime(1_000);
    expect(watch.signal.aborted).toBe(false);
  });
});
