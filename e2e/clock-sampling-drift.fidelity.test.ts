/**
 * Two recordings of the same simulator, one in-process on a manual clock (which the
 * suite advances in polling steps, so PROCESSING never shows) and one over HTTP on the
 * real clock: drift must see no breaking difference between them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { serve } from '../cli/serve.ts';
import { loadRecording } from '../recording/recording.ts';
import { breakingDrift, describeFindings } from './calibrate-loop-harness.ts';
import { runRecord } from '../drift/record-command.ts';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'clock-sampling-drift-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function record(name: string, args: string[]): Promise<string> {
  const out = path.join(scratch, `${name}.json`);
  let output = '';
  const code = await runRecord(
    ['--out', out, '--report', path.join(scratch, `${name}-report.json`), ...args],
    process.env,
    { write: (text) => void (output += text), vitestArgs: ['--maxWorkers=1'], stdio: 'pipe' },
  );
  expect(code, output.slice(-2000)).toBe(0);
  return out;
}

describe('drift between an in-process and an HTTP recording of the same simulator', () => {
  it(
    'reports no breaking drift: a status the manual clock stepped over is sampling',
    { timeout: 600_000 },
    async () => {
      const inProcess = await record('in-process', []);
      const server = await serve({ port: 0, host: '127.0.0.1', quiet: true, timing: 'fast' }, () => {});
      let overHttp: string;
      try {
        overHttp = await record('http', ['--base-url', server.url, '--api-key', 'demo-key']);
      } finally {
        await server.close();
      }
      // Each recording's header says its clock, which is how drift tells sampling from change.
      expect(loadRecording(inProcess).target.clock).toBe('manual');
      expect(loadRecording(overHttp).target.clock).toBe('real');
      const breaking = await breakingDrift(scratch, inProcess, overHttp);
      expect(breaking, describeFindings(breaking)).toEqual([]);
    },
  );
});
