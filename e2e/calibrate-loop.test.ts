/**
 * The calibration loop: record a service that chooses differently from the simulator where
 * upstream is silent (the family's gateway member), calibrate from that recording,
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
    'learns the choices of a service behind a gateway (its rejections, their fields, time, decimals, quantities), so drift finds nothing breaking',
    { timeout: 300_000 },
    async () => {
      // The default simulator's recording needs nothing from the calibration, so it is made
      // while the stand-in is recorded, calibrated from and served (each record waits on a
      // vitest child and a server more than it computes).
      const plainRecording = recordServed('default', undefined);
      // Awaited below; until then a failure must not surface as an unhandled rejection.
      plainRecording.catch(() => {});
      const upstream = await record('gateway', [], { CONTRACT_VARIANT: 'family-gateway' });
      const scenarioFile = path.join(scratch, 'calibrated.yaml');
      let table = '';
      expect(
        await runCalibrate([upstream, '--out', scenarioFile], { write: (text) => void (table += text) }),
      ).toBe(0);

      const text = readFileSync(scenarioFile, 'utf8');
      const scenario = parse(text) as { accounts: { apiKey: string }[]; settings: Record<string, unknown> };
      expect(scenario.accounts[0]!.apiKey).toBe('demo-key');
      // Rejections as HTTP 200 with codes of its own, in Chinese, with success and a fresh
      // traceId beside the code; time in ms; trxPrice trimmed; a maximum; the minimum on the price.
      const extras = [
        { path: '/success', constant: false },
        { path: '/traceId', generate: 'text', length: 32 },
      ];
      expect(scenario.settings).toMatchObject({
        envelopeTimeUnit: 'ms',
        decimals: { trxPrice: 'trimmed' },
        maxRentalCount: 9_876_543,
        priceMinimum: true,
        errors: {
          apiKeyMissing: { status: 200, code: 40001, msg: '缺少API-KEY请求头', extraFields: extras },
          apiKeyUnknown: { status: 200, code: 40002, extraFields: extras },
          orderNotFound: { status: 200, code: 40004 },
          belowMinimum: { status: 200, code: 40003, msg: '租赁数量低于最小值' },
          aboveMaximum: { status: 200, code: 40003, msg: '租赁数量超过最大值' },
          parameterInvalid: { status: 200, code: 40003 },
          methodNotAllowed: { status: 200, code: 40500 },
        },
        extraFields: { getPrice: [{ path: '/success', constant: true }, extras[1]] },
        prices: { '1h': '70' },
      });
      // Each calibrated setting names its evidence above it.
      expect(text).toMatch(
        /# getPrice, ".*": rentalCount 987654321 refused, 9876543 accepted\n\s*maxRentalCount: 9876543/,
      );
      expect(table).toMatch(/maxRentalCount\s+9876543\s+observed: getPrice, .*rentalCount 987654321 refused/);
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
        expect.arrayContaining(['response-changed', 'field-removed', 'format-changed']),
      );
      // Every breaking difference of a calibratable choice names the setting that fixes it.
      expect(unlike.report.findings.filter((f) => f.calibration).map((f) => f.calibration)).toEqual(
        expect.arrayContaining([
          'errors (the error catalogue)',
          'envelopeTimeUnit',
          'maxRentalCount and priceMinimum',
        ]),
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
