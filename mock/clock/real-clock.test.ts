import { describe, expect, it } from 'vitest';
import { createRealClock } from './real-clock.ts';

describe('real clock', () => {
  it('reads the system time', () => {
    const clock = createRealClock();
    expect(clock.mode).toBe('real');
    const before = Date.now();
    const now = clock.now();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });

  it('fires a 20 ms alarm no earlier than its time, and a cancelled one never', async () => {
    const clock = createRealClock();
    const start = clock.now();
    const firedAt: number[] = [];
    let cancelledFired = false;
    const done = new Promise<void>((resolve) => {
      clock.setAlarm(start + 20, () => {
        firedAt.push(clock.now());
        resolve();
      });
    });
    const cancel = clock.setAlarm(start + 10, () => {
      cancelledFired = true;
    });
    cancel();
    await done;
    // Leave the cancelled alarm time to misbehave before checking it did not.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(firedAt).toHaveLength(1);
    // Node timers may fire up to a millisecond before Date.now() reaches the target.
    expect(firedAt[0]! - start).toBeGreaterThanOrEqual(19);
    expect(cancelledFired).toBe(false);
  });
});
