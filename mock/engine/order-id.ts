/**
 * Order ids: "OR", the creation time to the second (UTC, yyyyMMddHHmmss) and eight
 * upper-case letters or digits, as upstream's "OR20250312175009ZQAS3GWA".
 */
import type { RandomSource } from './random-source.ts';

const PREFIX = 'OR';
const RANDOM_LENGTH = 8;

/** Makes a new order id for the time `now` (Unix ms), its last eight characters drawn from `random`. */
export type OrderIdMaker = (now: number, random: RandomSource) => string;

/**
 * An engine's order-id maker: it keeps the stamp of the last second it saw, so the maker
 * belongs to one engine and nothing is shared between engines. Its ids' last eight
 * characters are what `random.upperAlphanumericInto` writes for eight: one draw, its
 * base-36 digits.
 *
 * @example
 *   const orderId = createOrderIdMaker();
 *   orderId(Date.UTC(2025, 2, 12, 17, 50, 9), createRandomSource(1)); // 'OR20250312175009' + 8 drawn characters
 */
export function createOrderIdMaker(): OrderIdMaker {
  // Character codes of the id being built: the prefix and the stamp, then the drawn part.
  // Built as codes and turned into a string in one call, the id is one flat string;
  // joined with `+` or a template it would be a tree of concatenated strings (three nodes
  // of 32 B each here) that every stored id keeps.
  let codes: number[] = [];
  // The stamp of the last second seen: many orders share a second, and formatting a date
  // costs more than the rest of the id.
  let stampSecond = Number.NaN;

  function writeStamp(now: number): void {
    // As `new Date(now)` reads it: whole milliseconds, then the second they fall in.
    const second = Math.floor(Math.trunc(now) / 1000);
    if (second === stampSecond) return;
    stampSecond = second;
    const d = new Date(second * 1000);
    const pad = (n: number): string => String(n).padStart(2, '0');
    const stamp = `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}`;
    codes = [...`${PREFIX}${stamp}`]
      .map((c) => c.charCodeAt(0))
      .concat(new Array<number>(RANDOM_LENGTH).fill(0));
  }

  return (now, random) => {
    writeStamp(now);
    random.upperAlphanumericInto(codes, codes.length - RANDOM_LENGTH, RANDOM_LENGTH);
    return String.fromCharCode.apply(null, codes);
  };
}
