/** `serve`'s options: its table in spec/cli.yaml read from flags and environment once, each mistake named. */
import { isIP } from 'node:net';
import { TIMING_PROFILES, type TimingProfile } from '../mock/engine/index.ts';
import { parseAllowedHosts } from '../mock/http/request-guard.ts';
import path from 'node:path';
import { scenarioSyntaxError } from '../mock/scenario/scenario-input.ts';
import type { ScenarioInput } from '../mock/simulator.ts';
import { BoundedFileError, parseMaxFileMb, readBoundedFile, type FileLimit } from '../src/bounded-file.ts';
import { readCommandArgs } from '../src/cli-args.ts';
import { commandHelp, type CliOption } from '../src/cli-help.ts';
import { CLI_COMMANDS } from '../src/generated/cli.ts';
import { CliError } from '../src/cli-error.ts';
import { envFlag } from '../src/env-flag.ts';
import type { LogFormat } from './logger.ts';
import type { RecordMode } from '../recording/live-recording.ts';
import { DEFAULT_LOG_MAX_MB, FSYNC_POLICIES, type FsyncPolicy } from './state-log.ts';

export const OPTIONS: (typeof CLI_COMMANDS)['serve']['options'] = CLI_COMMANDS.serve.options;
/** `serve --help`, from its table in spec/cli.yaml. */
export const SERVE_HELP: string = commandHelp(CLI_COMMANDS.serve);

/** What serve runs with: each field is a flag of its table in spec/cli.yaml, which names its default. */
export interface ServeOptions {
  port: number;
  host: string;
  allowedHosts?: string[] | 'all' | undefined;
  config?: string | undefined;
  seed?: number | undefined;
  clock?: 'real' | 'manual' | undefined;
  timing?: TimingProfile | undefined;
  token?: string | undefined;
  state?: string | undefined;
  saveIntervalMs?: number | undefined;
  fsync?: FsyncPolicy | undefined;
  logMaxMb?: number | undefined;
  log?: LogFormat | undefined;
  quiet?: boolean | undefined;
  upstream?: string | undefined;
  upstreamTimeoutMs?: number | undefined;
  upstreamMaxBytes?: number | undefined;
  allowSpend?: boolean | undefined;
  maxOrders?: number | undefined;
  maxSpend?: string | undefined;
  forwardUnknown?: boolean | undefined;
  tronNode?: string | undefined;
  record?: string | undefined;
  /** What to do when the recording is there already; default 'new' (refuse it). */
  recordMode?: RecordMode | undefined;
  replay?: string | undefined;
  maxFileMb?: number | undefined;
  /** Where each value came from ('--clock' or 'ENERGY_SIM_CLOCK (…)'), for messages; default the flag. */
  sources?: ServeSources | undefined;
}

/** The largest `--upstream-max-bytes`, 1 GiB. */
const MAX_UPSTREAM_MAX_BYTES = 1024 * 1024 * 1024;

export type ServeFlag = keyof typeof OPTIONS;
export type ServeSources = Partial<Record<ServeFlag, string>>;

/** Normalises flags and environment once, naming the option and the fix on any mistake. */
export function parseServeArgs(argv: string[], env: NodeJS.ProcessEnv): ServeOptions | 'help' {
  const { values } = readCommandArgs('serve', argv);
  if (values.help) return 'help';
  // Every value is named by where it came from, so a bad ENERGY_SIM_CLOCK is not reported as --clock.
  const sources: ServeSources = {};
  const pick = (name: ServeFlag): string | undefined => {
    const flag = values[name];
    if (flag !== undefined) {
      sources[name] = `--${name}`;
      return flag as string;
    }
    const variable = (OPTIONS[name] as CliOption).env!;
    const fromEnv = env[variable];
    if (fromEnv !== undefined) sources[name] = `${variable} (the environment variable of --${name})`;
    return fromEnv;
  };
  // A switch: the flag, or its variable set on (1, true or yes).
  const on = (name: ServeFlag): boolean =>
    (values[name] as boolean | undefined) ?? envFlag(env, (OPTIONS[name] as CliOption).env!);
  const label = (name: ServeFlag): string => sources[name] ?? `--${name}`;
  const integer = (name: ServeFlag, min: number, max: number): number | undefined => {
    const raw = pick(name);
    if (raw === undefined || raw === '') return undefined;
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || n < min || n > max)
      throw new CliError(`${label(name)} must be a whole number from ${min} to ${max} (got '${raw}').`);
    return n;
  };
  const oneOf = <T extends string>(name: ServeFlag, allowed: readonly T[]): T | undefined => {
    const raw = pick(name);
    if (raw === undefined || raw === '') return undefined;
    if (!allowed.includes(raw as T))
      throw new CliError(`${label(name)} must be one of ${allowed.join(', ')} (got '${raw}').`);
    return raw as T;
  };
  // An empty flag is a mistake; an empty variable means unset (a CI template left blank).
  const nonEmpty = (name: 'token' | 'state'): string | undefined => {
    if (values[name] === '') throw new CliError(`--${name} must not be empty; omit it to run without one.`);
    return pick(name) || undefined;
  };
  const hostList = (): string[] | 'all' | undefined => {
    const raw = pick('allowed-hosts');
    if (raw === undefined || raw.trim() === '') return undefined;
    try {
      return parseAllowedHosts(raw);
    } catch (error) {
      throw new CliError(`${label('allowed-hosts')}: ${(error as Error).message}`);
    }
  };
  // Digits and dots only is meant as an IPv4 address: 999.1.1.1 is refused here, not at listen time.
  const hostAddress = (): string => {
    const raw = pick('host');
    if (raw === undefined || raw === '') return '127.0.0.1';
    if ((/^[\d.]+$/.test(raw) && !isIP(raw)) || /\s/.test(raw))
      throw new CliError(
        `${label('host')} must be an IP address or a host name of this machine, such as 127.0.0.1 or 0.0.0.0 (got '${raw}').`,
      );
    return raw;
  };
  const httpUrl = (name: 'upstream' | 'tron-node', what: string): string | undefined => {
    const raw = pick(name);
    if (raw === undefined || raw === '') return undefined;
    const protocol = URL.canParse(raw) ? new URL(raw).protocol : undefined;
    if (protocol !== 'http:' && protocol !== 'https:')
      throw new CliError(`${label(name)} must be the http(s) base URL of ${what} (got '${raw}').`);
    return raw;
  };
  const upstream = httpUrl('upstream', 'the service, such as https://api.eopen.io/api');
  const tronNode = httpUrl('tron-node', "a TRON node's HTTP API, such as https://api.trongrid.io");
  const allowSpend = on('allow-spend');
  const upstreamTimeoutMs = integer('upstream-timeout', 1, 600_000);
  // The proxy holds an answer whole to check it: past a gigabyte a cap bounds nothing.
  const upstreamMaxBytes = integer('upstream-max-bytes', 1, MAX_UPSTREAM_MAX_BYTES);
  const maxOrders = integer('max-orders', 0, 1_000_000);
  const maxSpend = (() => {
    const raw = pick('max-spend');
    if (raw === undefined || raw === '') return undefined;
    if (!/^\d{1,12}(\.\d{1,6})?$/.test(raw))
      throw new CliError(
        `${label('max-spend')} must be an amount of TRX such as 25 or 25.5, at most 6 decimals (got '${raw}').`,
      );
    return raw;
  })();
  const forwardUnknown = on('forward-unknown');
  const record = pick('record') || undefined;
  const recordFlags = (['append', 'overwrite'] as const).filter((mode) => on(`record-${mode}`));
  const recordLabel = (mode: 'append' | 'overwrite'): string =>
    values[`record-${mode}`]
      ? `--record-${mode}`
      : `${OPTIONS[`record-${mode}`].env} (the environment variable of --record-${mode})`;
  if (recordFlags.length === 2)
    throw new CliError(
      `${recordLabel('append')} and ${recordLabel('overwrite')} exclude each other: continue the recording, or replace it, not both.`,
    );
  if (recordFlags.length === 1 && !record)
    throw new CliError(
      `${recordLabel(recordFlags[0]!)} says what --record does with a file that is there: add --record FILE, or leave it out.`,
    );
  const recordMode: RecordMode | undefined = recordFlags[0];
  const replay = pick('replay') || undefined;
  const maxFileText = pick('max-file-mb');
  const maxFileMb = maxFileText ? parseMaxFileMb(maxFileText, label('max-file-mb')) : undefined;
  if (replay && upstream)
    throw new CliError(
      `${label('replay')} and ${label('upstream')} exclude each other: answer from a recording, or from the service, not both.`,
    );
  if (record && !upstream)
    throw new CliError(
      `${label('record')} records the traffic of a proxy: add --upstream URL (to record the contract suite instead, run 'npx energy-rental-kit record --out FILE').`,
    );
  if (!upstream) {
    // Flags of the proxy do nothing without it: say so rather than run a simulator that ignores them.
    const stray = [
      upstreamTimeoutMs !== undefined && label('upstream-timeout'),
      upstreamMaxBytes !== undefined && label('upstream-max-bytes'),
      values['allow-spend'] && '--allow-spend',
      maxOrders !== undefined && label('max-orders'),
      maxSpend !== undefined && label('max-spend'),
      values['forward-unknown'] && '--forward-unknown',
      // In replay the node's reads are answered from the recording, with or without it.
      tronNode !== undefined && !replay && label('tron-node'),
    ].filter(Boolean);
    if (stray.length > 0)
      throw new CliError(
        `${stray.join(' and ')} ${stray.length === 1 ? 'applies' : 'apply'} only in front of a service: add --upstream URL, or leave ${stray.length === 1 ? 'it' : 'them'} out.`,
      );
  }
  return {
    ...(upstream
      ? {
          upstream,
          upstreamTimeoutMs,
          upstreamMaxBytes,
          allowSpend,
          maxOrders,
          maxSpend,
          forwardUnknown,
          tronNode,
        }
      : {}),
    ...(record ? { record, recordMode: recordMode ?? 'new' } : {}),
    ...(replay ? { replay } : {}),
    ...(maxFileMb !== undefined ? { maxFileMb } : {}),
    port: integer('port', 0, 65535) ?? 8787,
    host: hostAddress(),
    allowedHosts: hostList(),
    config: pick('config'),
    seed: integer('seed', 0, 2 ** 32 - 1),
    clock: oneOf('clock', ['real', 'manual'] as const),
    timing: oneOf('timing', TIMING_PROFILES),
    token: nonEmpty('token'),
    state: nonEmpty('state'),
    saveIntervalMs: integer('save-interval', 50, 3_600_000) ?? 1000,
    fsync: oneOf('fsync', FSYNC_POLICIES) ?? 'everysec',
    logMaxMb: integer('log-max-mb', 1, 4096) ?? DEFAULT_LOG_MAX_MB,
    log: oneOf('log', ['pretty', 'json'] as const) ?? 'pretty',
    quiet: on('quiet'),
    sources,
  };
}

/** How a scenario file that cannot be used is put right, for a flag or for its variable. */
function configFix(source: string): string {
  return source.startsWith('--')
    ? 'pass the path of a JSON or YAML scenario (such as examples/scenario.yaml in the package), or leave out --config for the default scenario'
    : `set ${OPTIONS.config.env} to the path of a JSON or YAML scenario, or unset it for the default scenario`;
}

/** The scenario file of `--config`, YAML or JSON: `await readScenario(file, '--config', fileLimit(50))`. */
export async function readScenario(file: string, source: string, limit: FileLimit): Promise<ScenarioInput> {
  let text: string;
  try {
    text = readBoundedFile(file, limit, configFix(source));
  } catch (error) {
    if (!(error instanceof BoundedFileError)) throw error;
    if (error.rule === 'not-regular' || error.rule === 'too-large')
      throw new CliError(`${source}: ${error.message}`);
    const what = error.rule === 'missing' ? `there is no file '${file}'` : `cannot read '${file}'`;
    throw new CliError(
      `${source}: ${what} (${error.code}; looked for ${path.resolve(file)}). Fix: ${configFix(source)}.`,
    );
  }
  let scenario: unknown;
  try {
    // Loaded only for --config: most starts need no YAML parser.
    const { parse: parseYaml } = await import('yaml');
    scenario = parseYaml(text);
  } catch (error) {
    throw new CliError(`${source}: ${scenarioSyntaxError(error, file)}.`);
  }
  if (scenario === null || scenario === undefined) {
    throw new CliError(`${source}: '${file}' is empty. Fix: ${configFix(source)}.`);
  }
  return scenario as ScenarioInput;
}
