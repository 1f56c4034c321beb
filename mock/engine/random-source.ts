/** The engine's only randomness, a seeded faker: each function draws exactly what its comment says. */
import { faker as baseFaker } from '@faker-js/faker/locale/base';

type FakerInstance = typeof baseFaker;
// The locale entry exports an instance: its class builds one private faker per source.
const FakerClass = baseFaker.constructor as new (options: {
  locale: FakerInstance['rawDefinitions'];
}) => FakerInstance;

export interface RandomSource {
  /** A float in [0, 1). */
  float(): number;
  /** An integer in [min, max], both included. */
  int(min: number, max: number): number;
  /** `length` lower-case hex characters. */
  hex(length: number): string;
  /** `count` 32-bit words, each one draw of `int(0, 0xffffffff)`, as 8 hex digits each: a txId is 8 words. */
  hexWords(count: number): string;
  /** `length` (at most 8) upper-case letters and digits: the base-36 digits of one draw of `int(0, 36 ** length - 1)`. */
  base36(length: number): string;
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
  return {
    float: () => faker.number.float({ min: 0, max: 1 - Number.EPSILON }),
    int: (min, max) => faker.number.int({ min, max }),
    hex: (length) => faker.string.hexadecimal({ length, casing: 'lower', prefix: '' }),
    hexWords: (count) =>
      Array.from({ length: count }, () => faker.number.int(0xffff_ffff).toString(16).padStart(8, '0')).join(
        '',
      ),
    base36(length) {
      if (!(length >= 1 && length <= 8))
        throw new RangeError(`base36 draws 1 to 8 characters (got ${length}).`);
      return faker.number
        .int(36 ** length - 1)
        .toString(36)
        .toUpperCase()
        .padStart(length, '0');
    },
    alphanumeric: (length) => faker.string.alphanumeric({ length }),
    bytes: (length) => Uint8Array.from({ length }, () => faker.number.int({ min: 0, max: 255 })),
  };
}
