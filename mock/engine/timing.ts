/** Timing profiles: how long each lifecycle step takes (realistic: 3 to 6 s, as upstream says). */
import { TIMING_PROFILES } from '../../src/generated/lists.ts';
import type { RandomSource } from './random-source.ts';

/** spec/control.yaml's TimingProfile enum. */
export { TIMING_PROFILES };
export type TimingProfile = (typeof TIMING_PROFILES)[number];

interface Range {
  min: number;
  max: number;
}
type Step = 'processing' | 'outcome' | 'refund';

/** Per profile, each step's delay range, what an activation adds, and the confirmed view's lag. */
export const PROFILES: Readonly<
  Record<TimingProfile, Readonly<Record<Step, Range> & { activation: number; confirmation: number }>>
> = {
  realistic: {
    processing: { min: 500, max: 1500 },
    outcome: { min: 3000, max: 6000 },
    refund: { min: 1000, max: 3000 },
    activation: 1000,
    // 19 blocks of 3 s: when main net's solidity node has a block.
    confirmation: 57_000,
  },
  fast: {
    processing: { min: 5, max: 15 },
    outcome: { min: 20, max: 60 },
    refund: { min: 10, max: 30 },
    activation: 10,
    confirmation: 60,
  },
  instant: {
    processing: { min: 0, max: 0 },
    outcome: { min: 0, max: 0 },
    refund: { min: 0, max: 0 },
    activation: 0,
    confirmation: 0,
  },
};

/**
 * Draws one order's delays (ms from creation) from a profile, or spreads a rule's fixed `delayMs` over them.
 *
 * @example
 *   planDelays('realistic', random, { activates: false }).outcomeAfter; // 3000..6000
 */
export function planDelays(
  profile: TimingProfile,
  random: RandomSource,
  options: {
    activates: boolean;
    activationDelayMs?: number | undefined;
    fixedOutcomeMs?: number | undefined;
    /** Explicit delays that replace the profile's, per step (settings.delaysMs): a number, or a range. */
    delays?: Partial<Record<Step, number | Range>> | undefined;
  },
): { processingAfter: number; outcomeAfter: number; refundAfter: number } {
  const base = PROFILES[profile];
  // Always three draws, in this order, so a seed gives the same ids under every timing.
  const draw = (step: Step): number => {
    const given = options.delays?.[step];
    const { min, max } =
      given === undefined ? base[step] : typeof given === 'number' ? { min: given, max: given } : given;
    return min + (random.int(0, 1_000_000) % (max - min + 1));
  };
  const [outcome, processing, refund] = [draw('outcome'), draw('processing'), draw('refund')];
  if (options.fixedOutcomeMs !== undefined) {
    const outcomeAfter = options.fixedOutcomeMs;
    return {
      processingAfter: Math.floor(outcomeAfter / 2),
      outcomeAfter,
      refundAfter: outcomeAfter + refund,
    };
  }
  const outcomeAfter = outcome + (options.activates ? (options.activationDelayMs ?? base.activation) : 0);
  return {
    processingAfter: Math.min(processing, outcomeAfter),
    outcomeAfter,
    refundAfter: outcomeAfter + refund,
  };
}
