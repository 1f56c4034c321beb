import { describe, expect, it } from 'vitest';
import { createRandomSource } from './random-source.ts';
import { planDelays, PROFILES } from './timing.ts';

describe('timing profiles', () => {
  it('plans realistic deliveries 3000 to 6000 ms after creation, processing first and refunding 1 to 3 s later', () => {
    const random = createRandomSource(1);
    for (let i = 0; i < 1_000; i++) {
      const plan = planDelays('realistic', random, { activates: false });
      expect(plan.outcomeAfter).toBeGreaterThanOrEqual(3_000);
      expect(plan.outcomeAfter).toBeLessThanOrEqual(6_000);
      expect(plan.processingAfter).toBeGreaterThanOrEqual(500);
      expect(plan.processingAfter).toBeLessThanOrEqual(1_500);
      expect(plan.refundAfter - plan.outcomeAfter).toBeGreaterThanOrEqual(1_000);
      expect(plan.refundAfter - plan.outcomeAfter).toBeLessThanOrEqual(3_000);
    }
  });

  it('plans fast deliveries in tens of milliseconds', () => {
    const random = createRandomSource(2);
    for (let i = 0; i < 500; i++) {
      const plan = planDelays('fast', random, { activates: i % 2 === 0 });
      expect(plan.processingAfter).toBeGreaterThanOrEqual(5);
      expect(plan.processingAfter).toBeLessThanOrEqual(plan.outcomeAfter);
      expect(plan.outcomeAfter).toBeGreaterThanOrEqual(20);
      expect(plan.outcomeAfter).toBeLessThan(100);
    }
  });

  it('plans no delay at all for instant orders', () => {
    expect(planDelays('instant', createRandomSource(3), { activates: true })).toEqual({
      processingAfter: 0,
      outcomeAfter: 0,
      refundAfter: 0,
    });
  });

  it('draws the same amount of randomness under every profile and rule, so later ids do not depend on timing', () => {
    const after = (plan: (random: ReturnType<typeof createRandomSource>) => void): string => {
      const random = createRandomSource(3);
      plan(random);
      return random.hex(16);
    };
    const expected = after((r) => planDelays('realistic', r, { activates: false }));
    expect(after((r) => planDelays('instant', r, { activates: true }))).toBe(expected);
    expect(after((r) => planDelays('fast', r, { activates: false, fixedOutcomeMs: 1000 }))).toBe(expected);
  });

  it('adds the activation delay, the profile default or the configured one, only to an activating order', () => {
    const plan = (activates: boolean, activationDelayMs?: number) =>
      planDelays('realistic', createRandomSource(9), { activates, activationDelayMs });
    const base = plan(false, 7_000);
    expect(plan(true, 7_000).outcomeAfter - base.outcomeAfter).toBe(7_000);
    expect(plan(true).outcomeAfter - base.outcomeAfter).toBe(PROFILES.realistic.activation);
    expect(plan(true, 0).outcomeAfter).toBe(base.outcomeAfter);
    expect(PROFILES.realistic.activation).toBe(1_000);
    expect(PROFILES.fast.activation).toBe(10);
    expect(PROFILES.instant.activation).toBe(0);
  });

  it('spreads a fixed outcome delay: processing at half of it, the outcome exactly at it', () => {
    const random = createRandomSource(4);
    expect(planDelays('realistic', random, { activates: true, fixedOutcomeMs: 1_001 })).toMatchObject({
      processingAfter: 500,
      outcomeAfter: 1_001,
    });
    expect(planDelays('instant', random, { activates: false, fixedOutcomeMs: 0 })).toEqual({
      processingAfter: 0,
      outcomeAfter: 0,
      refundAfter: 0,
    });
  });
});
