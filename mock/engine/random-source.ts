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

export interface RandomSource {
  readonly seed: number;
  /** A float in [0, 1). */
  float(): number;
  /** An integer in [min, max], both included. */
  int(min: number, max: number): number;
  /** `length` lower-case hex characters. */
  hex(length: number): string;
  /** `length` upper-case letters and digits. */
  upperAlphanumeric(length: number): string;
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
    seed,
    float: () => faker.number.float({ min: 0, max: 1 - Number.EPSILON }),
    int: (min, max) => faker.number.int({ min, max }),
    hex: (length) => faker.string.hexadecimal({ length, casing: 'lower', prefix: '' }),
    upperAlphanumeric: (length) => faker.string.alphanumeric({ length, casing: 'upper' }),
    alphanumeric: (length) => faker.string.alphanumeric({ length }),
    bytes(length) {
      const out = new Uint8Array(length);
      for (let i = 0; i < length; i++) out[i] = faker.number.int({ min: 0, max: 255 });
      return out;
    },
  };
}
