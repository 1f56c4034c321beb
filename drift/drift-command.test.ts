/**
 * The `drift` and `record` commands' interfaces: outputs, files, exit codes, usage
 * errors and help, called in-process.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { CliError } from '../src/cli-error.ts';
import { runDrift } from './drift-command.ts';
import type { DriftReport } from './finding.ts';
import { parseRecordArgs } from './record-command.ts';
import { recordingText } from '../recording/recording-lines.ts';
import { RECORDING_V1_FORMAT, type Recording } from '../recording/recording.ts';
import { baseline, dataOf, VALUES_B } from '../recording/test-support.ts';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'drift-command-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

const file = (name: string, content: unknown): string => {
  const target = path.join(scratch, name);
  writeFileSync(target, typeof content === 'string' ? content : recordingText(content as Recording));
  return target;
};
const OLD = file('old.json', baseline());
const SAME_SHAPES = file('same-shapes.json', baseline(VALUES_B));
const ADDED = file(
  'added.json',
  baseline(VALUES_B, (i) => void (dataOf(i, 'getAccount').vipLevel = 1)),
);
const REMOVED = file(
  'removed.json',
  baseline(VALUES_B, (i) => void delete dataOf(i, 'getPrice').sun),
);

async function drift(argv: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const code = await runDrift(argv, { write: (text) => void (out += text) });
  return { code, out };
}

describe('drift', () => {
  it('prints markdown saying no drift and exits 0 for the same shapes', async () => {
    const { code, out } = await drift([OLD, SAME_SHAPES]);
    expect(code).toBe(0);
    expect(out).toMatch(/^# Upstream drift\n/);
    expect(out).toContain('no drift');
  });

  it('exits 0 on non-breaking drift and 1 on breaking drift, naming operation and path', async () => {
    const added = await drift([OLD, ADDED]);
    expect(added.code).toBe(0);
    expect(added.out).toMatch(
      /non-breaking drift only[\s\S]*## getAccount[\s\S]*\| non-breaking \| field-added \| HTTP 2xx, code 0 \| `\/data\/vipLevel` \|/,
    );
    const removed = await drift([OLD, REMOVED]);
    expect(removed.code).toBe(1);
    expect(removed.out).toMatch(
      /breaking drift\.\*\* 1 breaking, 0 non-breaking[\s\S]*## getPrice[\s\S]*\| \*\*breaking\*\* \| field-removed \| HTTP 2xx, code 0 \| `\/data\/sun` \|/,
    );
  });

  it('prints JSON with --format json, and writes --json and --markdown files too', async () => {
    const jsonFile = path.join(scratch, 'out', 'drift.json');
    const markdownFile = path.join(scratch, 'out', 'drift.md');
    const { code, out } = await drift([
      OLD,
      REMOVED,
      '--format',
      'json',
      '--json',
      jsonFile,
      '--markdown',
      markdownFile,
    ]);
    expect(code).toBe(1);
    const report = JSON.parse(out) as DriftReport;
    expect(report).toMatchObject({
      format: 'energy-rental-kit/drift@1',
      mode: 'recordings',
      summary: { breaking: 1, nonBreaking: 0 },
      timingThresholdSeconds: 2,
    });
    expect(report.findings).toEqual([
      expect.objectContaining({
        kind: 'field-removed',
        operation: 'getPrice',
        path: '/data/sun',
        severity: 'breaking',
      }),
    ]);
    expect(report.old).toMatchObject({ source: OLD, runId: 'test-run', interactions: expect.any(Number) });
    expect(JSON.parse(readFileSync(jsonFile, 'utf8'))).toEqual(report);
    expect(readFileSync(markdownFile, 'utf8')).toMatch(/field-removed/);
  });

  it('takes --timing-threshold in seconds', async () => {
    const slow = file(
      'slow.json',
      baseline({
        ...VALUES_B,
        createdAtMs: 1_741_801_809_000,
        polls: [
          ['PENDING', 0],
          ['PROCESSING', 2],
          ['COMPLETED', 9],
        ],
      }),
    );
    expect((await drift([OLD, slow])).out).toMatch(/timing-shift/);
    expect((await drift([OLD, slow, '--timing-threshold', '5'])).out).toContain('no drift');
  });

  it('compares one recording with the spec under --spec', async () => {
    const ok = await drift(['--spec', OLD]);
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(
      /^# Upstream drift from spec\/openapi.yaml[\s\S]*no drift[\s\S]*publishes no error codes/,
    );
    const bad = await drift(['--spec', REMOVED, '--format', 'json']);
    expect(bad.code).toBe(1);
    expect((JSON.parse(bad.out) as DriftReport).findings).toEqual([
      expect.objectContaining({ kind: 'field-removed', operation: 'getPrice', path: '/data/sun' }),
    ]);
  });

  it.each([
    [[], /drift takes two recordings, OLD and NEW \(got 0\)/],
    [['a.json'], /drift takes two recordings/],
    [['--spec', 'a.json', 'b.json'], /drift --spec takes one recording \(got 2\)/],
    [['a', 'b', '--format', 'html'], /--format must be markdown or json \(got 'html'\)/],
    [['a', 'b', '--timing-threshold', 'soon'], /--timing-threshold must be a non-negative number of seconds/],
    [['a', 'b', '--colour'], /unknown option '--colour'.*energy-rental-kit drift --help/],
    [
      ['a', 'b', '--max-file-mb', '0'],
      /^--max-file-mb must be a whole number of megabytes from 1 to 511 \(got '0'\)\.$/,
    ],
  ])('rejects %j with a CliError naming the fix', async (argv, message) => {
    const error = await drift(argv).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).message).toMatch(message);
  });

  it('names the file and the fix when a recording cannot be read', async () => {
    const missing = await drift([path.join(scratch, 'nope.json'), OLD]).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(CliError);
    expect((missing as CliError).message).toMatch(
      /^OLD: cannot read the recording '.*nope.json': ENOENT.*energy-rental-kit record --out/,
    );
    const notOne = await drift([
      OLD,
      file('report.json', JSON.stringify({ tool: 'energy-rental-kit contract' })),
    ]).catch((e: unknown) => e);
    expect((notOne as CliError).message).toMatch(
      /^NEW: .*report.json is not an energy-rental-kit recording: 'format' is undefined, expected 'energy-rental-kit\/recording@1'/,
    );
    const notJson = await drift([OLD, file('garbage.json', '{')]).catch((e: unknown) => e);
    expect((notJson as CliError).message).toMatch(/^NEW: '.*garbage.json' is not JSON/);
  });

  it('refuses a recording over the limit of --max-file-mb or ENERGY_SIM_MAX_FILE_MB, naming it and the fix', async () => {
    const large = file(
      'large.json',
      JSON.stringify({ ...baseline(), format: RECORDING_V1_FORMAT, padding: 'x'.repeat(1024 * 1024) }),
    );
    const byFlag = await drift([OLD, large, '--max-file-mb', '1']).catch((e: unknown) => e);
    expect(byFlag).toBeInstanceOf(CliError);
    expect((byFlag as CliError).message).toMatch(
      /^NEW: '.*large\.json' is 1\.0 MB \(\d+ bytes\), over the limit of 1 MB; pass a smaller file, or raise the limit with --max-file-mb \(or ENERGY_SIM_MAX_FILE_MB\)\.$/,
    );
    const byEnv = await runDrift([OLD, large], {
      write: () => undefined,
      env: { ENERGY_SIM_MAX_FILE_MB: '1' },
    }).catch((e: unknown) => e);
    expect((byEnv as CliError).message).toBe((byFlag as CliError).message);
    expect((await drift([OLD, large])).code).toBe(0);
    const badEnv = await runDrift([OLD, large], { env: { ENERGY_SIM_MAX_FILE_MB: 'big' } }).catch(
      (e: unknown) => e,
    );
    expect((badEnv as CliError).message).toBe(
      "ENERGY_SIM_MAX_FILE_MB (the environment variable of --max-file-mb) must be a whole number of megabytes from 1 to 511 (got 'big').",
    );
  });
});

describe('the command line', () => {
  it('rejects record without --out, naming the flag', () => {
    expect(() => parseRecordArgs([], {})).toThrow(CliError);
    expect(() => parseRecordArgs([], {})).toThrow(/record needs --out FILE/);
    expect(() => parseRecordArgs(['--out', 'x.json', '--base-url', 'http://127.0.0.1:8787'], {})).toThrow(
      /--base-url needs --api-key/,
    );
    expect(() => parseRecordArgs(['--out', 'x.json', '--max-orders', 'two'], {})).toThrow(
      /--max-orders must be a whole number/,
    );
    expect(() => parseRecordArgs(['--out', 'x.json'], { CONTRACT_REPLAY: 'r.json' })).toThrow(
      /a replay cannot be recorded/,
    );
  });

  it('turns record flags into the suite environment, with the spending guard flags of contract', () => {
    const parsed = parseRecordArgs(
      [
        '--out',
        'rec/x.json',
        '--base-url',
        'https://api.eopen.io/api',
        '--api-key',
        'k',
        '--allow-spend',
        '--max-orders',
        '2',
      ],
      {},
    );
    expect(parsed).toMatchObject({
      out: path.resolve('rec/x.json'),
      env: {
        CONTRACT_BASE_URL: 'https://api.eopen.io/api',
        CONTRACT_API_KEY: 'k',
        CONTRACT_ALLOW_SPEND: '1',
        CONTRACT_MAX_ORDERS: '2',
      },
    });
  });
});
