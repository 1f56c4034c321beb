/** Prices: sun per unit of energy for each period; the estimate and the charge share `quote`. */
import { API_OPERATION_SPECS, ENGINE_SETTINGS, PERIODS } from '../../src/generated/lists.ts';
import { formatFixed, roundHalfUp, UNITS_PER_COIN } from './money.ts';
import type { Settings } from './settings.ts';
import { SimulatorError } from './simulator-error.ts';

/** spec/openapi.yaml's Period enum. */
export { PERIODS };
export type PeriodCode = (typeof PERIODS)[number];

/** Length of each rental period in milliseconds. */
export const PERIOD_MS: Record<PeriodCode, number> = {
  '10min': 600_000,
  '1h': 3_600_000,
  '1d': 86_400_000,
  '3d': 259_200_000,
  '7d': 604_800_000,
  '14d': 1_209_600_000,
  '30d': 2_592_000_000,
};

/** Sun per energy unit; 1h at 65 is the upstream example, the rest are plausible. */
export const DEFAULT_PRICES: Record<PeriodCode, number> = {
  '10min': 60,
  '1h': 65,
  '1d': 80,
  '3d': 85,
  '7d': 90,
  '14d': 95,
  '30d': 100,
};

/** Highest sun per unit a price table accepts, so that no cost can overflow (spec/control.yaml's StateSunPerUnit). */
export const MAX_SUN_PER_UNIT: number = ENGINE_SETTINGS.prices.properties['1h'].maximum;

/** Amounts are charged and shown to 0.01 of a coin, as upstream shows "4.23". */
const CHARGE_STEP = 10_000n;
export const SHOWN_DECIMALS = 2;

export interface Quote {
  period: PeriodCode;
  rentalCount: number;
  sunPerUnit: number;
  /** What the order costs in sun: rentalCount × sun, rounded half up to 0.01 TRX. */
  costSun: number;
  /** `costSun` as upstream prints it, e.g. '4.23'. */
  trxPrice: string;
}

/**
 * Prices an order.
 *
 * @example
 *   quote(DEFAULT_PRICES, 65_000, '1h').trxPrice; // '4.23' (4,225,000 sun rounded half up)
 */
export function quote(prices: Record<PeriodCode, number>, rentalCount: number, period: PeriodCode): Quote {
  const sunPerUnit = prices[period];
  const costSun = Number(roundHalfUp(BigInt(rentalCount) * BigInt(sunPerUnit), CHARGE_STEP));
  return { period, rentalCount, sunPerUnit, costSun, trxPrice: formatFixed(costSun, SHOWN_DECIMALS) };
}

/** The order's minimum rentalCount (spec/openapi.yaml's OrderRentalCount). */
const ORDER_MINIMUM: number = API_OPERATION_SPECS.createOrder.parameters.rentalCount.minimum;

/**
 * Refuses a rentalCount above `maxRentalCount`, or on a price below the order's minimum with `priceMinimum`.
 *
 * @example
 *   checkQuantity({ maxRentalCount: 10_000_000, priceMinimum: false }, 98_765_432, 'price'); // throws aboveMaximum
 */
export function checkQuantity(
  settings: Pick<Settings, 'maxRentalCount' | 'priceMinimum'>,
  rentalCount: number,
  operation: 'price' | 'order',
): void {
  const max = settings.maxRentalCount;
  const [reason, rule] =
    max !== null && rentalCount > max
      ? (['aboveMaximum', `at most ${max}`] as const)
      : operation === 'price' && settings.priceMinimum && rentalCount < ORDER_MINIMUM
        ? (['belowMinimum', `at least ${ORDER_MINIMUM}`] as const)
        : [];
  if (!reason) return;
  const error = new SimulatorError(
    'parameterInvalid',
    `Parameter 'rentalCount' must be ${rule} (got ${rentalCount}).`,
  );
  error.reason = reason;
  error.parameter = 'rentalCount';
  throw error;
}

/**
 * Converts a TRX cost into micro-USDT at `microUsdtPerTrx`, rounded half up to 0.01 USDT.
 *
 * @example
 *   usdtCost(4_230_000, 190_000); // 800_000 (0.80 USDT, the upstream example's 0.8)
 */
export function usdtCost(costSun: number, microUsdtPerTrx: number): number {
  const scale = BigInt(UNITS_PER_COIN);
  return Number(roundHalfUp(BigInt(costSun) * BigInt(microUsdtPerTrx), CHARGE_STEP * scale) / scale);
}
