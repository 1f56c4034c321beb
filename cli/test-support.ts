/** Helpers of the tests that run the real CLI as a child process. */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { encodeTronAddress } from '../src/tron-address.ts';
import type { EngineSnapshot } from '../mock/engine/index.ts';
import { createSimulator } from '../mock/simulator.ts';

export const ROOT = fileURLToPath(new URL('../mock/..', import.meta.url));
const BIN = join(ROOT, 'bin', 'energy-rental-kit.js');

/** Where a test registers what must be undone after it (its afterEach runs these). */
export type Cleanups = (() => Promise<unknown> | void)[];

/** The environment of the test process without any ENERGY_SIM_* variable. */
export function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('ENERGY_SIM_')));
}

export function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/** Commands run from the CLI's bundle (a fifth of tsx's start); others from bin/, to test the launcher. */
const BUNDLED = new Set(['drift', 'calibrate', 'coverage']);
const TEST_BUNDLE = join(ROOT, 'node_modules/.cache/energy-rental-kit/cli-all-but-suite.mjs');
let bundled: Promise<string | undefined> | undefined;
function testBundle(): Promise<string | undefined> {
  // A child process (cli/ may not import scripts/); without a fresh bundle the CLI runs from bin/.
  bundled ??= new Promise((resolve) =>
    execFile(
      process.execPath,
      [join(ROOT, 'scripts/cli-bundle.mjs'), '--commands', 'all-but-suite'],
      { cwd: ROOT },
      (error) => resolve(!error && existsSync(TEST_BUNDLE) ? TEST_BUNDLE : undefined),
    ),
  );
  return bundled;
}

/** How to start the CLI for `args`: node's arguments. */
async function command(args: string[]): Promise<string[]> {
  const bundle = BUNDLED.has(args[0] ?? '') ? await testBundle() : undefined;
  if (bundle === undefined) return [BIN, ...args];
  const { href } = pathToFileURL(bundle);
  // As bin/ does with a module of the CLI: import it and run the arguments.
  const run = `await (await import(${JSON.stringify(href)})).run(process.argv.slice(1));`;
  return ['--input-type=module', '-e', run, ...args];
}

/** Spawns the CLI with its output captured (`env` added to cleanEnv()); a cleanup kills it if it still runs. */
async function spawnCli(
  args: string[],
  cleanups: Cleanups,
  env: NodeJS.ProcessEnv = {},
): Promise<{ child: ChildProcess; stdout: () => string; stderr: () => string }> {
  const child = spawn(process.execPath, await command(args), {
    cwd: ROOT,
    env: { ...cleanEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return { child, stdout: () => stdout, stderr: () => stderr };
}

/**
 * Spawns the CLI and resolves once stdout matches `ready`, whose first group is the URL.
 * @example
 *   const { child, url } = await startCli(['serve', '--port', '0'], cleanups);
 */
export async function startCli(
  args: string[],
  cleanups: Cleanups,
  ready = /listening on (http:\/\/\S+)/,
  env: NodeJS.ProcessEnv = {},
): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const { child, stdout, stderr } = await spawnCli(args, cleanups, env);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no URL within 20 s; stdout: ${stdout()}; stderr: ${stderr()}`)),
      20_000,
    );
    const look = (): void => {
      const match = ready.exec(stdout());
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', look);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before listening; stdout: ${stdout()}; stderr: ${stderr()}`));
    });
  });
  return { child, url, output: () => stdout() + stderr() };
}

/** Runs the CLI to its end, with `env` added to cleanEnv(). */
export async function runCli(
  args: string[],
  cleanups: Cleanups,
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { child, stdout, stderr } = await spawnCli(args, cleanups, env);
  const { code } = await exitOf(child);
  return { code, stdout: stdout(), stderr: stderr() };
}

/** A valid TRON address per small number. */
export const addressOf = (n: number): string => encodeTronAddress(new Uint8Array(20).fill(n));

/**
 * A snapshot: orders[0] COMPLETED, [1] REFUNDED, [2] PENDING, all of accounts[0] (demo-key).
 * @example
 *   richSnapshot().orders[1]!.status; // 'REFUNDED'
 */
export function richSnapshot(): EngineSnapshot {
  const sim = createSimulator({ clock: 'manual', timing: 'realistic' });
  const { engine } = sim;
  engine.createAccount({ apiKey: 'second-key-1', trx: 50_000_000, usdt: 7_000_000 });
  engine.setSupply(10_000_000);
  engine.setAddress(addressOf(3), true);
  engine.rules.add({ match: { outOrderNo: 'fail-me' }, outcome: 'FAILED' });
  engine.rules.add({ match: { pledgeAddress: addressOf(4) }, outcome: 'COMPLETED', times: 5 });
  const demo = engine.authenticate('demo-key')!;
  const order = (n: number, rest: Omit<Parameters<typeof engine.createOrder>[1], 'pledgeAddress'>): void =>
    void engine.createOrder(demo, { pledgeAddress: addressOf(n), ...rest });
  order(1, { rentalCount: 65_000, period: '1h', outOrderNo: 'done' });
  order(2, { rentalCount: 70_000, period: '1d', outOrderNo: 'fail-me' });
  sim.advance(60_000);
  order(5, { rentalCount: 80_000, period: '10min', outOrderNo: 'open' });
  const saved = engine.snapshot();
  const statuses = saved.orders.map((o) => `${o.status}${o.reserved ? '+reserved' : ''}`);
  if (statuses.join() !== 'COMPLETED+reserved,REFUNDED,PENDING')
    throw new Error(`richSnapshot drifted: ${statuses.join()}`);
  return saved;
}
