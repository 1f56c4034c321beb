import { describe, expect } from 'vitest';
import { PERIODS } from '../src/generated/lists.ts';
import { contractTest as test } from './contract-test.ts';

/** rentalCount × sun in sun, rounded half up to 0.01 TRX, printed with two decimals. */
function expectedTrxPrice(rentalCount: number, sun: string): string {
  const costSun = BigInt(rentalCount) * BigInt(sun);
  const cents = (costSun + 5_000n) / 10_000n;
  return `${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`;
}

describe('getPrice', () => {
  test('prices 65000 energy for 1h as sun × rentalCount rounded half up to two decimals', async ({ api }) => {
    const quote = await api.getPrice({ rentalCount: 65000, period: '1h' });
    expect(quote.rentalCount).toBe(65000);
    expect(quote.period).toBe('1h');
    expect(quote.resourceType).toBe('ENERGY');
    expect(quote.trxPrice, `trxPrice for 65000 × ${quote.sun} sun`).toBe(expectedTrxPrice(65000, quote.sun));
  });

  test.for(PERIODS)(
    'quotes the period %s and echoes it with arithmetic that agrees',
    async (period, { api }) => {
      const quote = await api.getPrice({ rentalCount: 64000, period });
      expect(quote.period).toBe(period);
      expect(Number(quote.sun)).toBeGreaterThan(0);
      expect(quote.trxPrice, `trxPrice for 64000 × ${quote.sun} sun`).toBe(
        expectedTrxPrice(64000, quote.sun),
      );
    },
  );

  test('rounds every half cent up, whatever the price table', async ({ api }) => {
    // Quantities whose cost ends in exactly half a cent at the target's own 1h price:
    // binary floats round some of those down, so several are asked, not one.
    const { sun } = await api.getPrice({ rentalCount: 65000, period: '1h' });
    const halves: number[] = [];
    for (let n = 64_000; n < 164_000 && halves.length < 12; n++)
      if ((BigInt(n) * BigInt(sun)) % 10_000n === 5_000n) halves.push(n);
    for (const n of halves) {
      const quote = await api.getPrice({ rentalCount: n, period: '1h' });
      expect(quote.trxPrice, `trxPrice for ${n} × ${quote.sun} sun`).toBe(expectedTrxPrice(n, quote.sun));
    }
  });

  test('keeps exact arithmetic for a large quantity', async ({ api }) => {
    const quote = await api.getPrice({ rentalCount: 987_654_321, period: '30d' });
    expect(quote.rentalCount).toBe(987_654_321);
    expect(quote.trxPrice).toBe(expectedTrxPrice(987_654_321, quote.sun));
  });
});
