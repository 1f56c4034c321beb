/**
 * The calibration loop over the settings that describe how answers look: a simulator
 * with every one of them away from its default is recorded as the real service is,
 * calibrated from, served, recorded again the same way, and compared: no breaking drift.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { serve } from '../cli/serve.ts';
import { runCalibrate } from '../drift/calibrate-command.ts';
import { runDrift } from '../drift/drift-command.ts';
import type { DriftReport } from '../drift/finding.ts';
import { runRecord } from '../drift/record-command.ts';
import { DEFAULT_SCENARIO } from '../mock/simulator.ts';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'calibrate-answers-loop-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * Every answer setting away from its default, as far as the contract suite can still
 * pass on it: `trxPrice` and the USDT balance keep the decimals the document fixes, and
 * the documented rejections keep the JSON envelope the suite reads their code from.
 */
const ALL_SETTINGS = {
  // Long enough that the suite's polls see an order open, so it can see PROCESSING hidden.
  delaysMs: { processing: 500, outcome: 3000 },
  envelopeTimeUnit: 'ms',
  decimals: { 'balance.available.trx': 6, 'balance.frozen.trx': 6, amount: 'trimmed' },
  extraFields: {
    getPrice: [
      { path: '/data/fee', constant: '0' },
      { path: '/data/echoPeriod', copyParameter: 'period' },
      { path: '/requestId', generate: 'uuid' },
    ],
    getOrderHistory: [
      { path: '/data/expireAt', createdAtOffsetMs: 600_000, unit: 'ms' },
      { path: '/data/address', copyOrderField: 'pledgeAddress' },
    ],
    getAccount: [{ path: '/data/vip', constant: { level: 2 } }],
    createOrder: [{ path: '/data/payTx', generate: 'hex64' }],
  },
  errors: {
    methodNotAllowed: { status: 405, body: '' },
    notFound: { status: 404, contentType: 'text/plain', body: 'Not Found' },
    parameterInvalid: { status: 400, code: 1003, msg: 'Invalid parameter: {parameter}' },
    parameterMissing: { status: 400, code: 1003, msg: 'Missing parameter: {parameter}' },
  },
  hiddenStatuses: ['PROCESSING'],
  historyPrefers: 'outOrderNo',
  whenTrxShort: 'reject',
};

async function record(name: string, url: string): Promise<string> {
  const out = path.join(scratch, `${name}.json`);
  let output = '';
  const code = await runRecord(
    [
      ...['--out', out, '--report', path.join(scratch, `${name}-report.json`)],
      // No pace, as in calibrate-loop.test.ts: a served simulator recorded --as-upstream is no
      // simulator to the suite, so it would be paced at 4 requests a second, which only
      // added some 20 s of waiting to this file.
      ...['--allow-spend', '--max-orders', '2', '--max-rps', '0'],
      ...['--base-url', url, '--api-key', 'demo-key', '--as-upstream'],
    ],
    process.env,
    { write: (text) => void (output += text), vitestArgs: ['--maxWorkers=1'], stdio: 'pipe' },
  );
  const report = readFileSync(path.join(scratch, `${name}-report.json`), 'utf8');
  expect(code, `${output.slice(-2000)}\n${report.slice(0, 6000)}`).toBe(0);
  return out;
}

async function recordServed(name: string, config: string): Promise<string> {
  const server = await serve({ port: 0, host: '127.0.0.1', quiet: true, config }, () => {});
  try {
    return await record(name, server.url);
  } finally {
    await server.close();
  }
}

describe('the calibration loop over every answer setting', () => {
  it('learns each one the suite shows, so drift finds nothing breaking', { timeout: 300_000 }, async () => {
    const configured = path.join(scratch, 'configured.json');
    writeFileSync(configured, JSON.stringify({ ...DEFAULT_SCENARIO, settings: ALL_SETTINGS }));
    const upstream = await recordServed('configured', configured);

    const calibratedFile = path.join(scratch, 'calibrated.yaml');
    let table = '';
    expect(
      await runCalibrate([upstream, '--out', calibratedFile], { write: (text) => void (table += text) }),
    ).toBe(0);
    const { settings } = parse(readFileSync(calibratedFile, 'utf8')) as {
      settings: Record<string, unknown>;
    };
    expect(settings, table).toMatchObject({
      envelopeTimeUnit: 'ms',
      decimals: { 'balance.available.trx': 6, 'balance.frozen.trx': 6 },
      errors: {
        methodNotAllowed: { status: 405, body: '' },
        notFound: { status: 404, contentType: 'text/plain', body: 'Not Found' },
      },
      hiddenStatuses: ['PROCESSING'],
    });
    const extra = settings.extraFields as Record<string, { path: string }[]>;
    expect(extra.getPrice!.map((f) => f.path).sort(), table).toEqual([
      '/data/echoPeriod',
      '/data/fee',
      '/requestId',
    ]);
    // The suite spends one order: each of its fields shows one value, learnt as a constant.
    expect(extra.getOrderHistory!.map((f) => f.path).sort(), table).toEqual([
      '/data/address',
      '/data/expireAt',
    ]);
    expect(table).toMatch(
      /extraFields\.getPrice\.\d\s+\{"path":"\/data\/echoPeriod","copyParameter":"period"\}/,
    );

    const calibrated = await recordServed('calibrated', calibratedFile);
    const json = path.join(scratch, 'drift.json');
    const code = await runDrift([upstream, calibrated, '--json', json], { write: () => {} });
    const report = JSON.parse(readFileSync(json, 'utf8')) as DriftReport;
    expect(
      report.findings.filter((f) => f.severity === 'breaking'),
      JSON.stringify(report.findings, null, 1),
    ).toEqual([]);
    expect(code).toBe(0);
  });
});
