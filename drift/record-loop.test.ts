/**
 * The whole loop against real runs of the contract suite (each a vitest process with
 * one worker): the shipped fixture replays offline and passes; recording the simulator
 * twice gives no drift; recording a simulator whose responses were altered reports
 * each alteration with its operation and JSON path.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ALTERATIONS } from '../contract-tests/broken-variants.ts';
import { spawnContractSuite } from '../contract-tests/contract-command.ts';
import type { ContractReport } from '../contract-tests/contract-report.ts';
import { compareRecordings } from './compare.ts';
import { runRecord } from './record-command.ts';
import { loadRecording, type Recording } from '../recording/recording.ts';
import { createSlots } from '../contract-tests/test-support.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FIXTURE = path.join(root, 'fixtures', 'simulator-recording.json');
const scratch = mkdtempSync(path.join(os.tmpdir(), 'drift-record-loop-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const withSlot = createSlots(2);

/** Records the in-process simulator (or a variant of it); resolves with the recording. */
function record(
  name: string,
  env: Record<string, string> = {},
): Promise<{ code: number; recording: Recording; output: string }> {
  return withSlot(async () => {
    const out = path.join(scratch, `${name}.json`);
    let output = '';
    const code = await runRecord(
      // The kit's own loop: no pace, so the repository's test time does not grow.
      ['--out', out, '--report', path.join(scratch, `${name}-report.json`), '--max-rps', '0'],
      { ...process.env, ...env },
      {
        write: (text) => void (output += text),
        vitestArgs: ['--maxWorkers=1'],
        stdio: 'pipe',
      },
    );
    return { code, recording: loadRecording(out), output };
  });
}

let plain: ReturnType<typeof record> | undefined;
const plainRecording = () => (plain ??= record('plain'));

describe('record, replay and drift', () => {
  it.concurrent(
    'replays the shipped fixture offline, and the contract suite passes',
    { timeout: 120_000 },
    async () => {
      const reportPath = path.join(scratch, 'replay-report.json');
      let output = '';
      const code = await withSlot(() =>
        spawnContractSuite(
          {
            ...process.env,
            CONTRACT_REPLAY: FIXTURE,
            CONTRACT_REPORT: reportPath,
            CONTRACT_RUN_DIR: path.join(scratch, 'replay-run'),
          },
          { vitestArgs: ['--maxWorkers=1'], stdio: 'pipe', onOutput: (chunk) => void (output += chunk) },
        ),
      );
      const report = JSON.parse(readFileSync(reportPath, 'utf8')) as ContractReport;
      // A contract case added or changed since the fixture was made has no recording: re-record it with
      // `npm run record -- --out fixtures/simulator-recording.json`.
      expect(code, output.slice(-3000)).toBe(0);
      expect(report.target).toMatchObject({
        kind: 'replay',
        recording: 'fixtures/simulator-recording.json',
        simulator: true,
      });
      expect(report.summary).toEqual({ passed: report.cases.length, failed: 0, skipped: 0 });
      expect(report.cases.length).toBeGreaterThanOrEqual(24);
      expect(output).toMatch(
        /Contract run against the recording .*simulator-recording\.json \(replayed offline; recorded from the in-process simulator\)/,
      );
    },
  );

  it.concurrent(
    'records the simulator twice with no drift, and no API key in either recording',
    { timeout: 120_000 },
    async () => {
      const [first, second] = await Promise.all([plainRecording(), record('again')]);
      expect(first.code, first.output).toBe(0);
      expect(second.code, second.output).toBe(0);
      expect(first.output).toMatch(/Recording written to .*plain\.json\n {2}\d+ interactions from \d+ cases/);
      expect(first.recording.runId).not.toBe(second.recording.runId);
      expect(compareRecordings(first.recording, second.recording)).toEqual([]);
      const text = JSON.stringify(first.recording);
      expect(text).not.toContain('demo-key');
      expect(text).not.toMatch(/sk_[A-Za-z0-9_-]{10,}/);
      // Control-plane calls are recorded too, and so is the lifecycle timing.
      const operations = new Set(first.recording.interactions.map((i) => i.operation));
      for (const operation of [
        'createOrder',
        'getPrice',
        'getOrderHistory',
        'getAccount',
        'createAccount',
        'advanceClock',
        'addRule',
      ])
        expect(operations).toContain(operation);
      expect(first.recording.timing.summary.medianSecondsTo.COMPLETED).toBeGreaterThanOrEqual(3);
    },
  );

  it.concurrent(
    'reports each alteration of an altered simulator with its operation and JSON path',
    { timeout: 120_000 },
    async () => {
      const [reference, altered] = await Promise.all([
        plainRecording(),
        record('altered', { CONTRACT_VARIANT: 'altered' }),
      ]);
      expect(altered.code, 'the contract suite fails against the altered simulator').not.toBe(0);
      const findings = compareRecordings(reference.recording, altered.recording);
      for (const alteration of ALTERATIONS) {
        expect(findings, `${alteration.operation} ${alteration.path} (${alteration.kind})`).toContainEqual(
          expect.objectContaining({
            kind: alteration.kind,
            operation: alteration.operation,
            path: alteration.path,
          }),
        );
      }
      expect(
        findings
          .filter((f) => f.severity === 'breaking')
          .map((f) => `${f.operation} ${f.path}`)
          .sort(),
      ).toEqual(
        ALTERATIONS.filter((a) => !['field-added', 'message-changed'].includes(a.kind))
          .map((a) => `${a.operation} ${a.path}`)
          .sort(),
      );
    },
  );
});
