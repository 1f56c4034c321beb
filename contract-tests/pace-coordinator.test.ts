import { afterAll, describe, expect, it } from 'vitest';
import { createPaceSchedule, paceScheduleAt, servePaceSchedule } from './pace-coordinator.ts';

describe('the pace schedule', () => {
  it('grants one slot per interval, each later than the last, however many ask at once', async () => {
    let now = 10_000;
    const schedule = createPaceSchedule(() => now);
    const slots = await Promise.all([1, 2, 3, 4].map(() => schedule.take('target', 250)));
    expect(slots.map((s) => s.waitMs)).toEqual([0, 250, 500, 750]);
    expect(slots.every((s) => s.reason === 'pace')).toBe(true);
    // Time passes beyond the schedule: the next one goes at once.
    now += 2_000;
    expect(await schedule.take('target', 250)).toEqual({ waitMs: 0, reason: 'pace' });
    // Each target has a pace of its own.
    expect((await schedule.take('other', 250)).waitMs).toBe(0);
  });

  it('lets a request go only a whole interval after the last that went, however late a timer fired', async () => {
    let now = 0;
    const schedule = createPaceSchedule(() => now);
    expect((await schedule.take('target', 250)).waitMs).toBe(0);
    expect((await schedule.take('target', 250)).waitMs).toBe(250);
    expect((await schedule.take('target', 250)).waitMs).toBe(500);
    // The second's timer fires 150 ms late; it goes then.
    now = 400;
    expect(await schedule.go('target', 250)).toEqual({ waitMs: 0, reason: 'pace' });
    // The third's fires on time, but must keep a whole interval after the second.
    now = 500;
    expect(await schedule.go('target', 250)).toEqual({ waitMs: 150, reason: 'pace' });
    now = 650;
    expect((await schedule.go('target', 250)).waitMs).toBe(0);
    // A new request past every reservation still keeps a whole interval after the last that went.
    now = 800;
    expect((await schedule.take('target', 250)).waitMs).toBe(100);
  });

  it('holds every request of a target for as long as a hold asks, and says why', async () => {
    const now = 0;
    const schedule = createPaceSchedule(() => now);
    await schedule.hold('target', 1_000, 'retryAfter');
    // A shorter hold does not shorten a longer one.
    await schedule.hold('target', 300, 'rateLimitHeaders');
    expect(await schedule.take('target', 0)).toEqual({ waitMs: 1_000, reason: 'retryAfter' });
    // With no pace (interval 0) the hold still counts, and nothing else is held.
    expect(await schedule.take('target', 0)).toEqual({ waitMs: 1_000, reason: 'retryAfter' });
    expect((await schedule.take('elsewhere', 0)).waitMs).toBe(0);
  });
});

describe('the pace served to the run’s workers', () => {
  let close: (() => Promise<void>) | undefined;
  afterAll(() => close?.());

  it('gives two workers slots from one schedule, so together they keep the pace', async () => {
    const server = await servePaceSchedule(createPaceSchedule(() => performance.now()));
    close = server.close;
    // Two workers: each its own client of the same URL.
    const first = paceScheduleAt(server.url);
    const second = paceScheduleAt(server.url);
    const waits: number[] = [];
    for (let i = 0; i < 3; i++) {
      waits.push((await first.take('target', 1000)).waitMs);
      waits.push((await second.take('target', 1000)).waitMs);
    }
    // Six slots a second apart, whichever worker asked: the last is about 5 s away.
    expect(waits[0]).toBeLessThan(50);
    for (let i = 1; i < waits.length; i++) expect(waits[i]! - waits[i - 1]!).toBeGreaterThan(900);
    await second.hold('target', 60_000, 'backoff');
    expect(await first.take('target', 1000)).toMatchObject({ reason: 'backoff' });
  });

  it('names the pace when it cannot be reached', async () => {
    await expect(paceScheduleAt('http://127.0.0.1:9').take('target', 250)).rejects.toThrow(
      /the run's pace at http:\/\/127\.0\.0\.1:9 is unreachable/,
    );
  });
});
