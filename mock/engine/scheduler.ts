/** A binary min-heap of due steps and one clock alarm; steps due at one instant run in scheduling order. */
import type { CancelAlarm, Clock } from './clock.ts';

interface Entry<T> {
  at: number;
  seq: number;
  item: T;
}

export interface Scheduler<T> {
  /** Queues `item` to be handled at `at` (Unix ms). */
  schedule(at: number, item: T): void;
  /** Handles every item due by the clock's now. */
  runDue(): void;
  /** Runs `fn` with arming held, then runs what is due and arms the alarm once. */
  batch(fn: () => void): void;
  readonly size: number;
  /** Every waiting item with its due time, earliest first. */
  pending(): Array<{ at: number; item: T }>;
  /** Drops every item and the alarm. */
  clear(): void;
}

/**
 * Creates a scheduler that hands due items to `handle`.
 *
 * @example
 *   const scheduler = createScheduler(clock, (order) => advance(order));
 *   scheduler.schedule(clock.now() + 3000, order);
 */
export function createScheduler<T>(clock: Clock, handle: (item: T) => void): Scheduler<T> {
  const heap: Entry<T>[] = [];
  let seq = 0;
  let alarmAt = Infinity;
  let cancelAlarm: CancelAlarm | undefined;
  let running = false;

  const before = (a: Entry<T>, b: Entry<T>): boolean => a.at < b.at || (a.at === b.at && a.seq < b.seq);

  function push(entry: Entry<T>): void {
    heap.push(entry);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  function pop(): Entry<T> {
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let smallest = i;
        if (l < heap.length && before(heap[l]!, heap[smallest]!)) smallest = l;
        if (r < heap.length && before(heap[r]!, heap[smallest]!)) smallest = r;
        if (smallest === i) break;
        [heap[i], heap[smallest]] = [heap[smallest]!, heap[i]!];
        i = smallest;
      }
    }
    return top;
  }

  function arm(): void {
    const next = heap[0]?.at ?? Infinity;
    if (next === alarmAt) return;
    cancelAlarm?.();
    cancelAlarm = undefined;
    alarmAt = next;
    if (next !== Infinity) {
      cancelAlarm = clock.setAlarm(next, () => {
        alarmAt = Infinity;
        cancelAlarm = undefined;
        scheduler.runDue();
      });
    }
  }

  const scheduler: Scheduler<T> = {
    schedule(at, item) {
      push({ at, seq: seq++, item });
      if (!running) arm();
    },
    runDue() {
      if (running) return;
      running = true;
      try {
        while (heap.length > 0 && heap[0]!.at <= clock.now()) handle(pop().item);
      } finally {
        running = false;
        arm();
      }
    },
    batch(fn) {
      if (running) return fn();
      running = true;
      try {
        fn();
      } finally {
        running = false;
        scheduler.runDue();
      }
    },
    get size() {
      return heap.length;
    },
    pending() {
      return [...heap].sort((a, b) => (before(a, b) ? -1 : 1)).map(({ at, item }) => ({ at, item }));
    },
    clear() {
      heap.length = 0;
      cancelAlarm?.();
      cancelAlarm = undefined;
      alarmAt = Infinity;
    },
  };
  return scheduler;
}
