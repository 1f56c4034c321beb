/** A vitest reporter writing the contract project's contract-report.json and a short summary. */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';
import { buildReport, summarise, type ContractCase } from './contract-report.ts';
import type { ContractMeta } from './contract-test.ts';
import { readPoliteness } from './contract-config.ts';

/** The cases of contract test modules, with what each recorded (the self-test reports each target apart). */
export function contractCases(
  modules: ReadonlyArray<TestModule>,
): Array<ContractCase & { meta?: ContractMeta }> {
  return modules.flatMap((module) =>
    [...module.children.allTests()].map((test) => {
      const result = test.result();
      const duration = test.diagnostic()?.duration;
      const meta = test.meta().contract;
      return {
        name: test.fullName,
        file: path.relative(process.cwd(), module.moduleId),
        verdict: result.state === 'passed' || result.state === 'failed' ? result.state : 'skipped',
        interactions: meta?.interactions ?? [],
        ...(meta ? { meta } : {}),
        ...(duration === undefined ? {} : { durationMs: Math.round(duration) }),
        ...(result.state === 'skipped' && result.note ? { reason: result.note } : {}),
        ...(result.state === 'failed' ? { errors: result.errors.map((e) => e.message) } : {}),
      };
    }),
  );
}

/** The run's pace as its workers read it, for the report; undefined when unreadable. */
function runPace(): number | undefined {
  try {
    return readPoliteness(process.env, !process.env.CONTRACT_BASE_URL?.trim()).maxRps;
  } catch {
    return undefined;
  }
}

export default class ContractReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const modules = testModules.filter((m) => m.project.name === 'contract');
    if (modules.length === 0) return;
    const reportPath = process.env.CONTRACT_REPORT ?? 'contract-report.json';
    const report = buildReport(contractCases(modules), new Date(), { maxRps: runPace() });
    writeFileSync(reportPath, `${JSON.stringify(report, null, 2)}\n`);
    process.stdout.write(summarise(report, reportPath));
  }
}
