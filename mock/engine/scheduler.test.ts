import { describe, expect, it } from 'vitest';
import type { Clock } from './clock.ts';
import { createScheduler } from './scheduler.ts';

/** A clock that records every alarm it is asked for and fires them only on request. */
function createFakeClock(start = 1_000) {
  let now = start;
  const pending = new Map<number, { at: number; wake: () => void }>();
  let nextId = 0;
  const stats = { setAlarm: 0, cancel: 0, maxPending: 0 };
  const clock: Clock = {
    mode: 'manual',
    now: () => now,
    setAlarm(at, wake) {
      const id = nextId++;
      stats.setAlarm++;
      pending.set(id, { at, wake });
      stats.maxPending = Math.max(stats.maxPending, pending.size);
      return () => {
        stats.cancel++;
        pending.delete(id);
      };
    },
  };
  return {
    clock,
    stats,
    pendingAlarms: () => [...pending.values()].map((a) => a.at),
    setNow(t: number) {
      now = t;
    },
    /** Fires every pending alarm, due or not. */
    fireAll() {
      for (const [id, alarm] of [...pending]) {
        pending.delete(id);
        alarm.wake();
      }
    },
    /** Fires the pending alarms that are due, as a real clock would. */
    fireDue() {
      for (;;) {
        const due = [...pending].find(([, alarm]) => alarm.at <= now);
        if (!due) return;
        pending.delete(due[0]);
        due[1].wake();
      }
    },
  };
}

describe('scheduler', () => {
  it('runs due items in time order, whatever order they were scheduled in', () => {
    const fake = createFakeClock(0);
    const handled: string[] = [];
    const scheduler = createScheduler<string>(fake.clock, (item) => handled.push(item));
    const times = [50, 10, 40, 30, 20, 70, 60, 5, 45, 15];
    for (const t of times) scheduler.schedule(t, `t${t}`);
    expect(scheduler.size).toBe(times.length);
    fake.setNow(100);
    scheduler.runDue();
    expect(handled).toEqual([...times].sort((a, b) => a - b).map((t) => `t${t}`));
    expect(scheduler.size).toBe(0);
  });

  it('keeps time order, ties in scheduling order, over many random items', () => {
    const fake = createFakeClock(0);
    const handled: Array<{ at: number; n: number }> = [];
    const scheduler = createScheduler<{ at: number; n: number }>(fake.clock, (item) => handled.push(item));
    let state = 4242;
    const rand = (n: number): number => {
      state = (state * 48_271) % 2_147_483_647;
      return state % n;
    };
    const items = Array.from({ length: 2_000 }, (_, n) => ({ at: rand(300), n }));
    for (const item of items) scheduler.schedule(item.at, item);
    expect(scheduler.pending().map((p) => p.item)).toEqual(
      [...items].sort((a, b) => a.at - b.at || a.n - b.n),
    );
    fake.setNow(299);
    scheduler.runDue();
    expect(handled).toEqual([...items].sort((a, b) => a.at - b.at || a.n - b.n));
  });

  it('runs only the items due by now and keeps the rest', () => {
    const fake = createFakeClock(0);
    const handled: number[] = [];
    const scheduler = createScheduler<number>(fake.clock, (item) => handled.push(item));
    scheduler.schedule(10, 10);
    scheduler.schedule(20, 20);
    scheduler.schedule(21, 21);
    fake.setNow(20);
    scheduler.runDue();
    expect(handled).toEqual([10, 20]);
    expect(scheduler.pending()).toEqual([{ at: 21, item: 21 }]);
  });

  it('runs items due at the same instant in the order they were scheduled', () => {
    const fake = createFakeClock(0);
    const handled: string[] = [];
    const scheduler = createScheduler<string>(fake.clock, (item) => handled.push(item));
    const names = Array.from({ length: 40 }, (_, i) => `item-${i}`);
    // Interleave two instants so that the heap has to reorder ties.
    names.forEach((name, i) => scheduler.schedule(i % 2 === 0 ? 500 : 300, name));
    fake.setNow(500);
    scheduler.runDue();
    const odd = names.filter((_, i) => i % 2 === 1);
    const even = names.filter((_, i) => i % 2 === 0);
    expect(handled).toEqual([...odd, ...even]);
  });

  it('lists pending items earliest first, ties in scheduling order', () => {
    const fake = createFakeClock(0);
    const scheduler = createScheduler<string>(fake.clock, () => {});
    scheduler.schedule(30, 'c');
    scheduler.schedule(10, 'a');
    scheduler.schedule(30, 'd');
    scheduler.schedule(10, 'b');
    expect(scheduler.pending()).toEqual([
      { at: 10, item: 'a' },
      { at: 10, item: 'b' },
      { at: 30, item: 'c' },
      { at: 30, item: 'd' },
    ]);
  });

  it('runs follow-up items that a handler schedules in the same runDue when they are already due', () => {
    const fake = createFakeClock(100);
    const handled: string[] = [];
    const scheduler = createScheduler<string>(fake.clock, (item) => {
      handled.push(item);
      if (item === 'first') {
        scheduler.schedule(100, 'follow-up now');
        scheduler.schedule(90, 'follow-up in the past');
        scheduler.schedule(101, 'follow-up later');
      }
    });
    scheduler.schedule(100, 'first');
    scheduler.runDue();
    expect(handled).toEqual(['first', 'follow-up in the past', 'follow-up now']);
    expect(scheduler.pending()).toEqual([{ at: 101, item: 'follow-up later' }]);
  });

  it('sets one alarm for the earliest item and moves it only when an earlier item arrives', () => {
    const fake = createFakeClock(0);
    const scheduler = createScheduler<string>(fake.clock, () => {});
    scheduler.schedule(100, 'a');
    expect(fake.pendingAlarms()).toEqual([100]);
    expect(fake.stats.setAlarm).toBe(1);
    scheduler.schedule(200, 'later');
    scheduler.schedule(100, 'same time');
    expect(fake.stats).toMatchObject({ setAlarm: 1, cancel: 0 });
    scheduler.schedule(50, 'earlier');
    expect(fake.stats).toMatchObject({ setAlarm: 2, cancel: 1 });
    expect(fake.pendingAlarms()).toEqual([50]);
  });

  it('never has more than one clock alarm pending, and the pending one is for the earliest item', () => {
    const fake = createFakeClock(0);
    const handled: number[] = [];
    const scheduler = createScheduler<number>(fake.clock, (item) => {
      handled.push(item);
      // Each handled item schedules a follow-up, some due at once, some later.
      if (item < 1_000) scheduler.schedule(fake.clock.now() + (item % 3) * 7, item + 1_000);
    });
    let state = 99;
    const rand = (n: number): number => {
      state = (state * 48_271) % 2_147_483_647;
      return state % n;
    };
    let t = 0;
    for (let i = 0; i < 300; i++) {
      scheduler.schedule(t + rand(200), i);
      if (rand(3) === 0) {
        t += rand(50);
        fake.setNow(t);
        fake.fireDue();
      }
      const alarms = fake.pendingAlarms();
      expect(alarms.length).toBeLessThanOrEqual(1);
      const earliest = scheduler.pending()[0]?.at;
      if (earliest === undefined) expect(alarms).toEqual([]);
      else expect(alarms).toEqual([earliest]);
    }
    // Follow-ups of items handled at the last instant fall due up to 14 ms later.
    fake.setNow(t + 10_000);
    fake.fireDue();
    fake.setNow(t + 20_000);
    fake.fireDue();
    expect(fake.stats.maxPending).toBe(1);
    expect(fake.pendingAlarms()).toEqual([]);
    expect(scheduler.size).toBe(0);
    expect(handled.filter((i) => i < 1_000)).toHaveLength(300);
    expect(handled.filter((i) => i >= 1_000)).toHaveLength(300);
  });

  it('handles due items when the alarm fires and re-arms for the next one', () => {
    const fake = createFakeClock(0);
    const handled: string[] = [];
    const scheduler = createScheduler<string>(fake.clock, (item) => handled.push(item));
    scheduler.schedule(10, 'a');
    scheduler.schedule(20, 'b');
    fake.setNow(10);
    fake.fireDue();
    expect(handled).toEqual(['a']);
    expect(fake.pendingAlarms()).toEqual([20]);
    fake.setNow(25);
    fake.fireDue();
    expect(handled).toEqual(['a', 'b']);
    expect(fake.pendingAlarms()).toEqual([]);
  });

  it('re-arms after an alarm that fires a little early instead of stalling', () => {
    const fake = createFakeClock(0);
    const handled: string[] = [];
    const scheduler = createScheduler<string>(fake.clock, (item) => handled.push(item));
    scheduler.schedule(10, 'a');
    // A timer may fire while the wall clock still reads a millisecond before its time.
    fake.setNow(9);
    fake.fireAll();
    expect(handled).toEqual([]);
    expect(fake.pendingAlarms()).toEqual([10]);
    fake.setNow(10);
    fake.fireDue();
    expect(handled).toEqual(['a']);
  });

  it('drops every item and cancels the alarm on clear()', () => {
    const fake = createFakeClock(0);
    const handled: string[] = [];
    const scheduler = createScheduler<string>(fake.clock, (item) => handled.push(item));
    scheduler.schedule(10, 'a');
    scheduler.schedule(20, 'b');
    scheduler.clear();
    expect(scheduler.size).toBe(0);
    expect(scheduler.pending()).toEqual([]);
    expect(fake.pendingAlarms()).toEqual([]);
    fake.setNow(100);
    scheduler.runDue();
    expect(handled).toEqual([]);
    // The scheduler is usable again after clear, with a fresh alarm.
    scheduler.schedule(150, 'c');
    expect(fake.pendingAlarms()).toEqual([150]);
    fake.setNow(150);
    fake.fireDue();
    expect(handled).toEqual(['c']);
  });

  it('re-arms after clear() even for the time it was armed for before', () => {
    const fake = createFakeClock(0);
    const handled: string[] = [];
    const scheduler = createScheduler<string>(fake.clock, (item) => handled.push(item));
    scheduler.schedule(10, 'a');
    scheduler.clear();
    scheduler.schedule(10, 'b');
    expect(fake.pendingAlarms()).toEqual([10]);
    fake.setNow(10);
    fake.fireDue();
    expect(handled).toEqual(['b']);
  });

  it('cancels its alarm when runDue empties the queue', () => {
    const fake = createFakeClock(0);
    const scheduler = createScheduler<string>(fake.clock, () => {});
    scheduler.schedule(10, 'a');
    fake.setNow(10);
    scheduler.runDue(); // called directly, before the alarm fired
    expect(fake.pendingAlarms()).toEqual([]);
  });
});

describe('scheduler batches', () => {
  it('runs an item due at once inside the batch without setting an alarm for it', () => {
    const fake = createFakeClock();
    const handled: string[] = [];
    const scheduler = createScheduler<string>(fake.clock, (item) => handled.push(item));
    scheduler.batch(() => scheduler.schedule(fake.clock.now(), 'now'));
    expect(handled).toEqual(['now']);
    expect(fake.stats.setAlarm).toBe(0);
  });

  it('arms one alarm for what the batch leaves for later, and runs it when due', () => {
    const fake = createFakeClock();
    const handled: string[] = [];
    const scheduler = createScheduler<string>(fake.clock, (item) => handled.push(item));
    scheduler.batch(() => {
      scheduler.schedule(1_500, 'later');
      scheduler.schedule(1_100, 'sooner');
    });
    expect(fake.pendingAlarms()).toEqual([1_100]);
    expect(fake.stats.setAlarm).toBe(1);
    fake.setNow(1_500);
    fake.fireDue();
    fake.fireDue();
    expect(handled).toEqual(['sooner', 'later']);
  });

  it('still runs and arms when the batch throws', () => {
    const fake = createFakeClock();
    const handled: string[] = [];
    const scheduler = createScheduler<string>(fake.clock, (item) => handled.push(item));
    expect(() =>
      scheduler.batch(() => {
        scheduler.schedule(1_000, 'now');
        scheduler.schedule(1_010, 'soon');
        throw new Error('listener failed');
      }),
    ).toThrow('listener failed');
    expect(handled).toEqual(['now']);
    expect(fake.pendingAlarms()).toEqual([1_010]);
  });
});
