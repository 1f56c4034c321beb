/** Money as integers in the smallest unit (sun, micro-USDT), parsed and printed digit by digit. */
import { SimulatorError } from './simulator-error.ts';

export type CurrencyCode = 'TRX' | 'USDT';

const UNIT_DECIMALS = 6;
export const UNITS_PER_COIN = 1_000_000;

/** The largest amount any balance may hold, in smallest units. */
export const MAX_AMOUNT: number = Number.MAX_SAFE_INTEGER;

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/**
 * Parses a non-negative decimal string into smallest units.
 *
 * @example
 *   parseUnits('4.23');     // 4_230_000
 *   parseUnits('0.031748'); // 31_748
 */
export function parseUnits(text: string, field = 'amount'): number {
  const match = DECIMAL.exec(text);
  if (!match)
    throw SimulatorError.invalidParameter(
      `'${field}' must be a non-negative decimal string such as "100" or "0.5" (got '${text}').`,
    );
  const whole = match[1]!;
  const fraction = match[2] ?? '';
  if (fraction.length > UNIT_DECIMALS)
    throw SimulatorError.invalidParameter(
      `'${field}' has at most ${UNIT_DECIMALS} decimals (got '${text}').`,
    );
  const units = BigInt(whole) * BigInt(UNITS_PER_COIN) + BigInt(fraction.padEnd(UNIT_DECIMALS, '0') || '0');
  if (units > BigInt(MAX_AMOUNT))
    throw SimulatorError.invalidParameter(
      `'${field}' is too large: at most ${formatUnits(MAX_AMOUNT)} (got '${text}').`,
    );
  return Number(units);
}

/**
 * Prints smallest units as a decimal string without trailing zeros.
 *
 * @example
 *   formatUnits(4_230_000); // '4.23'
 *   formatUnits(0);         // '0'
 */
export function formatUnits(units: number): string {
  assertFormattable(units);
  const whole = Math.floor(units / UNITS_PER_COIN);
  const fraction = String(units % UNITS_PER_COIN)
    .padStart(UNIT_DECIMALS, '0')
    .replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : String(whole);
}

/**
 * Prints smallest units with exactly `decimals` decimals; the value must fit them.
 *
 * @example
 *   formatFixed(800_000, 2); // '0.80'
 *   formatFixed(31_748, 6);  // '0.031748'
 */
export function formatFixed(units: number, decimals: number): string {
  assertFormattable(units);
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > UNIT_DECIMALS)
    throw new RangeError(`decimals must be a whole number from 0 to ${UNIT_DECIMALS} (got ${decimals}).`);
  const step = 10 ** (UNIT_DECIMALS - decimals);
  if (units % step !== 0) throw new RangeError(`${units} units do not fit in ${decimals} decimals.`);
  const whole = Math.floor(units / UNITS_PER_COIN);
  if (decimals === 0) return String(whole);
  const fraction = String((units % UNITS_PER_COIN) / step).padStart(decimals, '0');
  return `${whole}.${fraction}`;
}

/**
 * Prints smallest units as a service shows a decimal-string field: `trimmed`, or exactly N
 * decimals, rounded half up below six and zero-padded above.
 *
 * @example
 *   formatDecimals(795_380_000, 6);         // '795.380000'
 *   formatDecimals(996_100_000, 'trimmed'); // '996.1'
 *   formatDecimals(4_225_000, 2);           // '4.23'
 */
export function formatDecimals(units: number, format: number | 'trimmed'): string {
  if (format === 'trimmed') return formatUnits(units);
  if (format >= UNIT_DECIMALS) return formatFixed(units, UNIT_DECIMALS) + '0'.repeat(format - UNIT_DECIMALS);
  assertFormattable(units);
  // Printed from the bigint: rounding up the largest amount passes MAX_AMOUNT.
  const step = 10n ** BigInt(UNIT_DECIMALS - format);
  const rounded = roundHalfUp(BigInt(units), step);
  const whole = rounded / BigInt(UNITS_PER_COIN);
  const fraction = String((rounded % BigInt(UNITS_PER_COIN)) / step).padStart(format, '0');
  return format === 0 ? String(whole) : `${whole}.${fraction}`;
}

/** Money is never negative, fractional or past MAX_AMOUNT: printing such a value is a bug. */
function assertFormattable(units: number): void {
  if (!Number.isSafeInteger(units) || units < 0)
    throw new RangeError(
      `Cannot print ${units} as money: an amount is a whole number of smallest units from 0 to ${MAX_AMOUNT}.`,
    );
}

/**
 * Rounds a non-negative bigint amount half up to a multiple of `step`.
 *
 * @example
 *   roundHalfUp(4_225_000n, 10_000n); // 4_230_000n
 */
export function roundHalfUp(value: bigint, step: bigint): bigint {
  return ((value + step / 2n) / step) * step;
}
