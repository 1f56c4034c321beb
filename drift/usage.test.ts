import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CoverageFile } from '../src/behaviour/coverage-file.ts';
import { COVERAGE_FORMAT } from '../src/generated/lists.ts';
import { recordingText } from '../recording/recording-lines.ts';
import type { Recording } from '../recording/recording.ts';
import { baseline, dataOf, VALUES_B } from '../recording/test-support.ts';
import { runDrift } from './drift-command.ts';
import type { DriftReport, Finding } from './finding.ts';
import { exercisedBy } from './usage.ts';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'drift-usage-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const write = (name: string, content: string): string => {
  const target = path.join(scratch, name);
  writeFileSync(target, content);
  return target;
};
const OLD = write('old.json', recordingText(baseline()));
// Drift on two operations: a field added to the account, one removed from the price.
const NEW = write(
  'new.json',
  recordingText(
    baseline(VALUES_B, (i) => {
      dataOf(i, 'getAccount').vipLevel = 1;
      delete dataOf(i, 'getPrice').sun;
    }) as Recording,
  ),
);

const usage = (exercised: Record<string, number>, called: Record<string, number> = {}): CoverageFile => ({
  format: COVERAGE_FORMAT as CoverageFile['format'],
  exercised,
  never: [],
  called,
  parameters: { getPrice: ['period', 'rentalCount'] },
});

const finding = (over: Partial<Finding>): Finding => ({
  severity: 'breaking',
  kind: 'code-changed',
  operation: 'createOrder',
  path: '/code',
  message: 'changed',
  ...over,
});

describe('drift --usage', () => {
  it('marks exactly the findings on an operation the tests called, and lists them first', async () => {
    const profile = write(
      'energy-coverage.json',
      JSON.stringify(usage({ 'op:getPrice': 3 }, { getPrice: 3 })),
    );
    let out = '';
    const json = path.join(scratch, 'drift.json');
    const code = await runDrift([OLD, NEW, '--usage', profile, '--json', json], {
      write: (t) => void (out += t),
    });
    expect(code).toBe(1);
    const report = JSON.parse(readFileSync(json, 'utf8')) as DriftReport;
    expect(report.findings.map((f) => [f.operation, f.kind, f.exercised])).toEqual([
      ['getPrice', 'field-removed', ['op:getPrice']],
      ['getAccount', 'field-added', undefined],
    ]);
    expect(report.usage).toEqual({ source: profile, exercisedFindings: 1 });
    expect(out).toMatch(/\*\*1 finding is on behaviour your tests exercised\*\*/);
    expect(out.indexOf('## getPrice')).toBeLessThan(out.indexOf('## getAccount'));
    expect(out).toMatch(/\| ◆ \*\*breaking\*\* \| field-removed \|/);
    expect(out).toContain('on behaviour your tests exercised: `op:getPrice`.');
    expect(out).not.toMatch(/\| ◆ non-breaking \| field-added/);
  });

  it('marks nothing when the tests called none of the drifted operations', async () => {
    const profile = write('none.json', JSON.stringify(usage({ 'op:createOrder': 1 }, { createOrder: 1 })));
    let out = '';
    await runDrift([OLD, NEW, '--usage', profile, '--format', 'json'], { write: (t) => void (out += t) });
    const report = JSON.parse(out) as DriftReport;
    expect(report.findings.every((f) => f.exercised === undefined)).toBe(true);
    expect(report.usage?.exercisedFindings).toBe(0);
  });

  it('marks a finding on a status, a transition or a rejection kind the tests met', () => {
    const profile = usage({
      'status:REFUNDED': 1,
      'transition:FAILED>REFUNDED': 1,
      'rejection:insufficientBalance': 1,
    });
    expect(
      exercisedBy(
        finding({
          kind: 'new-status-path',
          operation: 'getOrderHistory',
          new: 'PENDING → FAILED → REFUNDED',
        }),
        profile,
      ),
    ).toEqual(['status:REFUNDED', 'transition:FAILED>REFUNDED']);
    expect(
      exercisedBy(finding({ response: 'HTTP 402, code 30001', old: '30001', new: '30009' }), profile),
    ).toEqual(['rejection:insufficientBalance']);
    expect(exercisedBy(finding({ response: 'HTTP 400, code 20001' }), profile)).toEqual([]);
    expect(exercisedBy(finding({ kind: 'unknown-enum-value', new: 'EXPIRED' }), profile)).toEqual([]);
  });

  it('refuses a usage file that is no coverage file, naming it', async () => {
    const bad = write('bad.json', JSON.stringify({ exercised: {} }));
    await expect(runDrift([OLD, NEW, '--usage', bad], { write: () => {} })).rejects.toThrow(
      /--usage .*bad\.json: \/: must have required property 'never'.*; is it a file the coverage reporter wrote, or what GET \/_sim\/coverage answered\?/,
    );
  });
});
