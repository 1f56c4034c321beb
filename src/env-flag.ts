/** One reading of every on/off environment variable: a typo is refused rather than read as "off". */
import { CliError } from './cli-error.ts';

const ON = ['1', 'true', 'yes'] as const;
const OFF = ['0', 'false', 'no', ''] as const;

/** The spellings accepted, for help texts and messages. */
export const ENV_FLAG_VALUES: string = `${ON.join(', ')} (on) or ${OFF.filter(Boolean).join(', ')}, empty (off)`;

/**
 * Reads an on/off variable (ENV_FLAG_VALUES, any case; unset is off); else a CliError naming it.
 *
 * @example
 *   envFlag({ ENERGY_SIM_QUIET: 'Yes' }, 'ENERGY_SIM_QUIET'); // true
 *   envFlag({}, 'ENERGY_SIM_QUIET'); // false
 */
export function envFlag(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = env[name];
  if (raw === undefined) return false;
  const value = raw.trim().toLowerCase();
  if ((ON as readonly string[]).includes(value)) return true;
  if ((OFF as readonly string[]).includes(value)) return false;
  throw new CliError(`${name} must be one of ${ENV_FLAG_VALUES} (got '${raw}').`);
}
