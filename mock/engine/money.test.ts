import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatDecimals, formatFixed, formatUnits, MAX_AMOUNT, parseUnits, roundHalfUp } from './money.ts';
import { rejection } from './test-support.ts';

describe('parseUnits', () => {
  it('parses decimal strings into smallest units', () => {
    expect(parseUnits('4.23')).toBe(4_230_000);
    expect(parseUnits('0.031748')).toBe(31_748);
    expect(parseUnits('0')).toBe(0);
    expect(parseUnits('100')).toBe(100_000_000);
    expect(parseUnits('0.000001')).toBe(1);
    expect(parseUnits('007.5')).toBe(7_500_000);
  });

  it('accepts exactly six decimals and rejects a seventh', () => {
    expect(parseUnits('1.123456')).toBe(1_123_456);
    const error = rejection(() => parseUnits('1.1234567', 'trx'));
    expect(error.kind).toBe('parameterInvalid');
    expect(error.message).toContain("'trx'");
    expect(error.message).toContain('6 decimals');
  });

  it('rejects negative amounts', () => {
    expect(rejection(() => parseUnits('-1')).kind).toBe('parameterInvalid');
    expect(rejection(() => parseUnits('-0.5')).kind).toBe('parameterInvalid');
  });

  it.each(['', ' ', 'abc', '1.', '.5', '1e6', '1,5', ' 1', '1 ', '+1', '0x10', '1.2.3', 'NaN', 'Infinity'])(
    'rejects the malformed amount %j naming the field',
    (text) => {
      const error = rejection(() => parseUnits(text, 'usdt'));
      expect(error.kind).toBe('parameterInvalid');
      expect(error.message).toContain("'usdt'");
    },
  );

  it('accepts the largest safe amount and rejects one unit more', () => {
    expect(parseUnits('9007199254.740991')).toBe(MAX_AMOUNT);
    const error = rejection(() => parseUnits('9007199254.740992'));
    expect(error.kind).toBe('parameterInvalid');
    expect(error.message).toContain('too large');
    expect(rejection(() => parseUnits('99999999999999999999')).kind).toBe('parameterInvalid');
  });
});

describe('formatUnits', () => {
  it('prints smallest units without trailing zeros', () => {
    expect(formatUnits(4_230_000)).toBe('4.23');
    expect(formatUnits(0)).toBe('0');
    expect(formatUnits(1)).toBe('0.000001');
    expect(formatUnits(31_748)).toBe('0.031748');
    expect(formatUnits(100_000_000)).toBe('100');
    expect(formatUnits(MAX_AMOUNT)).toBe('9007199254.740991');
  });

  it('round-trips with parseUnits for every kind of fraction', () => {
    const samples = [
      0,
      1,
      9,
      10,
      99_999,
      100_000,
      999_999,
      1_000_000,
      1_000_001,
      4_225_000,
      123_456_789,
      MAX_AMOUNT,
    ];
    for (const units of samples) expect(parseUnits(formatUnits(units))).toBe(units);
    for (const text of ['0', '0.5', '4.23', '0.031748', '12345.000001', '9007199254.740991']) {
      expect(formatUnits(parseUnits(text))).toBe(text);
    }
  });
});

describe('formatFixed', () => {
  it('prints exactly the requested number of decimals', () => {
    expect(formatFixed(800_000, 2)).toBe('0.80');
    expect(formatFixed(31_748, 6)).toBe('0.031748');
    expect(formatFixed(0, 2)).toBe('0.00');
    expect(formatFixed(0, 6)).toBe('0.000000');
    expect(formatFixed(4_230_000, 2)).toBe('4.23');
    expect(formatFixed(10_000, 2)).toBe('0.01');
    expect(formatFixed(5_000_000, 0)).toBe('5');
    expect(formatFixed(1_200_000, 1)).toBe('1.2');
  });

  it('throws a RangeError when the amount has more precision than asked', () => {
    expect(() => formatFixed(4_225_000, 2)).toThrow(RangeError);
    expect(() => formatFixed(1, 5)).toThrow(RangeError);
    expect(() => formatFixed(500_000, 0)).toThrow(RangeError);
  });

  it('round-trips with parseUnits at six and at two decimals', () => {
    for (const units of [0, 1, 31_748, 999_999, 1_000_000, 4_230_000, MAX_AMOUNT]) {
      expect(parseUnits(formatFixed(units, 6))).toBe(units);
    }
    for (let cents = 0; cents < 1_000; cents += 7) {
      const units = cents * 10_000;
      expect(parseUnits(formatFixed(units, 2))).toBe(units);
    }
  });
});

describe('formatDecimals', () => {
  it('prints trimmed as formatUnits does', () => {
    expect(formatDecimals(996_100_000, 'trimmed')).toBe('996.1');
    expect(formatDecimals(0, 'trimmed')).toBe('0');
  });

  it('pads with zeros to a fixed number of decimals, past the units six too', () => {
    expect(formatDecimals(795_380_000, 6)).toBe('795.380000');
    expect(formatDecimals(795_380_000, 8)).toBe('795.38000000');
    expect(formatDecimals(1_000_000_000, 2)).toBe('1000.00');
  });

  it('rounds half up to fewer decimals than the amount has', () => {
    expect(formatDecimals(4_225_000, 2)).toBe('4.23');
    expect(formatDecimals(4_224_999, 2)).toBe('4.22');
    expect(formatDecimals(1_500_000, 0)).toBe('2');
  });

  it('prints the largest amount rounded up without passing through an unsafe number', () => {
    expect(formatDecimals(MAX_AMOUNT, 0)).toBe('9007199255');
    expect(formatDecimals(MAX_AMOUNT, 6)).toBe(formatUnits(MAX_AMOUNT));
  });

  it('keeps the value: reading back what it printed gives the rounded amount', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10 ** 12 }),
        fc.integer({ min: 0, max: 6 }),
        (units, decimals) => {
          const step = 10 ** (6 - decimals);
          expect(parseUnits(formatDecimals(units, decimals))).toBe(
            Number(roundHalfUp(BigInt(units), BigInt(step))),
          );
        },
      ),
    );
  });
});

describe('roundHalfUp', () => {
  it('rounds exactly half up', () => {
    expect(roundHalfUp(4_225_000n, 10_000n)).toBe(4_230_000n);
    expect(roundHalfUp(5_000n, 10_000n)).toBe(10_000n);
    expect(roundHalfUp(15n, 10n)).toBe(20n);
    expect(roundHalfUp(25n, 10n)).toBe(30n);
  });

  it('rounds just below half down and just above half up', () => {
    expect(roundHalfUp(4_224_999n, 10_000n)).toBe(4_220_000n);
    expect(roundHalfUp(4_225_001n, 10_000n)).toBe(4_230_000n);
    expect(roundHalfUp(4_999n, 10_000n)).toBe(0n);
  });

  it('leaves exact multiples and zero unchanged', () => {
    expect(roundHalfUp(0n, 10_000n)).toBe(0n);
    expect(roundHalfUp(4_230_000n, 10_000n)).toBe(4_230_000n);
    expect(roundHalfUp(7n, 1n)).toBe(7n);
  });

  it('always lands on a multiple of the step, at most half a step away, going up on an exact half', () => {
    const step = 10_000n;
    const wrong: bigint[] = [];
    for (let value = 0n; value < 60_000n; value += 1n) {
      const rounded = roundHalfUp(value, step);
      const diff = rounded - value;
      const remainder = value % step;
      const expected = remainder >= step / 2n ? value - remainder + step : value - remainder;
      if (rounded % step !== 0n || diff <= -step / 2n || diff > step / 2n || rounded !== expected)
        wrong.push(value);
    }
    expect(wrong).toEqual([]);
  });
});

describe('the money formatters refuse what is no amount', () => {
  const notMoney = fc.oneof(
    fc.integer({ min: Number.MIN_SAFE_INTEGER, max: -1 }),
    fc.double({ noInteger: true }),
    fc.constantFrom(Number.NaN, Infinity, -Infinity, 1e30, 1e308, MAX_AMOUNT + 1, -0.5),
  );

  it('print every whole amount from 0 to MAX_AMOUNT so that parseUnits reads it back', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_AMOUNT }), (units) => {
        expect(parseUnits(formatUnits(units))).toBe(units);
        expect(parseUnits(formatFixed(units, 6))).toBe(units);
      }),
    );
  });

  it('print an amount with fewer decimals exactly when it is a whole multiple of them', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Math.floor(MAX_AMOUNT / 10_000) }), (hundredths) => {
        expect(parseUnits(formatFixed(hundredths * 10_000, 2))).toBe(hundredths * 10_000);
      }),
    );
  });

  it('throw rather than print a negative, fractional, non-finite or too large amount', () => {
    fc.assert(
      fc.property(notMoney, fc.integer({ min: 0, max: 6 }), (units, decimals) => {
        expect(() => formatUnits(units)).toThrow(/Cannot print .* as money/);
        expect(() => formatFixed(units, decimals)).toThrow(/Cannot print .* as money/);
      }),
    );
  });

  it('throw for the garbage the adversarial pass saw printed', () => {
    expect(() => formatUnits(-209_360_000)).toThrow(RangeError); // was "-209.-36"
    expect(() => formatUnits(-1_000_005)).toThrow(RangeError); // was "-1.0000-5"
    expect(() => formatUnits(1e30)).toThrow(RangeError); // was "1e+24.838656"
    expect(() => formatFixed(-4_840_000, 2)).toThrow(RangeError); // was "-4.-84"
  });
});
