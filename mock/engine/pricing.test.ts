import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatFixed } from './money.ts';
import {
  DEFAULT_PRICES,
  MAX_SUN_PER_UNIT,
  PERIOD_MS,
  PERIODS,
  quote,
  usdtCost,
  type PeriodCode,
} from './pricing.ts';

function prices(period: PeriodCode, sun: number): Record<PeriodCode, number> {
  return { ...DEFAULT_PRICES, [period]: sun };
}

describe('quote', () => {
  it("prices upstream's example, 65000 energy at 65 sun, at '4.23' TRX where binary floats give 4.22", () => {
    const q = quote(DEFAULT_PRICES, 65_000, '1h');
    expect(q).toEqual({
      period: '1h',
      rentalCount: 65_000,
      sunPerUnit: 65,
      costSun: 4_230_000,
      trxPrice: '4.23',
    });
    // The trap the integer arithmetic avoids.
    expect(((65_000 * 65) / 1_000_000).toFixed(2)).toBe('4.22');
  });

  it("prices 64000 energy at 65 sun at '4.16' TRX", () => {
    const q = quote(DEFAULT_PRICES, 64_000, '1h');
    expect(q.costSun).toBe(4_160_000);
    expect(q.trxPrice).toBe('4.16');
  });

  it('rounds an exact half cent up', () => {
    expect(quote(prices('1d', 90), 64_500, '1d')).toMatchObject({ costSun: 5_810_000, trxPrice: '5.81' }); // 5,805,000 sun
    expect(quote(prices('1d', 1), 5_000, '1d')).toMatchObject({ costSun: 10_000, trxPrice: '0.01' }); // 0.005 TRX
    expect(quote(prices('1d', 1), 15_000, '1d')).toMatchObject({ costSun: 20_000, trxPrice: '0.02' }); // 0.015 TRX
  });

  it('rounds just below half a cent down and just above it up', () => {
    expect(quote(prices('1d', 1), 4_999, '1d').trxPrice).toBe('0.00');
    expect(quote(prices('1d', 1), 5_001, '1d').trxPrice).toBe('0.01');
    expect(quote(DEFAULT_PRICES, 64_999, '1h').trxPrice).toBe('4.22'); // 4,224,935 sun
  });

  it('uses the price of the requested period', () => {
    for (const period of PERIODS) {
      const q = quote(DEFAULT_PRICES, 100_000, period);
      expect(q.sunPerUnit).toBe(DEFAULT_PRICES[period]);
      expect(q.costSun).toBe(100_000 * DEFAULT_PRICES[period]);
    }
  });

  it('always shows trxPrice as costSun to two decimals, and charges within half a cent of the exact cost', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000_000 }),
        fc.integer({ min: 1, max: MAX_SUN_PER_UNIT }),
        fc.constantFrom(...PERIODS),
        (rentalCount, sun, period) => {
          const q = quote(prices(period, sun), rentalCount, period);
          expect(q.trxPrice).toBe(formatFixed(q.costSun, 2));
          expect(Number.isSafeInteger(q.costSun)).toBe(true);
          expect(q.costSun % 10_000).toBe(0);
          expect(Math.abs(q.costSun - rentalCount * sun)).toBeLessThanOrEqual(5_000);
        },
      ),
      { numRuns: 2_000, seed: 20250312 },
    );
  });
});

describe('usdtCost', () => {
  it("converts upstream's 4.23 TRX at 0.19 USDT per TRX into 0.80 USDT", () => {
    expect(usdtCost(4_230_000, 190_000)).toBe(800_000);
  });

  it('rounds the exact product once, half up to 0.01 USDT', () => {
    // 0.05 TRX at 0.1 USDT/TRX = 0.005 USDT exactly: half a cent goes up.
    expect(usdtCost(50_000, 100_000)).toBe(10_000);
    // 0.049999 TRX at 0.1 = 0.0049999 USDT: below half, goes down.
    expect(usdtCost(49_999, 100_000)).toBe(0);
    // 1 TRX at 0.123456 USDT = 0.123456 → 0.12
    expect(usdtCost(1_000_000, 123_456)).toBe(120_000);
    // 1 TRX at 0.125 USDT = 0.125 → 0.13
    expect(usdtCost(1_000_000, 125_000)).toBe(130_000);
  });

  it('always returns whole cents of USDT within half a cent of the exact conversion', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000_000_000 }),
        fc.integer({ min: 1, max: 10_000_000 }),
        (costSun, rate) => {
          const micro = usdtCost(costSun, rate);
          expect(micro % 10_000).toBe(0);
          const exactTimes1e6 = BigInt(costSun) * BigInt(rate); // micro-USDT × 10^6
          const diff = BigInt(micro) * 1_000_000n - exactTimes1e6;
          expect(diff > -5_000_000_000n && diff <= 5_000_000_000n).toBe(true);
        },
      ),
      { numRuns: 1_000, seed: 7 },
    );
  });
});

describe('PERIOD_MS', () => {
  it('gives every period its length in milliseconds', () => {
    expect(Object.keys(PERIOD_MS).sort()).toEqual([...PERIODS].sort());
    expect(PERIOD_MS['10min']).toBe(10 * 60_000);
    expect(PERIOD_MS['1h']).toBe(3_600_000);
    expect(PERIOD_MS['30d']).toBe(30 * 86_400_000);
  });
});
