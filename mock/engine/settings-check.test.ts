/**
 * A patch of the engine's settings is held to spec/control.yaml's EngineSettings, and a
 * refusal names the setting and the rule.
 */
import { describe, expect, it } from 'vitest';
import { ENGINE_SETTINGS } from '../../src/generated/lists.ts';
import type { ValueRule } from '../../src/spec/spec-lists.ts';
import { MAX_SUN_PER_UNIT } from './pricing.ts';
import { applySettings, DEFAULT_SETTINGS } from './settings.ts';
import { checkSettingsPatch, ruleText } from './settings-check.ts';
import { rejection } from './test-support.ts';

const refusal = (patch: object) => rejection(() => checkSettingsPatch(patch));

/** Values that break each keyword of a rule, with the keyword they break. */
function breaking(rule: ValueRule): [string, unknown][] {
  const cases: [string, unknown][] = [];
  if (rule.enum) cases.push(['enum', 'not-one-of-them']);
  if (rule.minimum !== undefined) cases.push(['minimum', rule.minimum - 1]);
  if (rule.maximum !== undefined) cases.push(['maximum', rule.maximum + 1]);
  const types = [rule.type ?? []].flat();
  if (types.includes('integer')) cases.push(['integer', 0.5 + (rule.minimum ?? 0)]);
  if (types.length > 0 && !types.includes('string')) cases.push(['type', 'a string']);
  return cases;
}

const SETTING_CASES = Object.entries(ENGINE_SETTINGS as unknown as Record<string, ValueRule>).flatMap(
  ([setting, rule]) => breaking(rule).map(([keyword, value]) => [setting, keyword, value] as const),
);

describe('checkSettingsPatch', () => {
  it.each(SETTING_CASES)(
    'refuses %s breaking its %s rule (%s), naming the setting',
    (setting, _keyword, value) => {
      const error = refusal({ [setting]: value });
      expect(error.kind).toBe('parameterInvalid');
      expect(error.message).toMatch(new RegExp(`^${setting} must be `));
    },
  );

  it('covers every setting of EngineSettings with at least one broken rule', () => {
    expect(new Set(SETTING_CASES.map(([setting]) => setting))).toEqual(new Set(Object.keys(ENGINE_SETTINGS)));
  });

  it.each([
    [{ failureRate: 1.5 }, 'failureRate must be a number from 0 to 1 (got 1.5).'],
    [{ failureRate: Number.NaN }, 'failureRate must be a number from 0 to 1 (got NaN).'],
    [{ timing: 'slow' }, "timing must be one of realistic, fast, instant (got 'slow')."],
    [{ maxStoredAddresses: 0 }, 'maxStoredAddresses must be a whole number from 1 to 10000000 (got 0).'],
    [{ microUsdtPerTrx: 0 }, 'microUsdtPerTrx must be a whole number from 1 to 9007199254740991 (got 0).'],
    [{ prices: { '1d': 0 } }, `prices.1d must be a whole number from 1 to ${MAX_SUN_PER_UNIT} (got 0).`],
    [{ rateLimit: { requests: 0, windowMs: 1 } }, 'rateLimit.requests must be a whole number >= 1 (got 0).'],
    [
      { delaysMs: { outcome: -1 } },
      'delaysMs.outcome must be a whole number from 0 to 86400000, or an object with min and max (got -1).',
    ],
    [{ errors: { notFound: { status: 700 } } }, 'errors.notFound.status must be <= 599 (got 700).'],
  ])('words the rule %j breaks as %j', (patch, message) => {
    expect(refusal(patch).message).toBe(message);
  });

  it('names an unknown setting and the known ones', () => {
    expect(refusal({ failurerate: 0.5 }).message).toMatch(
      /^Unknown setting 'failurerate'; the settings are timing, /,
    );
  });

  it('names an unknown period, and the periods', () => {
    expect(refusal({ prices: { '2h': 65 } }).message).toBe(
      "Unknown setting 'prices.2h'; prices takes 10min, 1h, 1d, 3d, 7d, 14d, 30d.",
    );
  });

  it.each([0, -1, 0.5, 65.5, MAX_SUN_PER_UNIT + 1, Number.NaN, Number.POSITIVE_INFINITY, '65'])(
    'refuses %s sun per unit, naming the period',
    (sun) => {
      const error = refusal({ prices: { '1d': sun } });
      expect(error.kind).toBe('parameterInvalid');
      expect(error.message).toMatch(/^prices\.1d must be a whole number from 1 to /);
    },
  );

  it('refuses a delay range whose min passes its max, which no JSON schema can state', () => {
    expect(refusal({ delaysMs: { refund: { min: 5, max: 2 } } }).message).toBe(
      'delaysMs.refund must have min <= max (got {"min":5,"max":2}).',
    );
    expect(() => checkSettingsPatch({ delaysMs: { refund: { min: 2, max: 2 } } })).not.toThrow();
  });

  it('accepts the defaults, an empty patch, and the bounds of every range', () => {
    const { activationDelayMs: _none, ...defaults } = DEFAULT_SETTINGS;
    expect(() => checkSettingsPatch(defaults)).not.toThrow();
    expect(() => checkSettingsPatch({})).not.toThrow();
    expect(() =>
      checkSettingsPatch({
        failureRate: 1,
        prices: { '1h': 1, '30d': MAX_SUN_PER_UNIT },
        maxStoredOrders: 1,
      }),
    ).not.toThrow();
  });
});

describe('applySettings', () => {
  it('keeps a setting or a price left undefined, as a field left out of a PATCH', () => {
    const next = applySettings(DEFAULT_SETTINGS, {
      failureRate: undefined,
      prices: { '1h': undefined, '1d': 81 },
    });
    expect(next).toEqual({ ...DEFAULT_SETTINGS, prices: { ...DEFAULT_SETTINGS.prices, '1d': 81 } });
  });
});

describe('ruleText', () => {
  it.each([
    [{ type: 'integer', minimum: 1, maximum: 10 }, 'a whole number from 1 to 10'],
    [{ type: 'number', minimum: 0 }, 'a number >= 0'],
    [{ enum: [0, 1] }, 'one of 0, 1'],
    [
      { type: ['object', 'null'], required: ['requests', 'windowMs'] },
      'an object with requests and windowMs, or null',
    ],
  ] as [ValueRule, string][])('words %j as %j', (rule, text) => {
    expect(ruleText(rule)).toBe(text);
  });
});
