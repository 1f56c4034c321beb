/** The documented facts (spec/openapi.yaml's `x-facts`), and amounts compared by value ("5.7" is "5.70"). */
import { FACTS, type FactId } from '../src/generated/lists.ts';

export type { FactId };

/**
 * One line naming a fact: its id, its document and the sentence quoted from it.
 *
 * @example
 *   describeFact('usdt-decimals'); // 'usdt-decimals (upstream.md): "USDT shows six decimals."'
 */
export function describeFact(id: FactId): string {
  const fact = FACTS.find((known) => known.id === id)!;
  return `${fact.id} (${fact.source}): "${fact.quote}"`;
}

/** Every fact, one paragraph each, as `contract --facts` prints them. */
export function listFacts(): string {
  return `${FACTS.map((fact) => `${fact.id}\n  ${fact.source}: ${fact.quote}`).join('\n')}\n`;
}

/** An exact decimal (a string or a JSON number's shortest form) in millionths; undefined when it is none. */
function millionths(value: string | number): bigint | undefined {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(String(value));
  if (!match) return undefined;
  const fraction = (match[2] ?? '').padEnd(7, '0');
  // The seventh decimal rounds the sixth half up: amounts past six decimals are no one's.
  return BigInt(match[1]!) * 1_000_000n + BigInt(fraction.slice(0, 6)) + (fraction[6]! >= '5' ? 1n : 0n);
}

const showCents = (cents: bigint): string => `${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`;

/**
 * An amount rounded half up to two decimals; the text itself when it is no decimal.
 *
 * @example
 *   atTwoDecimals('5.7'); // '5.70'
 *   atTwoDecimals(3.84); // '3.84'
 */
export function atTwoDecimals(value: string | number): string {
  const exact = millionths(value);
  return exact === undefined ? String(value) : showCents((exact + 5_000n) / 10_000n);
}

/** Millionths as a decimal without trailing zeros. */
function showMillionths(exact: bigint): string {
  const fraction = String(exact % 1_000_000n)
    .padStart(6, '0')
    .replace(/0+$/, '');
  return `${exact / 1_000_000n}${fraction ? `.${fraction}` : ''}`;
}

/**
 * A decimal's exact value without trailing zeros; the text itself when it is no decimal.
 *
 * @example
 *   exactValue('4.230000'); // '4.23'
 */
export function exactValue(value: string | number): string {
  const exact = millionths(value);
  return exact === undefined ? String(value) : showMillionths(exact);
}

/**
 * The exact sum of decimals (what is no decimal counts nothing).
 *
 * @example
 *   sumOf(['3.84', '0.16']); // '4'
 */
export function sumOf(values: string[]): string {
  return showMillionths(values.reduce((total, value) => total + (millionths(value) ?? 0n), 0n));
}

/**
 * `rentalCount` × `sun` sun in TRX at two decimals, rounded half up or up (both upstream's rule allows).
 *
 * @example
 *   trxPrices(65000, '65'); // { halfUp: '4.23', up: '4.23' }
 */
export function trxPrices(rentalCount: number, sun: string): { halfUp: string; up: string } {
  const costSun = BigInt(rentalCount) * BigInt(sun);
  return {
    halfUp: exactValue(showCents((costSun + 5_000n) / 10_000n)),
    up: exactValue(showCents((costSun + 9_999n) / 10_000n)),
  };
}
