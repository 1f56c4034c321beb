/**
 * Which controls work in which mode (spec/control.yaml's `x-modes`): in proxy and replay mode
 * the engine's controls are refused (409) rather than accepted to change nothing.
 */
import { CONTROL_OPERATIONS, SETTING_MODES, type Mode } from '../../src/generated/lists.ts';
import { SimulatorError } from '../engine/index.ts';

const WHAT_RESPONDS: Record<Mode, string> = {
  simulator: "simulator mode: the simulator's engine answers the API",
  proxy: 'proxy mode (serve --upstream): the upstream answers the API',
  replay: 'replay mode (serve --replay): a recording answers the API',
};

/** The settings of a PATCH /_sim/config that work in `mode`. */
export function settingsIn(mode: Mode): string[] {
  return Object.entries(SETTING_MODES)
    .filter(([, modes]) => modes.includes(mode))
    .map(([name]) => name);
}

/**
 * What the control plane offers in `mode`, by the path under /_sim of its operations.
 *
 * @example
 *   offeredIn('proxy'); // 'health, reset, config (rateLimit), faults, journal, dashboard, events, ui'
 */
export function offeredIn(mode: Mode): string {
  const areas = new Set<string>();
  for (const op of Object.values(CONTROL_OPERATIONS)) {
    if (op.modes.includes(mode)) areas.add(op.path.split('/')[2] ?? op.path);
  }
  const settings = settingsIn(mode);
  return [...areas]
    .map((area) => (area === 'config' && mode !== 'simulator' ? `config (${settings.join(', ')})` : area))
    .join(', ');
}

/**
 * Throws the 409 of an operation that does not work in `mode`.
 *
 * @example
 *   requireMode('addRule', 'proxy'); // throws: POST /_sim/rules is refused in proxy mode …
 */
export function requireMode(operationId: string, mode: Mode): void {
  const op = CONTROL_OPERATIONS[operationId];
  if (!op || op.modes.includes(mode)) return;
  throw new SimulatorError(
    'conflict',
    `${op.method} ${op.path} is refused in ${WHAT_RESPONDS[mode]}, so the simulator's accounts, orders, rules, clock, supply, addresses and scenario do nothing to it. In this mode the control plane offers: ${offeredIn(mode)}.`,
  );
}

/** Throws the 409 of a settings patch holding settings that do not work in `mode`, naming them. */
export function requireSettingsMode(patch: object, mode: Mode): void {
  const allowed = settingsIn(mode);
  const refused = Object.keys(patch).filter((name) => !allowed.includes(name));
  if (refused.length === 0) return;
  throw new SimulatorError(
    'conflict',
    `PATCH /_sim/config is refused whole in ${WHAT_RESPONDS[mode]}: ${refused.join(', ')} ${refused.length === 1 ? 'sets' : 'set'} the simulator's engine, which does not answer it. In this mode only ${allowed.join(', ')} can be changed; send ${allowed.length === 1 ? 'it' : 'them'} alone.`,
  );
}
