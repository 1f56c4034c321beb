import { describe, expect, it } from 'vitest';
import { DEFAULT_SCENARIO, toEngineScenario, toSettingsPatch } from './scenario-input.ts';

describe('toEngineScenario', () => {
  it('turns the default scenario into the demo account in smallest units', () => {
    expect(toEngineScenario(DEFAULT_SCENARIO)).toEqual({
      accounts: [{ apiKey: 'demo-key', trx: 1_000_000_000, usdt: 100_000_000, referralCount: 0 }],
    });
  });

  it('names the account and field of an amount it cannot read', () => {
    expect(() => toEngineScenario({ accounts: [{ apiKey: 'k', balance: { trx: '1.0000001' } }] })).toThrow(
      /accounts\[0\]\.balance\.trx/,
    );
  });

  it('lets a top-level timing win over the settings', () => {
    expect(
      toEngineScenario({ timing: 'fast', settings: { timing: 'instant', failureRate: 0.5 } }).settings,
    ).toEqual({ timing: 'fast', failureRate: 0.5 });
  });
});

describe('toSettingsPatch', () => {
  it('reads usdtPerTrx and prices from decimal strings into engine units', () => {
    expect(toSettingsPatch({ usdtPerTrx: '0.19', prices: { '1h': '70' } })).toEqual({
      microUsdtPerTrx: 190_000,
      prices: { '1h': 70 },
    });
  });

  it('refuses a usdtPerTrx of 0, naming it as the user wrote it', () => {
    expect(() => toSettingsPatch({ usdtPerTrx: '0.000' })).toThrow(
      "'usdtPerTrx' must be more than 0 (got '0.000').",
    );
  });
});
