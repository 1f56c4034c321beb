import type { CancelAlarm, ManualClock } from '../engine/clock.ts';

/** The upstream example's creation time, 2025-03-12T17:50:09Z: ids look like upstream's. */
export const DEFAULT_MANUAL_START = 1_741_801_809_000;

interface Alarm {
  at: number;
  seq: number;
  wake: () => void;
}

/**
 * Creates a clock that only moves when a test advances it.
 *
 * @example
 *   const clock = createManualClock();
 *   clock.setAlarm(clock.now() + 5000, () => console.log('due'));
 *   clock.advance(6000); // logs 'due' with clock.now() at the alarm's time
 */
export function createManualClock(start: number = DEFAULT_MANUAL_START): ManualClock {
  let now = start;
  let seq = 0;
  // Alarms are few (one per engine using this clock), so a sorted scan is enough.
  let alarms: Alarm[] = [];
  return {
    mode: 'manual',
    now: () => now,
    setAlarm(at, wake): CancelAlarm {
      const alarm = { at, seq: seq++, wake };
      alarms.push(alarm);
      return () => {
        alarms = alarms.filter((a) => a !== alarm);
      };
    },
    advance(ms) {
      if (!Number.isFinite(ms) || ms < 0) {
        throw new RangeError(`advance(ms) takes a finite number of milliseconds >= 0; got ${ms}.`);
      }
      const target = now + ms;
      try {
        for (;;) {
          let next: Alarm | undefined;
          for (const a of alarms) if (a.at <= target && (!next || a.at < next.at || (a.at === next.at && a.seq < next.seq))) next = a;
          if (!next) break;
          alarms = alarms.filter((a) => a !== next);
          if (next.at > now) now = next.at;
          next.wake();
        }
      } finally {
        // A throwing alarm must not leave time stuck in the middle of the advance.
        now = target;
      }
      return now;
    },
    rewind() {
      now = start;
      alarms = [];
    },
  };
}
