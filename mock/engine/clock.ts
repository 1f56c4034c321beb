/** What the engine needs of time: it never reads the system time itself. */
export type ClockMode = 'real' | 'manual';

/** Cancels an alarm set with `Clock.setAlarm`. */
export type CancelAlarm = () => void;

export interface Clock {
  readonly mode: ClockMode;
  /** Current time, Unix milliseconds. */
  now(): number;
  /** Calls `wake` once when the clock reaches `at` (Unix ms). */
  setAlarm(at: number, wake: () => void): CancelAlarm;
}

/** A clock whose time moves only when told to. */
export interface ManualClock extends Clock {
  readonly mode: 'manual';
  /** Moves time forward by `ms`, firing every alarm that falls due, in time order. */
  advance(ms: number): number;
  /** Sets the time back to where it started and drops every alarm (used by reset). */
  rewind(): void;
  /** Tells `listener` the time after each advance, once its due alarms have fired; returns the unsubscribe. */
  onAdvanced(listener: (now: number) => void): () => void;
}
