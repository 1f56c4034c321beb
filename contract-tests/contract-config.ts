/** The contract run's settings, read from the environment the `contract` command sets from its flags. */
import path from 'node:path';
import { fileLimitFrom } from '../src/bounded-file.ts';
import { envFlag } from '../src/env-flag.ts';
import { loadRecording, type Recording } from '../recording/recording.ts';
import { CLI_COMMANDS } from '../src/generated/cli.ts';

export interface ContractConfig {
  /** A fresh simulator per file (manual clock, no socket), a server at `baseUrl`, or a recording served offline. */
  mode: 'in-process' | 'url' | 'replay';
  baseUrl?: string;
  apiKey: string;
  /** Against a URL that is not a simulator, cases that create orders need this. */
  allowSpend: boolean;
  /** The most orders a run may create against a URL that is not a simulator. */
  maxOrders: number;
  /** Address that receives the energy of spending cases; default: the account's wallet. */
  pledgeAddress?: string;
  /** A broken simulator or a stand-in (in-process, or served at `baseUrl`), for the suite's self-test. */
  variant?: string;
  /** Directory shared by the run's workers (order slots). */
  runDir?: string;
  /** Seeds every value the suite makes up (outOrderNo, fresh addresses): a replay sends what its recording run sent. */
  runId: string;
  /** Directory where each file's exchanges are appended while recording. */
  recordDir?: string;
  /** The recording a replay serves (read once, within ENERGY_SIM_MAX_FILE_MB), and its path. */
  replayPath?: string;
  recording?: Recording;
  /** A simulator recorded as the real service (`record --as-upstream`): no control plane, guarded. */
  asUpstream?: boolean;
  politeness: Politeness;
  /** The TRON node whose chain the spending case reads (`--tron-node`); a simulator's own when absent. */
  tronNode?: string;
  /** In-process only: the simulator's clock (default manual) and timing (default realistic). */
  simulator?: { clock?: 'manual' | 'real'; timing?: 'realistic' | 'fast' | 'instant' };
}

/**
 * Why a spending case is skipped once the run's orders are used up.
 *
 * @example
 *   ordersUsedUp(1); // 'the 1 order CONTRACT_MAX_ORDERS=1 allows was already created in this run'
 */
export function ordersUsedUp(maxOrders: number): string {
  const one = maxOrders === 1;
  return `the ${maxOrders} ${one ? 'order' : 'orders'} CONTRACT_MAX_ORDERS=${maxOrders} allows ${one ? 'was' : 'were'} already created in this run`;
}

/**
 * A path as the user would name it: relative to the working directory when inside it.
 *
 * @example
 *   displayPath(path.resolve('recordings/a.json')); // 'recordings/a.json'
 */
export function displayPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
}

export function newRunId(now: number = Date.now()): string {
  return `${now.toString(36)}${process.pid.toString(36)}`;
}

// One id per worker when no run id is given (a bare `vitest run`); test names keep files apart.
const fallbackRunId = newRunId();

/**
 * Reads the configuration, naming the variable and the fix on a mistake.
 *
 * @example
 *   readContractConfig({ CONTRACT_BASE_URL: 'http://127.0.0.1:8787', CONTRACT_API_KEY: 'demo-key' }).mode; // 'url'
 */
export function readContractConfig(env: NodeJS.ProcessEnv = process.env): ContractConfig {
  const text = (name: string): string | undefined => env[name]?.trim() || undefined;
  const baseUrl = text('CONTRACT_BASE_URL');
  const replayPath = text('CONTRACT_REPLAY');
  const clock = text('CONTRACT_SIM_CLOCK');
  const timing = text('CONTRACT_SIM_TIMING');
  const maxOrders = env.CONTRACT_MAX_ORDERS ?? '1';
  if (!/^\d+$/.test(maxOrders))
    throw new Error(`CONTRACT_MAX_ORDERS must be a whole number (got '${maxOrders}').`);
  if (baseUrl && !URL.canParse(baseUrl))
    throw new Error(
      `CONTRACT_BASE_URL must be an absolute URL such as https://api.eopen.io/api (got '${baseUrl}').`,
    );
  if (baseUrl && !env.CONTRACT_API_KEY)
    throw new Error(
      'CONTRACT_API_KEY is required with CONTRACT_BASE_URL: set it to the API key of the account to test with.',
    );
  if (replayPath && baseUrl)
    throw new Error(
      'CONTRACT_REPLAY and CONTRACT_BASE_URL exclude each other: a replay serves its recording offline. Unset one of them.',
    );
  if (replayPath && env.CONTRACT_RECORD)
    throw new Error(
      'CONTRACT_REPLAY and CONTRACT_RECORD exclude each other: record a real target, not a replay.',
    );
  if (clock && clock !== 'manual' && clock !== 'real')
    throw new Error(`CONTRACT_SIM_CLOCK must be manual or real (got '${clock}').`);
  if (timing && !['realistic', 'fast', 'instant'].includes(timing))
    throw new Error(`CONTRACT_SIM_TIMING must be realistic, fast or instant (got '${timing}').`);
  if ((clock || timing) && (baseUrl || replayPath))
    throw new Error(
      'CONTRACT_SIM_CLOCK and CONTRACT_SIM_TIMING set up the in-process simulator: start a server with --clock and --timing to test one at CONTRACT_BASE_URL.',
    );
  const tronNode = text('CONTRACT_TRON_NODE');
  if (tronNode && (!/^https?:\/\/[^/]/.test(tronNode) || !URL.canParse(tronNode)))
    throw new Error(
      `CONTRACT_TRON_NODE must be an http(s) URL of a TRON node such as https://api.trongrid.io (got '${tronNode}').`,
    );
  if (tronNode && replayPath)
    throw new Error(
      'CONTRACT_TRON_NODE and CONTRACT_REPLAY exclude each other: a replay reads the chain as recorded.',
    );
  const config: ContractConfig = {
    mode: replayPath ? 'replay' : baseUrl ? 'url' : 'in-process',
    baseUrl: baseUrl?.replace(/\/+$/, ''),
    apiKey: env.CONTRACT_API_KEY ?? 'demo-key',
    allowSpend: envFlag(env, 'CONTRACT_ALLOW_SPEND'),
    maxOrders: Number(maxOrders),
    pledgeAddress: env.CONTRACT_PLEDGE_ADDRESS || undefined,
    variant: env.CONTRACT_VARIANT || undefined,
    runDir: env.CONTRACT_RUN_DIR || undefined,
    runId: text('CONTRACT_RUN_ID') ?? fallbackRunId,
    recordDir: env.CONTRACT_RECORD || undefined,
    asUpstream: envFlag(env, 'CONTRACT_AS_UPSTREAM'),
    politeness: readPoliteness(env, !baseUrl),
    tronNode: tronNode?.replace(/\/+$/, ''),
    simulator: { clock, timing } as ContractConfig['simulator'],
  };
  if (!replayPath) return config;
  // A replay sends exactly what the recording run sent: its run id, spending guard and address.
  let recording: Recording;
  try {
    recording = loadRecording(replayPath, fileLimitFrom(undefined, env, null));
  } catch (error) {
    throw new Error(`CONTRACT_REPLAY: ${(error as Error).message}`, { cause: error });
  }
  const { settings, runId } = recording;
  return {
    ...config,
    allowSpend: settings.allowSpend,
    maxOrders: settings.maxOrders,
    pledgeAddress: settings.pledgeAddress,
    variant: undefined,
    replayPath,
    recording,
    runId,
  };
}

export interface Politeness {
  /** Most requests a second of the whole run, every worker together; 0 turns the pace off. */
  maxRps: number;
  /** Most times one call is sent again after a 429. */
  retries: number;
  /** The longest single wait before a retry, ms: a longer Retry-After gives up instead. */
  waitMaxMs: number;
  /** The most one call waits for its retries altogether, ms. */
  waitTotalMs: number;
  /** Whether a createOrder that got a 429 may be sent again (same outOrderNo). */
  retryOrders: boolean;
  /** What the target does with a repeated outOrderNo, when known. */
  duplicateOutOrderNo?: 'return-existing' | 'reject';
}

const OPTIONS = CLI_COMMANDS.contract.options;
/** What --duplicate-out-order-no takes, as its table writes it ("return-existing|reject"). */
const DUPLICATE_CHOICES = OPTIONS['duplicate-out-order-no'].value!.split('|');

/**
 * Reads the politeness settings (no pace by default in-process); throws naming the variable and the rule.
 *
 * @example
 *   readPoliteness({ CONTRACT_MAX_RPS: '2' }, false).maxRps; // 2
 */
export function readPoliteness(env: NodeJS.ProcessEnv, inProcess: boolean): Politeness {
  const number = (flag: 'max-rps' | 'retries' | 'retry-wait-max' | 'retry-wait-total', fallback: number) => {
    const name = OPTIONS[flag].env;
    const text = env[name]?.trim();
    if (!text) return fallback;
    const whole = flag === 'retries';
    if (!(whole ? /^\d+$/ : /^\d+(\.\d+)?$/).test(text))
      throw new Error(
        `${name} must be ${whole ? 'a whole number' : 'a number of 0 or more'} (got '${text}').`,
      );
    return Number(text);
  };
  const duplicateEnv = OPTIONS['duplicate-out-order-no'].env;
  const duplicate = env[duplicateEnv]?.trim() || undefined;
  if (duplicate && !DUPLICATE_CHOICES.includes(duplicate))
    throw new Error(`${duplicateEnv} must be ${DUPLICATE_CHOICES.join(' or ')} (got '${duplicate}').`);
  const settings: Politeness = {
    maxRps: number('max-rps', inProcess ? 0 : 4),
    retries: number('retries', Number(OPTIONS.retries.default)),
    waitMaxMs: 1000 * number('retry-wait-max', Number(OPTIONS['retry-wait-max'].default)),
    waitTotalMs: 1000 * number('retry-wait-total', Number(OPTIONS['retry-wait-total'].default)),
    retryOrders: envFlag(env, OPTIONS['retry-orders'].env),
    duplicateOutOrderNo: duplicate as Politeness['duplicateOutOrderNo'],
  };
  if (settings.retryOrders && settings.duplicateOutOrderNo !== 'return-existing')
    throw new Error(
      `${OPTIONS['retry-orders'].env}=1 retries an order only on a target known to answer a repeated outOrderNo with the existing order: set ${duplicateEnv}=return-existing (what 'calibrate' learnt as duplicateOutOrderNo), or drop ${OPTIONS['retry-orders'].env}.`,
    );
  return settings;
}

/**
 * Whether a run may wait to be polite (then a case is timed without its waits); any stand-in may answer 429.
 *
 * @example
 *   mayWaitPolitely({ CONTRACT_BASE_URL: 'https://api.eopen.io/api' }); // true
 */
export function mayWaitPolitely(env: NodeJS.ProcessEnv): boolean {
  if (env.CONTRACT_REPLAY?.trim()) return false;
  const inProcess = !env.CONTRACT_BASE_URL?.trim();
  const rps = env[OPTIONS['max-rps'].env]?.trim();
  const retries = env[OPTIONS.retries.env]?.trim();
  const paced = rps ? Number(rps) > 0 : !inProcess;
  const retrying = !retries || Number(retries) > 0;
  return paced || (retrying && (!inProcess || Boolean(env.CONTRACT_VARIANT)));
}
