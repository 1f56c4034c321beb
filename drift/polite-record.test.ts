/**
 * The suite against a rate-limited stand-in of the real service (each a vitest child
 * process): it passes, read-only and spending one order, in a time its pace bounds, with
 * every worker under one pace; and a recording that met 429s and retried them shows no
 * drift against an unpaced recording of the same service.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ContractReport } from '../contract-tests/contract-report.ts';
import { createSlots } from '../contract-tests/test-support.ts';
import { loadRecording, type Recording } from '../recording/recording.ts';
import { compareInferred, compareRecordings } from './compare.ts';
import { inferRecording } from './infer-schema.ts';
import { runRecord } from './record-command.ts';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'drift-polite-record-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const withSlot = createSlots(2);

interface Run {
  code: number;
  recording: Recording;
  report: ContractReport;
  output: string;
  elapsedMs: number;
}

/** Records a stand-in variant in-process; resolves with the recording, the report and the output. */
function record(
  name: string,
  variant: string,
  args: string[],
  workers: number,
  vitestArgs: string[] = [],
): Promise<Run> {
  return withSlot(async () => {
    const out = path.join(scratch, `${name}.json`);
    const reportPath = path.join(scratch, `${name}-report.json`);
    let output = '';
    const started = performance.now();
    const code = await runRecord(
      ['--out', out, '--report', reportPath, ...args],
      { ...process.env, CONTRACT_VARIANT: variant },
      {
        write: (text) => void (output += text),
        vitestArgs: [`--maxWorkers=${workers}`, ...vitestArgs],
        stdio: 'pipe',
        onOutput: (chunk) => void (output += chunk),
      },
    );
    return {
      code,
      recording: loadRecording(out),
      report: JSON.parse(readFileSync(reportPath, 'utf8')) as ContractReport,
      output,
      elapsedMs: performance.now() - started,
    };
  });
}

/** When each request was sent, in order (the recorder notes it after the pace's wait). */
function sendTimes(recording: Recording): number[] {
  return recording.interactions.map((i) => Date.parse(i.at)).sort((a, b) => a - b);
}

const RPS = 4;
/** The read-only files whose many quick reads meet a strict limit soonest; the rest adds time, not proof. */
const READ_ONLY_FILES = ['contract-tests/price.contract.test.ts', 'contract-tests/account.contract.test.ts'];

describe('the suite against a rate-limited stand-in', () => {
  it.concurrent(
    'passes spending one order, two worker processes together under one pace, and says how long it waited',
    { timeout: 240_000 },
    async () => {
      // Two worker processes (forks), so the pace is shared across processes, not only threads.
      const run = await record(
        'paced-spend',
        'family-rate-limited',
        ['--allow-spend', '--max-orders', '1', '--max-rps', String(RPS)],
        2,
        ['--pool=forks'],
      );
      expect(run.code, run.output.slice(-3000)).toBe(0);
      expect(run.report.summary.failed).toBe(0);
      expect(run.report.spent.orders).toBe(1);
      const times = sendTimes(run.recording);
      const requests = times.length;
      // The pace held across both workers: no RPS + 1 requests within a second. A send is
      // noted after its slot, late by however busy the machine is, so a window shrinks by a
      // late predecessor: LATE allows 400 ms of it, and a pace per worker (twice the rate,
      // windows of 500 ms) still fails.
      const LATE = 400;
      for (let i = RPS; i < requests; i++)
        expect(times[i]! - times[i - RPS]!, `requests ${i - RPS} and ${i}`).toBeGreaterThanOrEqual(
          1000 - LATE,
        );
      const spanMs = times.at(-1)! - times[0]!;
      expect(spanMs).toBeGreaterThanOrEqual(((requests - 1) / RPS) * 1000 - LATE);
      // …and bounded by it: the requests take about requests/RPS seconds, with generous slack.
      expect(spanMs).toBeLessThan((requests / RPS) * 1000 * 2 + 15_000);
      const politeness = run.report.politeness!;
      expect(politeness).toMatchObject({ maxRps: RPS, gaveUp: 0 });
      expect(politeness.waits.pace.count).toBeGreaterThan(requests / 2);
      expect(politeness.waitedMs).toBeGreaterThan(0);
      expect(run.report.cases.some((c) => (c.waitedMs ?? 0) > 0)).toBe(true);
    },
  );

  it.concurrent(
    'passes read-only, waiting out its 429s, and leaves the 429s it retried out of drift against an unpaced recording',
    { timeout: 240_000 },
    async () => {
      const [unpaced, paced] = await Promise.all([
        record('unpaced', 'family-plain', ['--max-rps', '0'], 2, READ_ONLY_FILES),
        // Two requests a second per key against a pace of three: 429s, with Retry-After as an HTTP date.
        record('retried', 'family-rate-limited-strict', ['--max-rps', '3'], 2, READ_ONLY_FILES),
      ]);
      expect(unpaced.code, unpaced.output.slice(-3000)).toBe(0);
      expect(paced.code, paced.output.slice(-3000)).toBe(0);
      expect(paced.report.spent.orders).toBe(0);
      const retried = paced.recording.interactions.filter((i) => i.retried);
      expect(retried.length, 'the paced run met 429s and retried them').toBeGreaterThan(0);
      expect(retried.every((i) => i.response?.status === 429)).toBe(true);
      expect(paced.recording.interactions.some((i) => (i.attempt ?? 1) >= 2)).toBe(true);
      const politeness = paced.report.politeness!;
      expect(politeness).toMatchObject({ maxRps: 3, retries: retried.length, gaveUp: 0 });
      expect(politeness.waits.retryAfter.count).toBeGreaterThan(0);
      // Bounded by its pace and the waits the target asked for, with generous slack.
      const times = sendTimes(paced.recording);
      expect(times.at(-1)! - times[0]!).toBeLessThan(
        (times.length / 3) * 1000 * 2 + politeness.waits.retryAfter.ms + 15_000,
      );
      expect(paced.output).toContain(
        `${retried.length} answer${retried.length === 1 ? '' : 's'} (HTTP 429) waited out and sent again, marked 'retried'`,
      );
      expect(paced.output).toMatch(
        /waited [\d.]+ s to be polite \(pace 3 requests\/s\): pace [\d.]+ s \(\d+ waits?\), rate-limit headers [\d.]+ s \(\d+ waits?\), Retry-After [\d.]+ s \(\d+ waits?\), backoff [\d.]+ s \(\d+ waits?\); \d+ retr(y|ies) after a 429, 0 429s not retried/,
      );
      // Compared as recorded, the superseded 429s would be findings; settled, none is left.
      const raw = compareInferred(inferRecording(unpaced.recording), inferRecording(paced.recording));
      expect(raw.some((f) => f.message.includes('429'))).toBe(true);
      expect(compareRecordings(unpaced.recording, paced.recording)).toEqual([]);
    },
  );
});
