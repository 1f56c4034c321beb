/**
 * The contract run's settings, read once from the environment (the `contract` command
 * sets them from its flags).
 */
import { fileLimitFrom, type FileLimit } from '../src/bounded-file.ts';
import { envFlag } from '../src/env-flag.ts';
import { loadRecording } from '../recording/recording.ts';
import { readPoliteness, type Politeness } from './politeness-settings.ts';

export interface ContractConfig {
  /**
   * 'in-process' (default): a fresh simulator per file, no socket, manual clock.
   * 'url': a server at `baseUrl`. 'replay': a recording served offline (`replayPath`).
   */
  mode: 'in-process' | 'url' | 'replay';
  baseUrl?: string;
  apiKey: string;
  /** Against a URL that is not a simulator, cases that create orders need this. */
  allowSpend: boolean;
  /** The most orders a run may create against a URL that is not a simulator. */
  maxOrders: number;
  /** Where the run's report goes. */
  reportPath: string;
  /** Address that receives the energy of spending cases; default: the account's wallet. */
  pledgeAddress?: string;
  /** A deliberately broken simulator variant (in-process only), for the suite's self-test. */
  variant?: string;
  /** Directory shared by the run's workers (order slots). */
  runDir?: string;
  /**
   * Seeds every value the suite makes up (outOrderNo, fresh addresses), so that a run
   * with the same id sends the same requests. A replay uses its recording's id.
   */
  runId: string;
  /** Directory where each file's exchanges are appended while recording. */
  recordDir?: string;
  /** The recording a replay serves. */
  replayPath?: string;
  /** The largest recording a replay reads (ENERGY_SIM_MAX_FILE_MB); default 256 MB. */
  fileLimit?: FileLimit;
  /**
   * Treat the target as the real service even when it is a simulator: its control plane
   * is never called, it offers no capability, and the spending guard is on
   * (`record --as-upstream`), so a calibrated simulator is recorded like with like.
   */
  asUpstream?: boolean;
  /** The pace and the retries of a rate-limited call, against a target that is not a simulator. */
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

/** A fresh run id: the time in base 36 and the process id, unique enough per run. */
export function newRunId(now: number = Date.now()): string {
  return `${now.toString(36)}${process.pid.toString(36)}`;
}

// One id per worker when no run id is given (a bare `vitest run`); test names keep the
// values of different files apart.
const fallbackRunId = newRunId();

/**
 * Reads the configuration, naming the variable and the fix on a mistake.
 *
 * @example
 *   readContractConfig({ CONTRACT_BASE_URL: 'http://127.0.0.1:8787', CONTRACT_API_KEY: 'demo-key' }).mode; // 'url'
 */
export function readContractConfig(env: NodeJS.ProcessEnv = process.env): ContractConfig {
  const baseUrl = env.CONTRACT_BASE_URL?.trim() || undefined;
  const replayPath = env.CONTRACT_REPLAY?.trim() || undefined;
  const maxOrdersText = env.CONTRACT_MAX_ORDERS ?? '1';
  const maxOrders = Number(maxOrdersText);
  if (!/^\d+$/.test(maxOrdersText)) {
    throw new Error(`CONTRACT_MAX_ORDERS must be a whole number (got '${maxOrdersText}').`);
  }
  if (baseUrl) {
    try {
      new URL(baseUrl);
    } catch {
      throw new Error(
        `CONTRACT_BASE_URL must be an absolute URL such as https://api.eopen.io/api (got '${baseUrl}').`,
      );
    }
    if (!env.CONTRACT_API_KEY) {
      throw new Error(
        'CONTRACT_API_KEY is required with CONTRACT_BASE_URL: set it to the API key of the account to test with.',
      );
    }
  }
  if (replayPath && baseUrl) {
    throw new Error(
      'CONTRACT_REPLAY and CONTRACT_BASE_URL exclude each other: a replay serves its recording offline. Unset one of them.',
    );
  }
  if (replayPath && env.CONTRACT_RECORD) {
    throw new Error(
      'CONTRACT_REPLAY and CONTRACT_RECORD exclude each other: record a real target, not a replay.',
    );
  }
  const config: ContractConfig = {
    mode: replayPath ? 'replay' : baseUrl ? 'url' : 'in-process',
    apiKey: env.CONTRACT_API_KEY ?? 'demo-key',
    allowSpend: envFlag(env, 'CONTRACT_ALLOW_SPEND'),
    maxOrders,
    reportPath: env.CONTRACT_REPORT ?? 'contract-report.json',
    runId: env.CONTRACT_RUN_ID?.trim() || fallbackRunId,
    politeness: readPoliteness(env, !baseUrl),
  };
  if (baseUrl) config.baseUrl = baseUrl.replace(/\/+$/, '');
  if (env.CONTRACT_PLEDGE_ADDRESS) config.pledgeAddress = env.CONTRACT_PLEDGE_ADDRESS;
  if (env.CONTRACT_VARIANT) config.variant = env.CONTRACT_VARIANT;
  if (env.CONTRACT_RUN_DIR) config.runDir = env.CONTRACT_RUN_DIR;
  if (env.CONTRACT_RECORD) config.recordDir = env.CONTRACT_RECORD;
  if (envFlag(env, 'CONTRACT_AS_UPSTREAM')) config.asUpstream = true;
  const tronNode = env.CONTRACT_TRON_NODE?.trim() || undefined;
  if (tronNode) {
    if (!/^https?:\/\/[^/]/.test(tronNode) || !URL.canParse(tronNode))
      throw new Error(
        `CONTRACT_TRON_NODE must be an http(s) URL of a TRON node such as https://api.trongrid.io (got '${tronNode}').`,
      );
    if (replayPath)
      throw new Error(
        'CONTRACT_TRON_NODE and CONTRACT_REPLAY exclude each other: a replay reads the chain as recorded.',
      );
    config.tronNode = tronNode.replace(/\/+$/, '');
  }
  const clock = env.CONTRACT_SIM_CLOCK?.trim() || undefined;
  const timing = env.CONTRACT_SIM_TIMING?.trim() || undefined;
  if (clock !== undefined && clock !== 'manual' && clock !== 'real')
    throw new Error(`CONTRACT_SIM_CLOCK must be manual or real (got '${clock}').`);
  if (timing !== undefined && timing !== 'realistic' && timing !== 'fast' && timing !== 'instant') {
    throw new Error(`CONTRACT_SIM_TIMING must be realistic, fast or instant (got '${timing}').`);
  }
  if ((clock || timing) && (baseUrl || replayPath)) {
    throw new Error(
      'CONTRACT_SIM_CLOCK and CONTRACT_SIM_TIMING set up the in-process simulator: start a server with --clock and --timing to test one at CONTRACT_BASE_URL.',
    );
  }
  if (clock || timing) config.simulator = { ...(clock ? { clock } : {}), ...(timing ? { timing } : {}) };
  if (replayPath) {
    // A replay sends exactly what the recording run sent: its run id, its spending
    // guard and its receiving address.
    const fileLimit = fileLimitFrom(undefined, env, null);
    let recording;
    try {
      recording = loadRecording(replayPath, fileLimit);
    } catch (error) {
      throw new Error(`CONTRACT_REPLAY: ${(error as Error).message}`, { cause: error });
    }
    config.replayPath = replayPath;
    config.fileLimit = fileLimit;
    config.runId = recording.runId;
    config.allowSpend = recording.settings.allowSpend;
    config.maxOrders = recording.settings.maxOrders;
    delete config.pledgeAddress;
    if (recording.settings.pledgeAddress) config.pledgeAddress = recording.settings.pledgeAddress;
    delete config.variant;
  }
  return config;
}
