/**
 * The engine's only source of randomness: a faker instance seeded from the
 * simulator's seed, so the same seed gives the same ids, keys, addresses, txIds and
 * outcomes.
 */
// The locale entry costs ~15 ms to import where the package root costs ~130 ms, and
// start-up time is a benchmark target; it exports a ready instance, not the class, so
// the class is taken from that instance to build one private faker per engine.
import { faker as baseFaker } from '@faker-js/faker/locale/base';

type FakerInstance = typeof baseFaker;
const FakerClass = baseFaker.constructor as new (options: { locale: FakerInstance['rawDefinitions'] }) => FakerInstance;

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
/** faker's `string.alphanumeric({ casing: 'upper' })` picks from these, in this order. */
const UPPER_ALPHANUMERIC = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

export interface RandomSource {
  readonly seed: number;
  /** A float in [0, 1). */
  float(): number;
  /** An integer in [min, max], both included. */
  int(min: number, max: number): number;
  /** `length` lower-case hex characters. */
  hex(length: number): string;
  /**
   * The same draws as `hex(2 * byteLength)`, kept as bytes (two hex digits a byte, the
   * first digit in the high half) in `into` from `offset`: half the memory of the string.
   */
  hexInto(into: Uint8Array, offset: number, byteLength: number): void;
  /** `length` upper-case letters and digits. */
  upperAlphanumeric(length: number): string;
  /** The character codes `upperAlphanumeric(length)` would give, written into `into` from `offset`. */
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
      for (let i = 0; i < byteLength; i++) {
        const high = FAKER_HEX_NIBBLES[pick(22)]!;
        into[offset + i] = (high << 4) | FAKER_HEX_NIBBLES[pick(22)]!;
      }
    },
    upperAlphanumeric(length) {
      if (!(length > 0)) return '';
      const chars = new Array<string>(length);
      for (let i = 0; i < length; i++) chars[i] = UPPER_ALPHANUMERIC[pick(36)]!;
      return chars.join('');
    },
    upperAlphanumericInto(into, offset, length) {
      for (let i = 0; i < length; i++) into[offset + i] = UPPER_ALPHANUMERIC.charCodeAt(pick(36));
    },
    alphanumeric: (length) => faker.string.alphanumeric({ length }),
    bytes(length) {
      const out = new Uint8Array(length);
      for (let i = 0; i < length; i++) out[i] = faker.number.int({ min: 0, max: 255 });
      return out;
    },
  };
}
