import { describe } from 'vitest';
import { PERIODS } from '../src/generated/lists.ts';
import type { PriceQuote } from '../src/models.ts';
import { contractTest as test, expectRefused, refusalOf, type Checks } from './contract-test.ts';
import { exactValue, trxPrices } from './facts.ts';

/**
 * trxPrice is rentalCount × sun rounded to two decimals, half up or up as upstream allows,
 * in any rendering ("5.7" is "5.70"); the simulator rounds half up.
 */
function expectPrice({ expectFact, onSimulator }: Checks, rentalCount: number, quote: PriceQuote): void {
  const { halfUp, up } = trxPrices(rentalCount, quote.sun);
  const shown = exactValue(quote.trxPrice);
  expectFact('price-rounding', shown, `trxPrice for ${rentalCount} × ${quote.sun} sun`).toBeOneOf([
    halfUp,
    up,
  ]);
  onSimulator((expect) =>
    expect(shown, `the simulator rounds ${rentalCount} × ${quote.sun} sun half up`).toBe(halfUp),
  );
}

describe('getPrice', () => {
  test('prices 65000 energy for 1h as sun × rentalCount rounded half up to two decimals', async ({
    api,
    expectFact,
    onSimulator,
  }) => {
    const quote = await api.getPrice({ rentalCount: 65000, period: '1h' });
    expectFact('price-echo', [quote.rentalCount, quote.period], 'rentalCount and period priced').toEqual([
      65000,
      '1h',
    ]);
    expectFact('resource-energy', quote.resourceType).toBe('ENERGY');
    expectPrice({ expectFact, onSimulator }, 65000, quote);
  });

  test.for(PERIODS)(
    'quotes the period %s and echoes it with arithmetic that agrees',
    async (period, { api, expectFact, onSimulator }) => {
      const quote = await api.getPrice({ rentalCount: 64000, period });
      expectFact('price-echo', quote.period, 'the period priced').toBe(period);
      expectPrice({ expectFact, onSimulator }, 64000, quote);
    },
  );

  test('rounds every half cent up, whatever the price table', async ({ api, expectFact, onSimulator }) => {
    // Quantities whose cost ends in exactly half a cent at the target's own 1h price:
    // binary floats round some of those down, so several are asked, not one.
    const { sun } = await api.getPrice({ rentalCount: 65000, period: '1h' });
    const halves: number[] = [];
    for (let n = 64_000; n < 164_000 && halves.length < 12; n++)
      if ((BigInt(n) * BigInt(sun)) % 10_000n === 5_000n) halves.push(n);
    for (const n of halves)
      expectPrice({ expectFact, onSimulator }, n, await api.getPrice({ rentalCount: n, period: '1h' }));
  });

  test('keeps exact arithmetic at the largest quantity the service prices', async ({
    api,
    expectFact,
    onSimulator,
    note,
  }) => {
    // No maximum is documented: a refusal of a large quantity is the service's maximum, noted,
    // and the arithmetic is held at the largest quantity it priced.
    let priced: { rentalCount: number; quote: PriceQuote } | undefined;
    for (const rentalCount of [987_654_321, 98_765_432, 9_876_543, 987_654]) {
      const answer = await api.getPrice({ rentalCount, period: '30d' }).catch(refusalOf);
      if (!('refused' in answer)) {
        priced = { rentalCount, quote: answer };
        break;
      }
      expectRefused({ expectFact, onSimulator }, 'price-echo', answer, `rentalCount ${rentalCount}`);
      note(
        `getPrice refused rentalCount ${rentalCount}, a maximum no document shows: ${answer.refused.message}`,
      );
    }
    onSimulator((expect) => expect(priced?.rentalCount, 'the simulator prices 987654321').toBe(987_654_321));
    expectFact('price-echo', priced?.quote.rentalCount, 'some quantity from 987654 up is priced').toBe(
      priced?.rentalCount,
    );
    expectPrice({ expectFact, onSimulator }, priced!.rentalCount, priced!.quote);
  });

  test('prices a quantity below the order minimum, or refuses it: the documents say neither', async ({
    api,
    expectFact,
    onSimulator,
    note,
  }) => {
    const answer = await api.getPrice({ rentalCount: 1000, period: '1h' }).catch(refusalOf);
    if (!('refused' in answer)) return expectPrice({ expectFact, onSimulator }, 1000, answer);
    expectRefused({ expectFact, onSimulator }, 'price-echo', answer, 'rentalCount 1000');
    note(`getPrice refused rentalCount 1000, below the order minimum: ${answer.refused.message}`);
  });
});
