/** The self-test's plan and reporter: per target, the report and the exit code `contract` would have had. */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Reporter, SerializedError, TestModule } from 'vitest/node';
import { buildReport, summarise, type ContractReport } from '../contract-tests/contract-report.ts';
import { contractCases } from '../contract-tests/contract-reporter.ts';

/** One target of the self-test: a name (its folder) and the suite's environment for it. */
export interface SelfTestTarget {
  name: string;
  env: Record<string, string>;
}

/** What the self-test hands the child vitest, as a JSON file named by CONTRACT_SELF_TEST_PLAN. */
export interface SelfTestPlan {
  /** Holds a folder of test files per target, and the reporter's `<name>.json` per target. */
  dir: string;
  targets: SelfTestTarget[];
  maxWorkers: number;
}

/** What one target's run came to. */
export interface SelfTestOutcome {
  /** What vitest would have exited with had it run this target alone (0 or 1). */
  code: number;
  report: ContractReport;
  /** The summary `contract` prints after a run. */
  summary: string;
  /** Errors outside any case: a file that failed to load, a hook or fixture that threw, an unhandled error. */
  errors: string[];
}

/** The plan the self-test wrote. */
export function readPlan(file: string | undefined): SelfTestPlan {
  if (!file) {
    throw new Error(
      'CONTRACT_SELF_TEST_PLAN names no plan: e2e/contract-self-test.test.ts writes one and runs this config.',
    );
  }
  return JSON.parse(readFileSync(file, 'utf8')) as SelfTestPlan;
}

/** The outcome file of a target. */
export function outcomePath(plan: Pick<SelfTestPlan, 'dir'>, target: string): string {
  return path.join(plan.dir, `${target}.json`);
}

export default class SelfTestReporter implements Reporter {
  constructor(private readonly options: { plan: SelfTestPlan }) {}

  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
  ): void {
    const { plan } = this.options;
    const targetOf = (file: string): string => path.basename(path.dirname(file));
    // vitest names the test file an unhandled error came from; one it cannot place fails every target.
    const unplaced = unhandledErrors.filter((e) => typeof e.VITEST_TEST_PATH !== 'string');
    for (const { name } of plan.targets) {
      const modules = testModules.filter((m) => targetOf(m.moduleId) === name);
      const cases = contractCases(modules).map((c) => ({
        ...c,
        // The contract file the case comes from, as a run of the target alone names it.
        file: path.join('contract-tests', path.basename(c.file)),
      }));
      const report = buildReport(cases, new Date());
      const unhandled = unhandledErrors.filter(
        (e) => typeof e.VITEST_TEST_PATH === 'string' && targetOf(e.VITEST_TEST_PATH) === name,
      );
      const errors = [
        ...modules.flatMap((m) => [m, ...m.children.allSuites()].flatMap((s) => s.errors())),
        ...unhandled,
        ...unplaced,
      ].map((e) => e.message);
      const outcome: SelfTestOutcome = {
        // As vitest decides its exit code: no test file, a file not ok, or an unhandled error fails the run.
        code: modules.length > 0 && modules.every((m) => m.ok()) && errors.length === 0 ? 0 : 1,
        report,
        summary: summarise(report, outcomePath(plan, name)),
        errors,
      };
      writeFileSync(outcomePath(plan, name), `${JSON.stringify(outcome, null, 2)}\n`);
    }
  }
}
