import type { CancelAlarm, Clock } from '../engine/clock.ts';

// setTimeout overflows past 2^31-1 ms; longer alarms re-arm in steps.
const MAX_TIMEOUT = 2_147_483_647;

/**
 * Creates the wall clock, the one place that reads the system time (so not in mock/engine/).
 *
 * @example
 *   const simulator = createSimulator({ clock: createRealClock() });
 */
export function createRealClock(): Clock {
  return {
    mode: 'real',
    now: () => Date.now(),
    setAlarm(at, wake): CancelAlarm {
      let timer: NodeJS.Timeout | undefined;
      const arm = (): void => {
        const wait = at - Date.now();
        timer = wait > MAX_TIMEOUT ? setTimeout(arm, MAX_TIMEOUT) : setTimeout(wake, Math.max(0, wait));
        // An open order must not keep a finished test process alive.
        timer.unref();
      };
      arm();
      return () => clearTimeout(timer);
    },
  };
}
