import type { CancelAlarm, ManualClock } from './clock.ts';
import { SimulatorError } from './simulator-error.ts';

/** The upstream example's creation time, 2025-03-12T17:50:09Z: ids look like upstream's. */
export const DEFAULT_MANUAL_START = 1_741_801_809_000;

/** The latest time a manual clock can show: an order id holds a four-digit year. */
export const MAX_CLOCK_MS: number = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
const MAX_ISO = '9999-12-31T23:59:59.999Z';

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
  if (!Number.isFinite(start) || start < 0 || start > MAX_CLOCK_MS)
    throw SimulatorError.invalidParameter(
      `The manual clock cannot start at ${start}: it takes Unix milliseconds from 0 to ${MAX_CLOCK_MS} (${MAX_ISO}), the latest time an order id can hold.`,
    );
  let now = start;
  let seq = 0;
  // Alarms are few (one per engine), so a scan is enough.
  let alarms: Alarm[] = [];
  const advanced = new Set<(now: number) => void>();
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
      if (!Number.isFinite(ms) || ms < 0)
        throw new RangeError(`advance(ms) takes a finite number of milliseconds >= 0; got ${ms}.`);
      const target = now + ms;
      if (target > MAX_CLOCK_MS)
        throw new SimulatorError(
          'conflict',
          `Advancing by ${ms} ms would move the clock past ${MAX_ISO} (${MAX_CLOCK_MS} ms), the latest time an order id can hold; advance by at most ${MAX_CLOCK_MS - now} ms.`,
        );
      try {
        for (;;) {
          let next: Alarm | undefined;
          for (const a of alarms)
            if (a.at <= target && (!next || a.at < next.at || (a.at === next.at && a.seq < next.seq)))
              next = a;
          if (!next) break;
          alarms = alarms.filter((a) => a !== next);
          if (next.at > now) now = next.at;
          next.wake();
        }
      } finally {
        // A throwing alarm must not leave time stuck in the middle of the advance.
        now = target;
      }
      for (const listener of advanced) listener(now);
      return now;
    },
    onAdvanced(listener) {
      advanced.add(listener);
      return () => advanced.delete(listener);
    },
    rewind() {
      now = start;
      alarms = [];
    },
  };
}
