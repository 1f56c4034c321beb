/**
 * Timing profiles: how long each lifecycle step takes. `realistic` reproduces the
 * upstream figure (energy arrives 3 to 6 s after creation), `fast` takes tens of
 * milliseconds and `instant` none, so an order is done when its creation returns.
 */
import { TIMING_PROFILES } from '../../src/generated/lists.ts';
import type { RandomSource } from './random-source.ts';

/** spec/control.yaml's TimingProfile enum. */
export { TIMING_PROFILES };
export type TimingProfile = (typeof TIMING_PROFILES)[number];

interface Range {
  min: number;
  max: number;
}

interface ProfileDelays {
  /** Creation to the outcome (COMPLETED or FAILED). */
  total: Range;
  /** Creation to PROCESSING, a part of `total`. */
  pending: Range;
  /** FAILED to REFUNDED. */
  refund: Range;
  /** Added before delivery when the order activates its address. */
  activation: number;
  /** How far the TRON node's confirmed (solidity) view lags its full node's. */
  confirmation: number;
}

const PROFILES: Record<TimingProfile, ProfileDelays> = {
  realistic: {
    total: { min: 3000, max: 6000 },
    pending: { min: 500, max: 1500 },
    refund: { min: 1000, max: 3000 },
    activation: 1000,
    // 19 blocks of 3 s: when main net's solidity node has a block.
    confirmation: 57_000,
  },
  fast: {
    total: { min: 20, max: 60 },
    pending: { min: 5, max: 15 },
    refund: { min: 10, max: 30 },
    activation: 10,
    confirmation: 60,
  },
  instant: {
    total: { min: 0, max: 0 },
    pending: { min: 0, max: 0 },
    refund: { min: 0, max: 0 },
    activation: 0,
    confirmation: 0,
  },
};

/** Explicit per-step delays, ms: a number, or a range drawn from. */
export interface ExplicitDelays {
  processing?: number | Range;
  outcome?: number | Range;
  refund?: number | Range;
}

/** The delays planned for one order, in ms from its creation. */
export interface OrderPlan {
  processingAfter: number;
  outcomeAfter: number;
  refundAfter: number;
}

/**
 * Draws one order's delays from a profile, or spreads a rule's fixed `delayMs`
 * (creation to outcome) over the steps.
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
    /** Explicit delays that replace the profile's, per step (settings.delaysMs). */
    delays?: ExplicitDelays | undefined;
  },
): OrderPlan {
  const base = PROFILES[profile];
  const range = (d: number | Range | undefined, fallback: Range): Range =>
    d === undefined ? fallback : typeof d === 'number' ? { min: d, max: d } : d;
  const p: ProfileDelays = {
    ...base,
    total: range(options.delays?.outcome, base.total),
    pending: range(options.delays?.processing, base.pending),
    refund: range(options.delays?.refund, base.refund),
  };
  // Always three draws, whatever the profile or rule, so that the same seed gives the
  // same ids and txIds under realistic, fast and instant timing alike.
  const draw = (r: Range): number => {
    const value = random.int(0, 1_000_000);
    return r.min + (value % (r.max - r.min + 1));
  };
  const drawnTotal = draw(p.total);
  const drawnPending = draw(p.pending);
  const drawnRefund = draw(p.refund);
  const activation = options.activates ? (options.activationDelayMs ?? p.activation) : 0;
  let processingAfter: number;
  let outcomeAfter: number;
  if (options.fixedOutcomeMs !== undefined) {
    outcomeAfter = options.fixedOutcomeMs;
    processingAfter = Math.floor(outcomeAfter / 2);
  } else {
    outcomeAfter = drawnTotal + activation;
    processingAfter = Math.min(drawnPending, outcomeAfter);
  }
  return { processingAfter, outcomeAfter, refundAfter: outcomeAfter + drawnRefund };
}

/** The activation delay a profile uses when none is configured. */
export function defaultActivationDelay(profile: TimingProfile): number {
  return PROFILES[profile].activation;
}

/** The TRON node's confirmation lag a profile uses when none is configured. */
export function defaultConfirmation(profile: TimingProfile): number {
  return PROFILES[profile].confirmation;
}
