/**
 * Behaviour settings of a simulator: the switches for everything upstream leaves open.
 */
import { defaultActivationDelay, TIMING_PROFILES, type TimingProfile } from './timing.ts';
import { DEFAULT_PRICES, validatePrices, type PeriodCode } from './pricing.ts';
import type { components } from '../../src/generated/control.ts';
import { SimulatorError } from './simulator-error.ts';

type Control = components['schemas'];
/** What each kind of API rejection answers (spec/control.yaml's ErrorCatalogue). */
export type ErrorCatalogue = Control['ErrorCatalogue'];
export type ErrorCatalogueKind = keyof ErrorCatalogue;
/** Explicit lifecycle delays, ms (spec/control.yaml's LifecycleDelays). */
export type LifecycleDelays = Control['LifecycleDelays'];

export interface Settings {
  timing: TimingProfile;
  /** Sun per energy unit by period. */
  prices: Record<PeriodCode, number>;
  /** Probability that an order no rule decides fails. */
  failureRate: number;
  /** Micro-USDT per TRX, for orders paid in USDT. */
  microUsdtPerTrx: number;
  /** `code` of a successful account response; upstream has been seen answering 1. */
  accountSuccessCode: 0 | 1;
  /** A second order with a known outOrderNo returns the first order, or is rejected. */
  duplicateOutOrderNo: 'return-existing' | 'reject';
  /** HTTP status of rejections: mapped per error, or always 200 with only `code` telling. */
  errorStatus: 'mapped' | 'always-200';
  /** Extra delay before delivery when an order activates its address; the profile's when undefined. */
  activationDelayMs: number | undefined;
  /** Per-key limit of `requests` per `windowMs` of the simulator's clock; null is none. */
  rateLimit: { requests: number; windowMs: number } | null;
  /** Orders kept before the oldest finished ones are evicted, so memory stays bounded. */
  maxStoredOrders: number;
  /** Activation records kept before the oldest that no stored order names are evicted. */
  maxStoredAddresses: number;
  /** Status, code and message of each kind of API rejection, where not the default. */
  errors: ErrorCatalogue;
  /** The unit of `createdAt` in the API's history. */
  createdAtUnit: Control['CreatedAtUnit'];
  /** Lifecycle delays that replace the timing profile's, per step. */
  delaysMs: LifecycleDelays;
  /** What an unknown path answers: the JSON envelope or a plain HTML 404. */
  unknownPath: Control['UnknownPathAnswer'];
}

export const DEFAULT_SETTINGS: Settings = {
  timing: 'realistic',
  prices: DEFAULT_PRICES,
  failureRate: 0,
  microUsdtPerTrx: 190_000,
  accountSuccessCode: 0,
  duplicateOutOrderNo: 'return-existing',
  errorStatus: 'mapped',
  activationDelayMs: undefined,
  rateLimit: null,
  // About 35 MB of orders (≈ 350 B each, bench/README.md): a week-long CI simulator stays that size.
  maxStoredOrders: 100_000,
  // As many as orders: the addresses stored orders name are kept whatever the bound, and
  // a record is about 200 B (300 000 of them made a 93 MB state file with their orders).
  maxStoredAddresses: 100_000,
  errors: {},
  createdAtUnit: 'ms',
  delaysMs: {},
  unknownPath: 'envelope',
};

export type SettingsPatch = Partial<Omit<Settings, 'prices'>> & {
  prices?: Partial<Record<PeriodCode, number>>;
};

/**
 * Applies a patch to settings, checking every value it changes.
 *
 * @example
 *   applySettings(DEFAULT_SETTINGS, { failureRate: 0.1 }).failureRate; // 0.1
 */
export function applySettings(current: Settings, patch: SettingsPatch): Settings {
  if (patch.prices) validatePrices(patch.prices);
  if (patch.failureRate !== undefined && !(patch.failureRate >= 0 && patch.failureRate <= 1)) {
    throw SimulatorError.invalidParameter(
      `failureRate must be a number from 0 to 1 (got ${patch.failureRate}).`,
    );
  }
  if (
    patch.microUsdtPerTrx !== undefined &&
    !(Number.isSafeInteger(patch.microUsdtPerTrx) && patch.microUsdtPerTrx > 0)
  ) {
    throw SimulatorError.invalidParameter(
      `usdtPerTrx must be a positive decimal with at most 6 decimals (got ${patch.microUsdtPerTrx} micro-USDT).`,
    );
  }
  const oneOf = <T>(name: string, value: T | undefined, allowed: readonly T[]): void => {
    if (value !== undefined && !allowed.includes(value)) {
      throw SimulatorError.invalidParameter(
        `${name} must be one of ${allowed.join(', ')} (got ${String(value)}).`,
      );
    }
  };
  oneOf('timing', patch.timing, TIMING_PROFILES);
  oneOf('accountSuccessCode', patch.accountSuccessCode, [0, 1] as const);
  oneOf('duplicateOutOrderNo', patch.duplicateOutOrderNo, ['return-existing', 'reject'] as const);
  oneOf('errorStatus', patch.errorStatus, ['mapped', 'always-200'] as const);
  oneOf('createdAtUnit', patch.createdAtUnit, ['ms', 's'] as const);
  oneOf('unknownPath', patch.unknownPath, ['envelope', 'html'] as const);
  for (const [step, delay] of Object.entries(patch.delaysMs ?? {})) {
    const [min, max] = typeof delay === 'number' ? [delay, delay] : [delay.min, delay.max];
    if (!(Number.isSafeInteger(min) && Number.isSafeInteger(max) && min >= 0 && min <= max)) {
      throw SimulatorError.invalidParameter(
        `delaysMs.${step} must be whole milliseconds >= 0, or { min, max } with min <= max (got ${JSON.stringify(delay)}).`,
      );
    }
  }
  if (
    patch.activationDelayMs !== undefined &&
    !(Number.isSafeInteger(patch.activationDelayMs) && patch.activationDelayMs >= 0)
  ) {
    throw SimulatorError.invalidParameter(
      `activationDelayMs must be a whole number of milliseconds >= 0 (got ${patch.activationDelayMs}).`,
    );
  }
  if (
    patch.maxStoredOrders !== undefined &&
    !(Number.isSafeInteger(patch.maxStoredOrders) && patch.maxStoredOrders >= 1)
  ) {
    throw SimulatorError.invalidParameter(
      `maxStoredOrders must be a whole number >= 1 (got ${patch.maxStoredOrders}).`,
    );
  }
  if (
    patch.maxStoredAddresses !== undefined &&
    !(Number.isSafeInteger(patch.maxStoredAddresses) && patch.maxStoredAddresses >= 1)
  ) {
    throw SimulatorError.invalidParameter(
      `maxStoredAddresses must be a whole number >= 1 (got ${patch.maxStoredAddresses}).`,
    );
  }
  const limit = patch.rateLimit;
  if (
    limit &&
    !(
      Number.isSafeInteger(limit.requests) &&
      limit.requests >= 1 &&
      Number.isSafeInteger(limit.windowMs) &&
      limit.windowMs >= 1
    )
  ) {
    throw SimulatorError.invalidParameter(
      `rateLimit needs whole numbers requests >= 1 and windowMs >= 1 (got ${JSON.stringify(limit)}).`,
    );
  }
  const { prices, ...rest } = patch;
  const next: Settings = { ...current, prices: { ...current.prices, ...prices } };
  for (const [key, value] of Object.entries(rest))
    if (value !== undefined) (next as unknown as Record<string, unknown>)[key] = value;
  return next;
}

/** The activation delay in force. */
export function activationDelay(settings: Settings): number {
  return settings.activationDelayMs ?? defaultActivationDelay(settings.timing);
}
