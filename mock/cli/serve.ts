/**
 * `energy-rental-kit serve`: runs the simulator over HTTP.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { getConnInfo } from '@hono/node-server/conninfo';
import { SimulatorError, TIMING_PROFILES, type TimingProfile } from '../engine/index.ts';
import { isLoopback } from '../http/control-guard.ts';
import { parseAllowedHosts } from '../http/request-guard.ts';
import { createSimulatorServer } from '../node-server.ts';
import { createSimulator, type ScenarioInput } from '../simulator.ts';
import { CliError } from './cli-error.ts';
import { createLogger, type LogFormat, type Logger } from './logger.ts';
import { loadState, startSaver } from './state-file.ts';

export const SERVE_HELP = `Usage: energy-rental-kit serve [options]

Runs the Energy Rental API simulator. With no options it serves the embedded default
scenario: a demo account with API key demo-key, 1000 TRX and 100 USDT.

Options (each has an environment variable; the flag wins):
  --port N            Port to listen on (ENERGY_SIM_PORT, default 8787; 0 picks a free one)
  --host ADDR         Interface to bind (ENERGY_SIM_HOST, default 127.0.0.1)
  --allowed-hosts A,B Host names answered besides localhost, IP addresses and --host;
                      '.example.com' adds a domain and its subdomains, 'all' turns the
                      check off behind a proxy (ENERGY_SIM_ALLOWED_HOSTS)
  --config FILE       JSON or YAML scenario: accounts, balances, prices, delays, rules,
                      activated addresses, supply (ENERGY_SIM_CONFIG)
  --seed N            Seed of ids, addresses, txIds and outcomes (ENERGY_SIM_SEED, default 1)
  --clock MODE        real | manual (ENERGY_SIM_CLOCK, default real)
  --timing PROFILE    realistic | fast | instant (ENERGY_SIM_TIMING, default realistic)
  --token TOKEN       Control-plane token, required off loopback (ENERGY_SIM_TOKEN)
  --state FILE        Save the state to FILE (atomically) and restore it at start
                      (ENERGY_SIM_STATE)
  --save-interval MS  How often a changed state is saved, default 1000 (ENERGY_SIM_SAVE_INTERVAL)
  --log FORMAT        pretty (default) | json: one JSON object per line (ENERGY_SIM_LOG)
  --quiet             Log only warnings and errors (ENERGY_SIM_QUIET=1)
  -h, --help          Show this help
`;

export interface ServeOptions {
  port: number;
  host: string;
  /** Host names answered besides localhost, IP addresses and `host`; 'all' turns the check off. */
  allowedHosts?: string[] | 'all' | undefined;
  config?: string | undefined;
  seed?: number | undefined;
  clock?: 'real' | 'manual' | undefined;
  timing?: TimingProfile | undefined;
  token?: string | undefined;
  state?: string | undefined;
  /** Default 1000. */
  saveIntervalMs?: number | undefined;
  /** Default 'pretty'. */
  log?: LogFormat | undefined;
  quiet?: boolean | undefined;
}

/** Normalises flags and environment once, naming the option and the fix on any mistake. */
export function parseServeArgs(argv: string[], env: NodeJS.ProcessEnv): ServeOptions | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'allowed-hosts': { type: 'string' },
        config: { type: 'string' },
        seed: { type: 'string' },
        clock: { type: 'string' },
        timing: { type: 'string' },
        token: { type: 'string' },
        state: { type: 'string' },
        'save-interval': { type: 'string' },
        log: { type: 'string' },
        quiet: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new CliError(`${(error as Error).message}. Run 'energy-rental-kit serve --help' for the options.`);
  }
  if (values.help) return 'help';
  const integer = (name: string, raw: string | undefined, min: number, max: number): number | undefined => {
    if (raw === undefined || raw === '') return undefined;
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || n < min || n > max) throw new CliError(`--${name} must be a whole number from ${min} to ${max} (got '${raw}').`);
    return n;
  };
  const oneOf = <T extends string>(name: string, raw: string | undefined, allowed: readonly T[]): T | undefined => {
    if (raw === undefined || raw === '') return undefined;
    if (!allowed.includes(raw as T)) throw new CliError(`--${name} must be one of ${allowed.join(', ')} (got '${raw}').`);
    return raw as T;
  };
  const nonEmpty = (name: string, raw: string | undefined): string | undefined => {
    if (raw === '') throw new CliError(`--${name} must not be empty; omit it to run without one.`);
    return raw;
  };
  const hostList = (raw: string | undefined): string[] | 'all' | undefined => {
    if (raw === undefined || raw.trim() === '') return undefined;
    try {
      return parseAllowedHosts(raw);
    } catch (error) {
      throw new CliError(`--allowed-hosts: ${(error as Error).message}`);
    }
  };
  return {
    port: integer('port', values.port ?? env.ENERGY_SIM_PORT, 0, 65535) ?? 8787,
    host: values.host ?? env.ENERGY_SIM_HOST ?? '127.0.0.1',
    allowedHosts: hostList(values['allowed-hosts'] ?? env.ENERGY_SIM_ALLOWED_HOSTS),
    config: values.config ?? env.ENERGY_SIM_CONFIG,
    seed: integer('seed', values.seed ?? env.ENERGY_SIM_SEED, 0, 2 ** 32 - 1),
    clock: oneOf('clock', values.clock ?? env.ENERGY_SIM_CLOCK, ['real', 'manual'] as const),
    timing: oneOf('timing', values.timing ?? env.ENERGY_SIM_TIMING, TIMING_PROFILES),
    token: nonEmpty('token', values.token) ?? (env.ENERGY_SIM_TOKEN || undefined),
    state: nonEmpty('state', values.state) ?? (env.ENERGY_SIM_STATE || undefined),
    saveIntervalMs: integer('save-interval', values['save-interval'] ?? env.ENERGY_SIM_SAVE_INTERVAL, 50, 3_600_000) ?? 1000,
    log: oneOf('log', values.log ?? env.ENERGY_SIM_LOG, ['pretty', 'json'] as const) ?? 'pretty',
    quiet: values.quiet ?? env.ENERGY_SIM_QUIET === '1',
  };
}

async function readScenario(file: string): Promise<ScenarioInput> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(`--config: cannot read '${file}' (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`);
  }
  let scenario: unknown;
  try {
    // Loaded only for --config: most starts need no YAML parser.
    const { parse: parseYaml } = await import('yaml');
    scenario = parseYaml(text);
  } catch (error) {
    throw new CliError(`--config: '${file}' is neither JSON nor YAML: ${(error as Error).message}`);
  }
  if (scenario === null || scenario === undefined) {
    throw new CliError(`--config: '${file}' is empty; give it a scenario such as examples/scenario.yaml, or omit --config for the default.`);
  }
  return scenario as ScenarioInput;
}

/** Starts the simulator and resolves once it listens; returns a function that stops it. */
export async function serve(
  options: ServeOptions,
  logger?: Logger | ((line: string) => void),
): Promise<{ url: string; close: () => Promise<void> }> {
  // A plain function is a line sink for everything, handy in tests.
  const log =
    typeof logger === 'function'
      ? createLogger({ format: options.log ?? 'pretty', quiet: options.quiet ?? false, out: logger, err: logger })
      : (logger ?? createLogger({ format: options.log ?? 'pretty', quiet: options.quiet ?? false }));
  const scenario = options.config ? await readScenario(options.config) : undefined;
  const restore = options.state ? loadState(options.state) : undefined;
  const loopback = isLoopback(options.host);
  const token = options.token || undefined;
  let simulator;
  try {
    simulator = createSimulator({
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.timing ? { timing: options.timing } : {}),
      ...(scenario ? { scenario } : {}),
      ...(restore ? { restore } : {}),
      control: { enabled: loopback || token !== undefined, token },
      remoteAddress: (c) => getConnInfo(c).remote.address,
      onUnexpectedError: (error) => log.error(`unexpected error: ${(error as Error)?.stack ?? String(error)}`, { error: String(error) }),
    });
  } catch (error) {
    if (error instanceof SimulatorError) throw new CliError(`${options.config ? `--config ${options.config}: ` : ''}${error.message}`);
    // loadState checked the file's shape; whatever else fails while restoring it is damage inside.
    if (restore) {
      throw new CliError(`--state: '${options.state}' could not be restored (${(error as Error).message}). Move it away to start afresh; it is left untouched.`);
    }
    throw error;
  }
  const saver = options.state
    ? startSaver(simulator.engine, options.state, options.saveIntervalMs ?? 1000, (error) =>
        log.error(`could not save --state ${options.state}: ${error.message}`, { state: options.state }),
      )
    : undefined;
  // Request lines are info: with --quiet nothing listens, so nothing is built per request.
  if (!options.quiet) {
    simulator.journal.subscribe((entry) => log.request(entry));
  }
  const server = createSimulatorServer(simulator, { host: options.host, allowedHosts: options.allowedHosts });
  server.listen(options.port, options.host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new CliError(`Port ${options.port} on ${options.host} is in use: pass --port (or ENERGY_SIM_PORT) with a free port, or 0 for any.`)
          : error,
      );
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  const url = `http://${host}:${port}`;
  // The demo key is public by design; no other key is ever logged.
  const demo = simulator.engine.authenticate('demo-key') ? 'demo-key' : '<API_KEY>';
  const curl = `curl -s '${url}/v1/tron/price?rentalCount=65000&period=1h' -H 'API-KEY: ${demo}'`;
  const control = !loopback && !token ? 'off' : `${url}/_sim${token ? ' (token required)' : ''}`;
  const state = options.state
    ? `${options.state} (${restore ? `restored ${restore.orders.length} orders, ${restore.accounts.length} accounts` : 'new'}; saved every ${options.saveIntervalMs ?? 1000} ms and on shutdown)`
    : undefined;
  const lines = [
    `energy-rental-kit simulator listening on ${url}`,
    `  clock ${simulator.clock.mode}, timing ${simulator.engine.settings().timing}, seed ${simulator.engine.seed}`,
    `  API key: ${demo}`,
    `  try: ${curl}`,
    ...(state ? [`  state: ${state}`] : []),
    `  control plane: ${control === 'off' ? 'off (listening off loopback without --token)' : control}`,
    `  docs: ${url}/docs   dashboard: ${url}/_sim/ui`,
  ];
  log.banner(lines, 'listening', {
    url,
    clock: simulator.clock.mode,
    timing: simulator.engine.settings().timing,
    seed: simulator.engine.seed,
    apiKey: demo,
    curl,
    controlPlane: control,
    ...(state ? { state } : {}),
  });

  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        saver?.stop();
        saver?.saveNow();
        server.close(() => resolve());
        // Keep-alive connections would hold close() open; end them.
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}
