/**
 * The engine's only source of randomness: a faker instance seeded from the
 * simulator's seed, so the same seed gives the same ids, keys, addresses, txIds and
 * outcomes.
 */
// The locale entry imports in a fraction of the package root's time; it exports a ready
// instance, not the class, so the class is taken from that instance to build one private
// faker per engine.
import { faker as baseFaker } from '@faker-js/faker/locale/base';

type FakerInstance = typeof baseFaker;
const FakerClass = baseFaker.constructor as new (options: {
  locale: FakerInstance['rawDefinitions'];
}) => FakerInstance;

/**
 * The characters faker's `string.hexadecimal` picks from, in its order: a draw picks one
 * of these 22, and lower-casing folds the upper-case six onto a–f. Drawing from this
 * table ourselves gives the very same characters for a seed as faker's own function, at
 * a quarter of its cost (it builds and joins an array per call).
 */
const FAKER_HEX_CHARACTERS = '0123456789abcdefABCDEF';
/** The digit each of those characters stands for. */
const FAKER_HEX_NIBBLES = [...FAKER_HEX_CHARACTERS].map((c) => Number.parseInt(c, 16));
const LOWER_HEX = '0123456789abcdef';
/**
 * faker's `string.alphanumeric({ casing: 'upper' })` picks from these, in this order;
 * also the base-36 digits of `upperAlphanumericInto`.
 */
const UPPER_ALPHANUMERIC = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
/** The largest 32-bit word: `hexInto` draws whole words, not single digits. */
const WORD_MAX = 0xffff_ffff;
/**
 * Characters `upperAlphanumericInto` takes from one draw. 36^8 - 1 is a safe integer, so
 * the draw is exact, and faker's 2^53 fractions spread over 36^8 values give each about
 * 3193, so their odds differ by about one part in 3000; over 36^10 values it would be
 * about 2.5 each, far from even.
 */
const CHARACTERS_PER_DRAW = 8;
/** `36 ** k - 1` for k = 0..8, by integer products: the draw for a run of k characters. */
const RUN_MAX: readonly number[] = Array.from({ length: CHARACTERS_PER_DRAW + 1 }, (_, k) => {
  let power = 1;
  for (let i = 0; i < k; i++) power *= 36;
  return power - 1;
});

export interface RandomSource {
  readonly seed: number;
  /** A float in [0, 1). */
  float(): number;
  /** An integer in [min, max], both included. */
  int(min: number, max: number): number;
  /** `length` lower-case hex characters. */
  hex(length: number): string;
  /**
   * `byteLength` random bytes written into `into` from `offset`, nothing outside that
   * range touched: each 4 bytes are one draw of `int(0, 0xffffffff)`, high byte first,
   * and a last 1–3 bytes are the high bytes of one more such draw. Not the draws of
   * `hex(2 * byteLength)`: a txId costs 8 draws instead of 64.
   */
  hexInto(into: Uint8Array, offset: number, byteLength: number): void;
  /** `length` upper-case letters and digits. */
  upperAlphanumeric(length: number): string;
  /**
   * The codes of `length` upper-case letters and digits written into `into` from
   * `offset`: each run of up to 8 characters is one draw of `int(0, 36 ** k - 1)` for
   * its k characters, written as k base-36 digits, most significant first, 0–9 then A–Z.
   * Not the draws of `upperAlphanumeric(length)`: an order id costs 1 draw instead of 8.
   */
  upperAlphanumericInto(into: number[], offset: number, length: number): void;
  /** `length` letters and digits. */
  alphanumeric(length: number): string;
  /** `length` random bytes. */
  bytes(length: number): Uint8Array;
}

/**
 * Creates a seeded random source.
 *
 * @example
 *   createRandomSource(42).hex(64) === createRandomSource(42).hex(64); // true
 */
export function createRandomSource(seed: number): RandomSource {
  const faker = new FakerClass({ locale: baseFaker.rawDefinitions });
  faker.seed(seed);
  // faker's `helpers.arrayElement(list)` is `list[number.int(list.length - 1)]`: one draw.
  const pick = (count: number): number => faker.number.int(count - 1);
  return {
    seed,
    float: () => faker.number.float({ min: 0, max: 1 - Number.EPSILON }),
    int: (min, max) => faker.number.int({ min, max }),
    hex(length) {
      // Joined, not concatenated: one flat string rather than a chain of pieces.
      if (!(length > 0)) return '';
      const chars = new Array<string>(length);
      for (let i = 0; i < length; i++) chars[i] = LOWER_HEX[FAKER_HEX_NIBBLES[pick(22)]!]!;
      return chars.join('');
    },
    hexInto(into, offset, byteLength) {
      // faker's int(max) is floor(53-bit fraction * (max + 1)); with max + 1 = 2^32 that is
      // exactly the fraction's top 32 bits, so every word, and every byte of it, is uniform.
      const end = offset + byteLength;
      for (let at = offset; at < end;) {
        const word = faker.number.int(WORD_MAX);
        for (let shift = 24; shift >= 0 && at < end; shift -= 8) into[at++] = (word >>> shift) & 0xff;
      }
    },
    upperAlphanumeric(length) {
      if (!(length > 0)) return '';
      const chars = new Array<string>(length);
      for (let i = 0; i < length; i++) chars[i] = UPPER_ALPHANUMERIC[pick(36)]!;
      return chars.join('');
    },
    upperAlphanumericInto(into, offset, length) {
      for (let start = 0; start < length; start += CHARACTERS_PER_DRAW) {
        const count = Math.min(CHARACTERS_PER_DRAW, length - start);
        let n = faker.number.int(RUN_MAX[count]!);
        // From the run's end, least significant digit first: n passes 2^32, so it is
        // divided exactly (digit taken off first) rather than truncated with `| 0`.
        for (let at = offset + start + count - 1; at >= offset + start; at--) {
          const digit = n % 36;
          into[at] = UPPER_ALPHANUMERIC.charCodeAt(digit);
          n = (n - digit) / 36;
        }
      }
    },
    alphanumeric: (length) => faker.string.alphanumeric({ length }),
    bytes(length) {
      const out = new Uint8Array(length);
      for (let i = 0; i < length; i++) out[i] = faker.number.int({ min: 0, max: 255 });
      return out;
    },
  };
}
