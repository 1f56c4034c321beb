/**
 * Wall time of the whole contract suite, two ways:
 *
 * - in-process: the suite as `npm run contract` runs it, with no target, so each file
 *   builds its own simulator with the manual clock;
 * - over HTTP: the same suite with CONTRACT_BASE_URL and CONTRACT_API_KEY=demo-key against
 *   a simulator started with `serve --timing realistic` (the real clock: orders take the
 *   realistic 3–6 s). The simulator is started before the clock starts.
 *
 * Time is from spawning vitest to its exit, started by the `contract` command's own
 * spawnContractSuite (`node vitest.mjs`; `npx` would add its own resolution time). The
 * suite must pass: a failing run is reported as invalid. Its report goes to bench/tmp, not to the
 * repository's contract-report.json.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { spawnContractSuite } from '../contract-tests/contract-command.ts';
import { BENCH_DIR, REPO_ROOT, startServer } from './servers.ts';
import { median } from './stats.ts';

export interface ContractTiming {
  medianMs: number;
  samplesMs: number[];
  /** Every run passed. */
  passed: boolean;
  /** The tail of the output of a failing run. */
  failure?: string;
}

async function runSuite(
  root: string,
  extraEnv: Record<string, string>,
): Promise<{ ms: number; code: number; output: string }> {
  mkdirSync(path.join(BENCH_DIR, 'tmp'), { recursive: true });
  // Only this run's CONTRACT_* settings: none inherited from the shell.
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env))
    if (!name.startsWith('CONTRACT_')) env[name] = value;
  // No pace: the bench times the suite, not its manners toward a real service.
  Object.assign(
    env,
    { CONTRACT_REPORT: path.join(BENCH_DIR, 'tmp', 'contract-report.json'), CONTRACT_MAX_RPS: '0' },
    extraEnv,
  );
  let output = '';
  const started = performance.now();
  const code = await spawnContractSuite(env, {
    cwd: root,
    stdio: 'pipe',
    onOutput: (chunk) => (output += chunk),
    timeoutMs: 180_000,
  });
  return { ms: performance.now() - started, code, output };
}

/** The suite in-process (manual clock), `count` times. */
export async function timeContractInProcess(count: number, root = REPO_ROOT): Promise<ContractTiming> {
  const samplesMs: number[] = [];
  for (let i = 0; i < count; i++) {
    const run = await runSuite(root, {});
    if (run.code !== 0) return { medianMs: NaN, samplesMs, passed: false, failure: run.output.slice(-3000) };
    samplesMs.push(run.ms);
  }
  return { medianMs: median(samplesMs), samplesMs, passed: true };
}

/** The suite over HTTP against a fresh realistic-timing simulator per run, `count` times. */
export async function timeContractOverHttp(count: number, root = REPO_ROOT): Promise<ContractTiming> {
  const samplesMs: number[] = [];
  for (let i = 0; i < count; i++) {
    // The default scenario (demo-key), realistic timing, real clock.
    const sim = await startServer({ kind: 'sim', root, serveArgs: ['--timing', 'realistic', '--seed', '1'] });
    try {
      const run = await runSuite(root, { CONTRACT_BASE_URL: sim.url, CONTRACT_API_KEY: 'demo-key' });
      if (run.code !== 0)
        return { medianMs: NaN, samplesMs, passed: false, failure: run.output.slice(-3000) };
      samplesMs.push(run.ms);
    } finally {
      await sim.stop();
    }
  }
  return { medianMs: median(samplesMs), samplesMs, passed: true };
}
