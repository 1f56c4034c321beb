import { describe, expect, it } from 'vitest';
import { CliError } from './cli-error.ts';
import { envFlag } from './env-flag.ts';

describe('envFlag', () => {
  it.each(['1', 'true', 'yes', 'TRUE', 'Yes', ' yes '])('reads %j as on', (value) => {
    expect(envFlag({ FLAG: value }, 'FLAG')).toBe(true);
  });

  it.each(['0', 'false', 'no', '', 'NO', 'False'])('reads %j as off', (value) => {
    expect(envFlag({ FLAG: value }, 'FLAG')).toBe(false);
  });

  it('reads an unset variable as off', () => {
    expect(envFlag({}, 'FLAG')).toBe(false);
  });

  it('refuses any other value, naming the variable and the accepted values', () => {
    const error = (() => {
      try {
        return envFlag({ ENERGY_SIM_QUIET: 'on' }, 'ENERGY_SIM_QUIET');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(CliError);
    expect((error as Error).message).toBe(
      "ENERGY_SIM_QUIET must be one of 1, true, yes (on) or 0, false, no, empty (off) (got 'on').",
    );
  });
});
