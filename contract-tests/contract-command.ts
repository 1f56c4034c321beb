/**
 * `energy-rental-kit contract`: runs the contract suite against the in-process
 * simulator (default) or a URL, by starting vitest on the contract project with the
 * run's settings in the environment.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fileLimitFrom } from '../src/bounded-file.ts';
import { readCommandArgs } from '../src/cli-args.ts';
import { commandHelp, type CliOption } from '../src/cli-help.ts';
import { CliError } from '../src/cli-error.ts';
import { envFlag } from '../src/env-flag.ts';
import { CLI_COMMANDS } from '../src/generated/cli.ts';
import { loadRecording } from '../recording/recording.ts';
import { newRunId } from './contract-config.ts';
import { listFacts } from './facts.ts';
import { checkTarget } from './target-check.ts';
import { POLITENESS_ENV, readPoliteness } from './politeness-settings.ts';

/** `contract --help`, from its table in spec/cli.yaml. */
export const CONTRACT_HELP: string = commandHelp(CLI_COMMANDS.contract);

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The suite's flags (record's too), each handed to the workers as its variable. */
const SUITE_OPTIONS: Readonly<Record<string, CliOption>> = CLI_COMMANDS.contract.options;

/** The suite's flags as read, by name (contract's and record's tables share them). */
type ContractFlags = Partial<Record<string, string | boolean>>;

/** Applies the suite's flags to an environment, naming the flag and the fix on a mistake. */
export function applyContractFlags(values: ContractFlags, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  for (const [flag, option] of Object.entries(SUITE_OPTIONS)) {
    const value = values[flag];
    if (option.env && typeof value === 'string' && flag !== 'replay') out[option.env] = value;
  }
  // Read once here, so a misspelt CONTRACT_ALLOW_SPEND stops the run before it starts.
  if (values['allow-spend'] || envFlag(env, 'CONTRACT_ALLOW_SPEND')) out.CONTRACT_ALLOW_SPEND = '1';
  else delete out.CONTRACT_ALLOW_SPEND;
  const maxOrders = values['max-orders'];
  if (typeof maxOrders === 'string' && !/^\d+$/.test(maxOrders))
    throw new CliError(`--max-orders must be a whole number (got '${maxOrders}').`);
  if (values['retry-orders']) {
    if (out[POLITENESS_ENV['duplicate-out-order-no']]?.trim() !== 'return-existing') {
      throw new CliError(
        "--retry-orders sends a createOrder again only to a target known to answer a repeated outOrderNo with the existing order: add --duplicate-out-order-no return-existing (what 'calibrate' learnt as duplicateOutOrderNo), or drop --retry-orders.",
      );
    }
    out[POLITENESS_ENV['retry-orders']] = '1';
  }
  try {
    readPoliteness(out, !out.CONTRACT_BASE_URL);
  } catch (error) {
    // Named as the flag the user typed, when a flag set it.
    let message = (error as Error).message;
    for (const [flag, name] of Object.entries(POLITENESS_ENV))
      if (values[flag as keyof typeof POLITENESS_ENV] !== undefined)
        message = message.replaceAll(name, `--${flag}`);
    throw new CliError(message);
  }
  // Resolved here, against the user's working directory, whatever directory vitest runs in.
  out.CONTRACT_REPORT = path.resolve(out.CONTRACT_REPORT ?? 'contract-report.json');
  if (out.CONTRACT_BASE_URL && !out.CONTRACT_API_KEY) {
    throw new CliError(
      '--base-url needs --api-key (or CONTRACT_API_KEY): the key of the account to test with.',
    );
  }
  return out;
}

/** Turns the flags into the suite's environment, naming the flag and the fix on a mistake. */
export function contractEnv(argv: string[], env: NodeJS.ProcessEnv): NodeJS.ProcessEnv | 'help' | 'facts' {
  const { values } = readCommandArgs('contract', argv);
  if (values.help) return 'help';
  if (values.facts) return 'facts';
  if (values.replay !== undefined) {
    const clash = (['base-url', 'allow-spend', 'max-orders', 'pledge-address', 'tron-node'] as const).filter(
      (flag) => values[flag] !== undefined,
    );
    if (clash.length > 0) {
      throw new CliError(
        `--replay serves a recording offline with the recording's own target and spending guard; drop ${clash.map((f) => `--${f}`).join(', ')}.`,
      );
    }
    const file = path.resolve(values.replay);
    // The suite has no flag of its own for it: ENERGY_SIM_MAX_FILE_MB, read again by its workers.
    const limit = fileLimitFrom(undefined, env, null);
    try {
      loadRecording(file, limit);
    } catch (error) {
      throw new CliError(`--replay: ${(error as Error).message}`);
    }
    const out = applyContractFlags(values, env);
    out.CONTRACT_REPLAY = file;
    return out;
  }
  return applyContractFlags(values, env);
}

/** vitest's CLI in the checkout or package at `dir`: it exports no path to it, so it is found next to its package.json. */
export function vitestCliIn(dir: string): string {
  let manifest: string;
  try {
    manifest = createRequire(path.join(dir, 'package.json')).resolve('vitest/package.json');
  } catch {
    throw new CliError(
      `The contract suite's runner, vitest, is not installed beside energy-rental-kit in ${dir}. Reinstall the kit (npm install -D energy-rental-kit) and try again.`,
    );
  }
  return path.join(path.dirname(manifest), 'vitest.mjs');
}

/**
 * How a copy of the kit runs its suite. This checkout (this module is TypeScript): vitest
 * with contract.vitest.config.ts beside this module, run from the checkout. Another
 * checkout (`dir`, the bench's `--root`): its vitest.config.ts's `contract` project, which
 * every version of a checkout has. An installed package (this module is built JS): the
 * built suite's config, run from the user's directory, where its report belongs, so the
 * kit's own vitest runs it and nothing is read from the user's project.
 */
export function suiteLayout(dir: string = root): {
  vitestArgs: string[];
  reporter: string;
  cwd: string | undefined;
} {
  const reporter = path.join(dir, 'contract-tests', 'contract-reporter.ts');
  if (dir !== root) return { vitestArgs: ['--project', 'contract'], reporter, cwd: dir };
  const here = path.dirname(fileURLToPath(import.meta.url));
  // The path, not the URL: tsx (bin/ in a checkout) adds a query to a module's URL.
  if (path.extname(fileURLToPath(import.meta.url)) === '.ts')
    return { vitestArgs: ['--config', path.join(here, 'contract.vitest.config.ts')], reporter, cwd: dir };
  return {
    vitestArgs: ['--config', path.join(here, 'contract.vitest.config.js'), '--root', path.dirname(here)],
    reporter: path.join(here, 'contract-reporter.js'),
    cwd: undefined,
  };
}

/** How spawnContractSuite runs vitest. */
export interface SuiteSpawnOptions {
  vitestArgs?: string[];
  stdio?: 'inherit' | 'pipe';
  onOutput?: (chunk: string) => void;
  /** The checkout whose suite runs, with its own vitest (default: this one). */
  cwd?: string;
  /** Kills vitest (SIGKILL) after this many ms; the run then ends with code 1. */
  timeoutMs?: number;
}

/**
 * Starts vitest on the contract project with the suite's environment and resolves with
 * its exit code.
 */
export function spawnContractSuite(env: NodeJS.ProcessEnv, options: SuiteSpawnOptions = {}): Promise<number> {
  const dir = options.cwd ?? root;
  const layout = suiteLayout(dir);
  const vitest = vitestCliIn(dir);
  const cwd = layout.cwd ?? process.cwd();
  return new Promise<number>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [vitest, 'run', ...layout.vitestArgs, ...(options.vitestArgs ?? [])],
      {
        cwd,
        env,
        stdio: options.stdio === 'pipe' ? ['ignore', 'pipe', 'pipe'] : 'inherit',
      },
    );
    child.stdout?.on('data', (chunk: Buffer) => options.onOutput?.(chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => options.onOutput?.(chunk.toString()));
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

/**
 * Stops the run with one line (a CliError, exit code 2) when the URL it targets is not
 * reachable or refuses the key; in-process and replay runs have nothing to check.
 *
 * @example
 *   await requireReachableTarget({ CONTRACT_BASE_URL: 'http://127.0.0.1:8787', CONTRACT_API_KEY: 'demo-key' });
 */
export async function requireReachableTarget(
  suiteEnv: NodeJS.ProcessEnv,
  fetchImpl?: typeof fetch,
): Promise<void> {
  const baseUrl = suiteEnv.CONTRACT_BASE_URL?.trim();
  if (!baseUrl || suiteEnv.CONTRACT_REPLAY) return;
  const problem = await checkTarget(baseUrl, suiteEnv.CONTRACT_API_KEY ?? '', fetchImpl);
  if (problem) throw new CliError(problem);
}

/**
 * Runs the suite and resolves with vitest's exit code.
 *
 * @example
 *   await runContract(['--base-url', 'http://127.0.0.1:8787', '--api-key', 'demo-key']);
 */
export async function runContract(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  options: { fetch?: typeof fetch } = {},
): Promise<number> {
  const suiteEnv = contractEnv(argv, env);
  if (suiteEnv === 'help' || suiteEnv === 'facts') {
    process.stdout.write(suiteEnv === 'help' ? CONTRACT_HELP : listFacts());
    return 0;
  }
  await requireReachableTarget(suiteEnv, options.fetch);
  // One directory per run holds the order slots that all workers share.
  const runDir = mkdtempSync(path.join(os.tmpdir(), 'energy-rental-contract-'));
  suiteEnv.CONTRACT_RUN_DIR = runDir;
  suiteEnv.CONTRACT_RUN_ID ||= newRunId();
  try {
    return await spawnContractSuite(suiteEnv);
  } finally {
    rmSync(runDir, { recursive: true, force: true });
  }
}
