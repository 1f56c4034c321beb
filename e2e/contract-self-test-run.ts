/** Runs the contract suite against many targets in one child vitest and reads each target's outcome. */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import {
  outcomePath,
  type SelfTestOutcome,
  type SelfTestPlan,
  type SelfTestTarget,
} from './contract-self-test-reporter.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const vitestCli = path.join(
  path.dirname(createRequire(import.meta.url).resolve('vitest/package.json')),
  'vitest.mjs',
);

const CONTRACT_FILES = readdirSync(path.join(root, 'contract-tests')).filter((f) =>
  f.endsWith('.contract.test.ts'),
);

/** A folder per target, a test file per contract file importing it under its own query (fresh modules). */
function writeTargetFiles(plan: SelfTestPlan): void {
  const helper = path.join(root, 'e2e/contract-self-test-target.ts');
  plan.targets.forEach((target, index) => {
    const folder = path.join(plan.dir, target.name);
    mkdirSync(folder);
    for (const file of CONTRACT_FILES) {
      const env = { ...target.env, CONTRACT_RUN_DIR: path.join(plan.dir, `${target.name}.run`) };
      writeFileSync(
        path.join(folder, file),
        [
          `import { useTarget } from ${JSON.stringify(helper)};`,
          `import ${JSON.stringify(`${path.join(root, 'contract-tests', file)}?target=${index}`)};`,
          `useTarget(${JSON.stringify(env)});`,
          '',
        ].join('\n'),
      );
    }
  });
}

/** What the child vitest did: its exit code and everything it printed. */
export interface SelfTestRun {
  code: number | null;
  output: string;
  /** A target's outcome, as if the suite had run against it alone. */
  outcome(name: string): SelfTestOutcome;
}

/**
 * Runs the suite against every target in `dir` (an empty folder); each target must have an outcome.
 * @example
 *   (await runSelfTest(scratch, [{ name: 'plain', env: {} }], 3)).outcome('plain').code; // 0
 */
export async function runSelfTest(
  dir: string,
  targets: SelfTestTarget[],
  maxWorkers: number,
): Promise<SelfTestRun> {
  const plan: SelfTestPlan = { dir, targets, maxWorkers };
  writeTargetFiles(plan);
  const planFile = path.join(dir, 'plan.json');
  writeFileSync(planFile, JSON.stringify(plan));
  let output = '';
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [vitestCli, 'run', '--config', path.join(root, 'e2e/contract-self-test.vitest.config.ts')],
      {
        cwd: root,
        env: { ...process.env, CONTRACT_SELF_TEST_PLAN: planFile },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', resolve);
  });
  const missing = plan.targets.filter((t) => !existsSync(outcomePath(plan, t.name)));
  if (missing.length > 0) {
    throw new Error(
      `no outcome for ${missing.map((t) => t.name).join(', ')} from the self-test's vitest (exit ${code}): ${output.slice(-3000)}`,
    );
  }
  return {
    code,
    output,
    outcome: (name) => JSON.parse(readFileSync(outcomePath(plan, name), 'utf8')) as SelfTestOutcome,
  };
}

/** The failed cases of a run: their names and errors. */
const failuresOf = (run: SelfTestOutcome) =>
  run.report.cases.filter((c) => c.verdict === 'failed').map(({ name, errors }) => ({ name, errors }));

/** What a failed passing run shows: its failures, errors outside cases, and the child's output. */
function why(run: SelfTestOutcome, output: string): string {
  return JSON.stringify(
    { failed: failuresOf(run), errors: run.errors, output: output.slice(-1500) },
    null,
    1,
  );
}

/** A passing target: exit 0 alone, no failed case, and nothing failed outside a case. */
export function expectPassed(run: SelfTestOutcome, output = ''): void {
  expect(run.code, why(run, output)).toBe(0);
  expect(failuresOf(run)).toEqual([]);
}

/** A broken target: the run fails, and one failure names the break. */
export function expectFailedNaming(
  run: SelfTestOutcome,
  name: string,
  expected: { test: RegExp; error: RegExp },
): void {
  // Each target's files ran under its own environment, not a neighbour's.
  expect(run.report.target?.variant, 'the suite ran against the variant').toBe(name);
  expect(run.code, `the suite must exit non-zero against ${name}`).not.toBe(0);
  const failed = failuresOf(run);
  const named = failed.find(
    (c) => expected.test.test(c.name) && c.errors?.some((e) => expected.error.test(e)),
  );
  expect(named, `no failure names the break; failures: ${JSON.stringify(failed, null, 1)}`).toBeDefined();
}
