/**
 * The calibration loop: record a service that chooses differently from the
 * simulator in every calibratable choice (the stand-in), calibrate from that recording,
 * serve the scenario, record that simulator as the real service is recorded
 * (--as-upstream), and compare: no breaking drift. The default simulator, recorded the
 * same way, shows the differences.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { serve } from '../cli/serve.ts';
import { loadRecording } from '../recording/recording.ts';
import { runCalibrate } from '../drift/calibrate-command.ts';
import { runDrift } from '../drift/drift-command.ts';
import type { DriftReport } from '../drift/finding.ts';
import { runRecord } from '../drift/record-command.ts';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'calibrate-loop-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// The kit's own loop: no pace (a served simulator recorded --as-upstream is no simulator to
// the suite), so the repository's test time does not grow.
const SPEND = ['--allow-spend', '--max-orders', '2', '--max-rps', '0'];

async function record(name: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  const out = path.join(scratch, `${name}.json`);
  let output = '';
  const code = await runRecord(
    ['--out', out, '--report', path.join(scratch, `${name}-report.json`), ...SPEND, ...args],
    { ...process.env, ...env },
    {
      write: (text) => void (output += text),
      vitestArgs: ['--maxWorkers=1'],
      stdio: 'pipe',
    },
  );
  expect(code, output.slice(-2000)).toBe(0);
  return out;
}

async function recordServed(name: string, config: string | undefined): Promise<string> {
  const server = await serve(
    { port: 0, host: '127.0.0.1', quiet: true, ...(config ? { config } : {}) },
    () => {},
  );
  try {
    return await record(name, ['--base-url', server.url, '--api-key', 'demo-key', '--as-upstream']);
  } finally {
    await server.close();
  }
}

async function drift(oldFile: string, newFile: string): Promise<{ code: number; report: DriftReport }> {
  const json = path.join(scratch, `drift-${path.basename(newFile)}`);
  const code = await runDrift([oldFile, newFile, '--json', json], { write: () => {} });
  return { code, report: JSON.parse(readFileSync(json, 'utf8')) as DriftReport };
}

describe('record, calibrate, serve, record --as-upstream, drift', () => {
  it(
    'learns every choice of a service that differs in all of them, so drift finds nothing breaking',
    { timeout: 300_000 },
    async () => {
      // The default simulator's recording needs nothing from the calibration, so it is made
      // while the stand-in is recorded, calibrated from and served (each record waits on a
      // vitest child and a server more than it computes).
      const plainRecording = recordServed('default', undefined);
      // Awaited below; until then a failure must not surface as an unhandled rejection.
      plainRecording.catch(() => {});
      const upstream = await record('stand-in', [], { CONTRACT_VARIANT: 'stand-in' });
      const scenarioFile = path.join(scratch, 'calibrated.yaml');
      let table = '';
      expect(
        await runCalibrate([upstream, '--out', scenarioFile], { write: (text) => void (table += text) }),
      ).toBe(0);

      const text = readFileSync(scenarioFile, 'utf8');
      const scenario = parse(text) as { accounts: { apiKey: string }[]; settings: Record<string, unknown> };
      expect(scenario.accounts[0]!.apiKey).toBe('demo-key');
      expect(scenario.settings).toMatchObject({
        accountSuccessCode: 1,
        createdAtUnit: 's',
        unknownPath: 'html',
        errors: {
          apiKeyMissing: { status: 200, code: 1001, msg: 'API-KEY header is required' },
          apiKeyUnknown: { status: 200, code: 401 },
          orderNotFound: { status: 200, code: 1004 },
          belowMinimum: { status: 200, code: 1002 },
          parameterInvalid: { status: 200, code: 1003 },
          methodNotAllowed: { status: 200, code: 1405 },
        },
        prices: { '1h': '71' },
      });
      // Each calibrated setting names its evidence above it.
      expect(text).toMatch(/# getAccount, ".*": code 1\n\s*accountSuccessCode: 1/);
      expect(table).toMatch(/accountSuccessCode\s+1\s+observed: getAccount, code 1/);
      expect(table).toMatch(
        /errors\.insufficientBalance\s+\(default\)\s+default: the recording never showed it/,
      );

      const calibrated = await recordServed('calibrated', scenarioFile);
      const against = await drift(upstream, calibrated);
      expect(
        against.report.findings.filter((f) => f.severity === 'breaking'),
        JSON.stringify(against.report.findings, null, 1),
      ).toEqual([]);
      expect(against.code).toBe(0);

      // Every price the recording saw comes out as recorded.
      const prices = (file: string) =>
        loadRecording(file)
          .interactions.filter((i) => i.operation === 'getPrice' && i.response?.status === 200)
          .map(
            (i) =>
              `${JSON.stringify(i.request.query)} ${JSON.stringify((i.response!.body as { data?: { trxPrice?: string } }).data?.trxPrice)}`,
          );
      expect(prices(calibrated)).toEqual(prices(upstream));

      const plain = await plainRecording;
      const unlike = await drift(upstream, plain);
      expect(unlike.code).toBe(1);
      expect(unlike.report.findings.filter((f) => f.severity === 'breaking').map((f) => f.kind)).toEqual(
        expect.arrayContaining(['code-changed']),
      );
      // Every breaking difference of a calibratable choice names the setting that fixes it.
      expect(unlike.report.findings.filter((f) => f.calibration).map((f) => f.calibration)).toEqual(
        expect.arrayContaining(['errors (the error catalogue)', 'createdAtUnit']),
      );
    },
  );
});

describe('drift, under each finding calibration can fix', () => {
  it('names the setting calibration would learn', async () => {
    const { calibrationSetting } = await import('../drift/finding.ts');
    expect(
      calibrationSetting({ kind: 'format-changed', operation: 'getOrderHistory', path: '/data/createdAt' }),
    ).toBe('createdAtUnit');
    expect(
      calibrationSetting({
        kind: 'code-changed',
        operation: 'getAccount',
        path: '/code',
        response: 'HTTP 200',
      }),
    ).toBe('accountSuccessCode');
    expect(
      calibrationSetting({
        kind: 'code-changed',
        operation: 'getPrice',
        path: '/code',
        response: 'HTTP 200',
      }),
    ).toBe('errors (the error catalogue)');
    expect(calibrationSetting({ kind: 'timing-shift', operation: 'getOrderHistory', path: '' })).toBe(
      'delaysMs',
    );
    expect(
      calibrationSetting({ kind: 'field-removed', operation: 'getPrice', path: '/data/sun' }),
    ).toBeUndefined();
  });
});
