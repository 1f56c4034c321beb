import { describe, expect, it } from 'vitest';
import { createManualClock, DEFAULT_MANUAL_START } from './manual-clock.ts';

describe('manual clock', () => {
  it("starts at the upstream example's creation time unless told otherwise", () => {
    expect(createManualClock().now()).toBe(DEFAULT_MANUAL_START);
    expect(new Date(DEFAULT_MANUAL_START).toISOString()).toBe('2025-03-12T17:50:09.000Z');
    expect(createManualClock(5_000).now()).toBe(5_000);
    expect(createManualClock().mode).toBe('manual');
  });

  it('does not move on its own', () => {
    const clock = createManualClock(1_000);
    let fired = false;
    clock.setAlarm(1_000, () => {
      fired = true;
    });
    expect(clock.now()).toBe(1_000);
    expect(clock.now()).toBe(1_000);
    expect(fired).toBe(false);
  });

  it('fires alarms in time order with now() equal to each alarm time inside the callback', () => {
    const clock = createManualClock(1_000);
    const seen: Array<[string, number]> = [];
    for (const [name, at] of [
      ['c', 1_300],
      ['a', 1_100],
      ['b', 1_200],
      ['a2', 1_100],
    ] as const) {
      clock.setAlarm(at, () => seen.push([name, clock.now()]));
    }
    clock.advance(250);
    expect(seen).toEqual([
      ['a', 1_100],
      ['a2', 1_100],
      ['b', 1_200],
    ]);
    expect(clock.now()).toBe(1_250);
    clock.advance(50);
    expect(seen.at(-1)).toEqual(['c', 1_300]);
  });

  it('ends at the target time and returns it', () => {
    const clock = createManualClock(1_000);
    clock.setAlarm(1_010, () => {});
    expect(clock.advance(100)).toBe(1_100);
    expect(clock.now()).toBe(1_100);
    expect(clock.advance(0)).toBe(1_100);
  });

  it('fires an alarm set exactly at the target', () => {
    const clock = createManualClock(0);
    let at = -1;
    clock.setAlarm(500, () => {
      at = clock.now();
    });
    clock.advance(499);
    expect(at).toBe(-1);
    clock.advance(1);
    expect(at).toBe(500);
  });

  it('fires an alarm set in the past on the next advance without moving time back', () => {
    const clock = createManualClock(1_000);
    let at = -1;
    clock.setAlarm(900, () => {
      at = clock.now();
    });
    clock.advance(0);
    expect(at).toBe(1_000);
  });

  it('fires alarms that callbacks set when they fall due within the same advance', () => {
    const clock = createManualClock(0);
    const seen: Array<[string, number]> = [];
    clock.setAlarm(10, () => {
      seen.push(['first', clock.now()]);
      clock.setAlarm(clock.now(), () => seen.push(['same instant', clock.now()]));
      clock.setAlarm(30, () => seen.push(['later', clock.now()]));
      clock.setAlarm(200, () => seen.push(['beyond', clock.now()]));
    });
    clock.setAlarm(20, () => seen.push(['second', clock.now()]));
    clock.advance(100);
    expect(seen).toEqual([
      ['first', 10],
      ['same instant', 10],
      ['second', 20],
      ['later', 30],
    ]);
    expect(clock.now()).toBe(100);
  });

  it('fires each alarm once', () => {
    const clock = createManualClock(0);
    let count = 0;
    clock.setAlarm(10, () => count++);
    clock.advance(20);
    clock.advance(20);
    expect(count).toBe(1);
  });

  it('does not fire a cancelled alarm, even when a callback cancels it mid-advance', () => {
    const clock = createManualClock(0);
    const seen: string[] = [];
    const cancelA = clock.setAlarm(10, () => seen.push('a'));
    let cancelC = (): void => {};
    clock.setAlarm(20, () => {
      seen.push('b');
      cancelC();
    });
    cancelC = clock.setAlarm(30, () => seen.push('c'));
    cancelA();
    clock.advance(100);
    expect(seen).toEqual(['b']);
  });

  it.each([-1, -0.001, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])(
    'rejects advance(%s) with a RangeError and keeps time where it was',
    (ms) => {
      const clock = createManualClock(1_000);
      let fired = false;
      clock.setAlarm(1_000, () => {
        fired = true;
      });
      expect(() => clock.advance(ms)).toThrow(RangeError);
      expect(clock.now()).toBe(1_000);
      expect(fired).toBe(false);
    },
  );

  it('goes back to its start and drops every alarm on rewind()', () => {
    const clock = createManualClock(1_000);
    let fired = 0;
    clock.advance(5_000);
    clock.setAlarm(7_000, () => fired++);
    clock.rewind();
    expect(clock.now()).toBe(1_000);
    clock.advance(10_000);
    expect(fired).toBe(0);
    expect(clock.now()).toBe(11_000);
  });
});
