import { describe, expect, it } from 'vitest';
import { createRandomSource } from './random-source.ts';

function draws(seed: number) {
  const random = createRandomSource(seed);
  return [random.hex(64), random.upperAlphanumeric(8), random.alphanumeric(12), random.int(1, 1_000_000), random.float(), [...random.bytes(20)]];
}

describe('random source', () => {
  it('gives the same sequence for the same seed and a different one for another seed', () => {
    expect(draws(42)).toEqual(draws(42));
    expect(draws(43)).not.toEqual(draws(42));
  });

  it('keeps two sources with the same seed independent of each other', () => {
    const a = createRandomSource(5);
    const b = createRandomSource(5);
    const first = a.hex(32);
    a.hex(32);
    expect(b.hex(32)).toBe(first);
  });

  it('draws values of the promised shapes and ranges', () => {
    const random = createRandomSource(7);
    for (let i = 0; i < 500; i++) {
      expect(random.hex(64)).toMatch(/^[0-9a-f]{64}$/);
      expect(random.upperAlphanumeric(8)).toMatch(/^[A-Z0-9]{8}$/);
      expect(random.alphanumeric(10)).toMatch(/^[A-Za-z0-9]{10}$/);
      const n = random.int(3, 5);
      expect(n === 3 || n === 4 || n === 5).toBe(true);
      const f = random.float();
      expect(f >= 0 && f < 1).toBe(true);
      const bytes = random.bytes(4);
      expect(bytes).toHaveLength(4);
      for (const b of bytes) expect(b >= 0 && b <= 255).toBe(true);
    }
  });
});
