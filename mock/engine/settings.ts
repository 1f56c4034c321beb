/** The engine's settings (spec/control.yaml's EngineSettings): the defaults, and how a patch applies. */
import type { components } from '../../src/generated/control.ts';
import { parseUnits } from './money.ts';
import { DEFAULT_PRICES, type PeriodCode } from './pricing.ts';
import { checkSettingsPatch } from './settings-check.ts';
import { PROFILES } from './timing.ts';

type Control = components['schemas'];
/** What each kind of API rejection answers (spec/control.yaml's ErrorCatalogue). */
export type ErrorCatalogue = Control['ErrorCatalogue'];
export type ErrorCatalogueKind = keyof ErrorCatalogue;

/** A patch of the engine's settings: spec/control.yaml's EngineSettings. */
export type SettingsPatch = Control['EngineSettings'];

/** The settings in force: every setting of EngineSettings, with a price for every period. */
export interface Settings extends Required<Omit<SettingsPatch, 'prices' | 'activationDelayMs'>> {
  /** Sun per energy unit by period. */
  prices: Record<PeriodCode, number>;
  /** Extra delay before delivery when an order activates its address; the profile's when undefined. */
  activationDelayMs: number | undefined;
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
  maxStoredOrders: 100_000,
  maxStoredAddresses: 100_000,
  errors: {},
  createdAtUnit: 'ms',
  delaysMs: {},
  unknownPath: 'envelope',
  envelopeTimeUnit: 's',
  decimals: {},
  extraFields: {},
  hiddenStatuses: [],
  historyPrefers: 'orderId',
  whenTrxShort: 'pay-usdt',
  chain: {},
  maxRentalCount: null,
  priceMinimum: false,
};

/**
 * Applies a patch, checked against the spec, to settings; a setting left undefined keeps its value.
 *
 * @example
 *   applySettings(DEFAULT_SETTINGS, { failureRate: 0.1 }).failureRate; // 0.1
 */
export function applySettings(current: Settings, patch: SettingsPatch): Settings {
  checkSettingsPatch(patch);
  const { prices, chain, ...rest } = patch;
  const next: Settings = { ...current, prices: { ...current.prices }, chain: { ...current.chain, ...chain } };
  for (const [period, sun] of Object.entries(prices ?? {}))
    if (sun !== undefined) next.prices[period as PeriodCode] = sun;
  for (const [key, value] of Object.entries(rest))
    if (value !== undefined) (next as unknown as Record<string, unknown>)[key] = value;
  // A balance the token's 6 decimals cannot hold is refused now.
  for (const [address, usdt] of Object.entries(next.chain.usdtBalances ?? {}))
    parseUnits(usdt, `chain.usdtBalances.${address}`);
  return next;
}

export function activationDelay(settings: Settings): number {
  return settings.activationDelayMs ?? PROFILES[settings.timing].activation;
}
