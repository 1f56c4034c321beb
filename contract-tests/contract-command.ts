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
import { parseArgs } from 'node:util';
import { CliError } from '../mock/cli/cli-error.ts';

export const CONTRACT_HELP = `Usage: energy-rental-kit contract [options]

Runs the contract suite. With no options it runs against a fresh in-process simulator
(manual clock, no socket). With --base-url it runs against any server: a simulator
started with 'npm start', or the real service (https://api.eopen.io/api).

Against a URL that is not a simulator, cases that create orders run only with
--allow-spend, use the cheapest order (64000 energy for 10min), create at most
--max-orders orders, and the run prints what it spent.

Options (each has an environment variable; the flag wins):
  --base-url URL        Target base URL (CONTRACT_BASE_URL)
  --api-key KEY         API key of the account to test with (CONTRACT_API_KEY)
  --allow-spend         Let cases create real orders (CONTRACT_ALLOW_SPEND=1)
  --max-orders N        Most orders one run may create, default 1 (CONTRACT_MAX_ORDERS)
  --pledge-address A    Address that receives the energy, default the account's wallet
                        (CONTRACT_PLEDGE_ADDRESS)
  --report FILE         Where to write the report, default contract-report.json (CONTRACT_REPORT)
  -h, --help            Show this help
`;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Turns the flags into the suite's environment, naming the flag and the fix on a mistake. */
export function contractEnv(argv: string[], env: NodeJS.ProcessEnv): NodeJS.ProcessEnv | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        'base-url': { type: 'string' },
        'api-key': { type: 'string' },
        'allow-spend': { type: 'boolean' },
        'max-orders': { type: 'string' },
        'pledge-address': { type: 'string' },
        report: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new CliError(`${(error as Error).message}. Run 'energy-rental-kit contract --help' for the options.`);
  }
  if (values.help) return 'help';
  const out: NodeJS.ProcessEnv = { ...env };
  if (values['base-url'] !== undefined) out.CONTRACT_BASE_URL = values['base-url'];
  if (values['api-key'] !== undefined) out.CONTRACT_API_KEY = values['api-key'];
  if (values['allow-spend']) out.CONTRACT_ALLOW_SPEND = '1';
  if (values['max-orders'] !== undefined) {
    if (!/^\d+$/.test(values['max-orders'])) throw new CliError(`--max-orders must be a whole number (got '${values['max-orders']}').`);
    out.CONTRACT_MAX_ORDERS = values['max-orders'];
  }
  if (values['pledge-address'] !== undefined) out.CONTRACT_PLEDGE_ADDRESS = values['pledge-address'];
  if (values.report !== undefined) out.CONTRACT_REPORT = path.resolve(values.report);
  if (out.CONTRACT_BASE_URL && !out.CONTRACT_API_KEY) {
    throw new CliError('--base-url needs --api-key (or CONTRACT_API_KEY): the key of the account to test with.');
  }
  return out;
}

/**
 * Runs the suite and resolves with vitest's exit code.
 *
 * @example
 *   await runContract(['--base-url', 'http://127.0.0.1:8787', '--api-key', 'demo-key']);
 */
export async function runContract(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const suiteEnv = contractEnv(argv, env);
  if (suiteEnv === 'help') {
    process.stdout.write(CONTRACT_HELP);
    return 0;
  }
  // One directory per run holds the order slots that all workers share.
  const runDir = mkdtempSync(path.join(os.tmpdir(), 'energy-rental-contract-'));
  suiteEnv.CONTRACT_RUN_DIR = runDir;
  // vitest exports no path to its CLI, so it is found next to its package.json.
  const vitest = path.join(path.dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
  try {
    return await new Promise<number>((resolve, reject) => {
      const child = spawn(process.execPath, [vitest, 'run', '--project', 'contract'], { cwd: root, env: suiteEnv, stdio: 'inherit' });
      child.once('error', reject);
      child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    });
  } finally {
    rmSync(runDir, { recursive: true, force: true });
  }
}
