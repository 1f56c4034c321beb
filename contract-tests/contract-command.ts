/** `energy-rental-kit contract`: runs vitest on the suite; a URL target is read once first. */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readCommandArgs } from '../src/cli-args.ts';
import { commandHelp, type CliOption } from '../src/cli-help.ts';
import { CliError } from '../src/cli-error.ts';
import { CLI_COMMANDS } from '../src/generated/cli.ts';
import { API_OPERATION_SPECS } from '../src/generated/lists.ts';
import { redactUrl } from '../mock/http/journal-redaction.ts';
import { newRunId, readContractConfig } from './contract-config.ts';
import { listFacts } from './facts.ts';

/** `contract --help`, from its table in spec/cli.yaml. */
export const CONTRACT_HELP: string = commandHelp(CLI_COMMANDS.contract);

const here = fileURLToPath(import.meta.url);
const root = path.resolve(path.dirname(here), '..');

/** The suite's flags (record's too), each handed to the workers as its variable. */
const SUITE_OPTIONS: Readonly<Record<string, CliOption>> = CLI_COMMANDS.contract.options;

/** Sets the suite's flags as their variables and reads them as the workers will, naming a mistake's flag. */
export function applyContractFlags(
  values: Partial<Record<string, string | boolean>>,
  env: NodeJS.ProcessEnv,
): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  for (const [flag, { env: name }] of Object.entries(SUITE_OPTIONS)) {
    const value = values[flag];
    if (!name || value === undefined || value === false) continue;
    out[name] = value === true ? '1' : flag === 'replay' ? path.resolve(value) : value;
  }
  if (values['retry-orders'] && out.CONTRACT_DUPLICATE_OUT_ORDER_NO?.trim() !== 'return-existing')
    throw new CliError(
      "--retry-orders sends a createOrder again only to a target known to answer a repeated outOrderNo with the existing order: add --duplicate-out-order-no return-existing (what 'calibrate' learnt as duplicateOutOrderNo), or drop --retry-orders.",
    );
  if (out.CONTRACT_BASE_URL && !out.CONTRACT_API_KEY)
    throw new CliError(
      '--base-url needs --api-key (or CONTRACT_API_KEY): the key of the account to test with.',
    );
  // Against the user's working directory, whatever directory vitest runs in.
  out.CONTRACT_REPORT = path.resolve(out.CONTRACT_REPORT ?? 'contract-report.json');
  try {
    readContractConfig(out);
  } catch (error) {
    let message = (error as Error).message;
    for (const [flag, option] of Object.entries(SUITE_OPTIONS))
      if (values[flag] !== undefined && option.env) message = message.replaceAll(option.env, `--${flag}`);
    throw new CliError(message);
  }
  return out;
}

/** Turns the flags into the suite's environment, naming the flag and the fix on a mistake. */
export function contractEnv(argv: string[], env: NodeJS.ProcessEnv): NodeJS.ProcessEnv | 'help' | 'facts' {
  const { values } = readCommandArgs('contract', argv);
  if (values.help) return 'help';
  if (values.facts) return 'facts';
  const clash = (['base-url', 'allow-spend', 'max-orders', 'pledge-address', 'tron-node'] as const).filter(
    (flag) => values[flag] !== undefined,
  );
  if (values.replay !== undefined && clash.length > 0)
    throw new CliError(
      `--replay serves a recording offline with the recording's own target and spending guard; drop ${clash.map((f) => `--${f}`).join(', ')}.`,
    );
  return applyContractFlags(values, env);
}

/** How this copy runs its suite: a checkout's sources, or installed, the built suite from the user's cwd. */
export function suiteLayout(): { vitestArgs: string[]; reporter: string; cwd: string | undefined } {
  const extension = path.extname(here);
  const checkout = extension === '.ts';
  const dir = path.dirname(here);
  return {
    // Installed, the config is plain JavaScript that Node imports as it is (vite would bundle it first).
    vitestArgs: ['--config', path.join(dir, `contract.vitest.config${extension}`)].concat(
      checkout ? [] : ['--root', path.dirname(dir), '--configLoader', 'native'],
    ),
    reporter: path.join(dir, `contract-reporter${extension}`),
    cwd: checkout ? root : undefined,
  };
}

/**
 * Starts vitest on the suite with its environment and resolves with its exit code.
 *
 * @example
 *   await spawnContractSuite({ ...process.env, CONTRACT_REPORT: 'report.json' }, { stdio: 'pipe' });
 */
export function spawnContractSuite(
  env: NodeJS.ProcessEnv,
  options: { vitestArgs?: string[]; stdio?: 'inherit' | 'pipe'; onOutput?: (chunk: string) => void } = {},
): Promise<number> {
  const layout = suiteLayout();
  let manifest: string;
  try {
    manifest = createRequire(path.join(root, 'package.json')).resolve('vitest/package.json');
  } catch {
    throw new CliError(
      `The contract suite's runner, vitest, is not installed beside energy-rental-kit in ${root}. Reinstall the kit (npm install -D energy-rental-kit) and try again.`,
    );
  }
  const vitest = path.join(path.dirname(manifest), 'vitest.mjs');
  return new Promise<number>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [vitest, 'run', ...layout.vitestArgs, ...(options.vitestArgs ?? [])],
      {
        cwd: layout.cwd ?? process.cwd(),
        env,
        stdio: options.stdio === 'pipe' ? ['ignore', 'pipe', 'pipe'] : 'inherit',
      },
    );
    child.stdout?.on('data', (chunk: Buffer) => options.onOutput?.(chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => options.onOutput?.(chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
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

/** How long the first read may take before the target counts as not reachable. */
const TARGET_CHECK_TIMEOUT_MS = 10_000;
type NetworkCause = { code?: string; errors?: { code?: string }[]; message?: string };

/**
 * Stops the run with one line (a CliError) when the URL it targets is not reachable or refuses the key:
 * the account is read once.
 *
 * @example
 *   await requireReachableTarget({ CONTRACT_BASE_URL: 'http://127.0.0.1:1', CONTRACT_API_KEY: 'demo-key' });
 *   // throws 'not reachable: http://127.0.0.1:1 (ECONNREFUSED) …'
 */
export async function requireReachableTarget(
  suiteEnv: NodeJS.ProcessEnv,
  fetchImpl: typeof fetch = globalThis.fetch,
): Promise<void> {
  const base = suiteEnv.CONTRACT_BASE_URL?.trim().replace(/\/+$/, '');
  if (!base || suiteEnv.CONTRACT_REPLAY) return;
  const { method, path } = API_OPERATION_SPECS.getAccount;
  const shown = redactUrl(base);
  let response: Response;
  try {
    response = await fetchImpl(`${base}${path}`, {
      method,
      headers: { 'API-KEY': suiteEnv.CONTRACT_API_KEY ?? '' },
      signal: AbortSignal.timeout(TARGET_CHECK_TIMEOUT_MS),
    });
  } catch (error) {
    // The network error's code (ECONNREFUSED, ENOTFOUND, …), else its message.
    const e = error as { name?: string; message?: string; cause?: NetworkCause };
    const reason =
      e?.name === 'TimeoutError'
        ? `no answer within ${TARGET_CHECK_TIMEOUT_MS / 1000} s`
        : (e?.cause?.code ?? e?.cause?.errors?.[0]?.code ?? e?.cause?.message ?? e?.message ?? String(error));
    throw new CliError(
      `not reachable: ${shown} (${reason}); check --base-url (CONTRACT_BASE_URL) and that the server runs.`,
    );
  }
  const body = (await response.json().catch(() => undefined)) as
    | { code?: unknown; msg?: unknown }
    | undefined;
  // A service may answer a refused key with 200 and a code of its own (errorStatus always-200).
  const refusedInBody =
    response.ok && body && body.code !== 0 && typeof body.msg === 'string' && /key/i.test(body.msg);
  if (response.status === 401 || response.status === 403 || refusedInBody) {
    // The message is not repeated: a service may quote the key it refused.
    const code = typeof body?.code === 'number' ? `, code ${body.code}` : '';
    throw new CliError(
      `key rejected: ${shown} answered ${response.status}${code} to ${method} ${path} with the key given; check --api-key (CONTRACT_API_KEY).`,
    );
  }
}
