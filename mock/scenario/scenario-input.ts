/** The scenario as users write it (decimal strings) and its conversion into the engine's (smallest units). */
import type { components } from '../../src/generated/control.ts';
import { parseUnits, SimulatorError, type Scenario, type SettingsPatch } from '../engine/index.ts';

type C = components['schemas'];

export type ScenarioInput = C['Scenario'];

/** The embedded default scenario: a demo account with key `demo-key`, 1000 TRX and 100 USDT. */
export const DEFAULT_SCENARIO: ScenarioInput = {
  accounts: [{ apiKey: 'demo-key', balance: { trx: '1000', usdt: '100' } }],
};

/**
 * A scenario file that does not parse, in one line: the file, the line and column of the
 * first mistake and what it is, without the parser's code frame.
 *
 * @example
 *   scenarioSyntaxError(yamlError, 'team.yaml'); // "team.yaml:3:7: neither JSON nor YAML: Nested mappings are not allowed in compact mappings"
 */
export function scenarioSyntaxError(error: unknown, file: string): string {
  const { message, linePos } = error as { message: string; linePos?: [{ line: number; col: number }] };
  const where = linePos ? `:${linePos[0].line}:${linePos[0].col}` : '';
  return `${file}${where}: neither JSON nor YAML: ${message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`;
}

/**
 * Converts the control plane's settings (decimal strings) into the engine's units.
 *
 * @example
 *   toSettingsPatch({ usdtPerTrx: '0.19' }); // { microUsdtPerTrx: 190000 }
 */
export function toSettingsPatch(input: C['SettingsPatch']): SettingsPatch {
  const { prices, usdtPerTrx, ...rest } = input;
  const patch: SettingsPatch = { ...rest };
  if (prices)
    patch.prices = Object.fromEntries(Object.entries(prices).map(([period, sun]) => [period, Number(sun)]));
  if (usdtPerTrx !== undefined) {
    patch.microUsdtPerTrx = parseUnits(usdtPerTrx, 'usdtPerTrx');
    // Refused here, not by the engine, whose message would name microUsdtPerTrx.
    if (patch.microUsdtPerTrx === 0)
      throw SimulatorError.invalidParameter(`'usdtPerTrx' must be more than 0 (got '${usdtPerTrx}').`);
  }
  return patch;
}

/**
 * Converts a user's scenario (decimal strings) into the engine's scenario.
 *
 * @example
 *   toEngineScenario(DEFAULT_SCENARIO).accounts; // [{ apiKey: 'demo-key', trx: 1000000000, usdt: 100000000, referralCount: 0 }]
 */
export function toEngineScenario(input: C['Scenario']): Scenario {
  const scenario: Scenario = {};
  if (input.settings || input.timing)
    scenario.settings = {
      ...toSettingsPatch(input.settings ?? {}),
      ...(input.timing ? { timing: input.timing } : {}),
    };
  if (input.accounts) {
    scenario.accounts = input.accounts.map((a, i) => ({
      apiKey: a.apiKey,
      trx: a.balance?.trx ? parseUnits(a.balance.trx, `accounts[${i}].balance.trx`) : 0,
      usdt: a.balance?.usdt ? parseUnits(a.balance.usdt, `accounts[${i}].balance.usdt`) : 0,
      referralCount: a.referralCount ?? 0,
    }));
  }
  if (input.rules) scenario.rules = input.rules;
  if (input.activatedAddresses) scenario.activatedAddresses = input.activatedAddresses;
  if (input.supply !== undefined) scenario.supply = input.supply;
  return scenario;
}
