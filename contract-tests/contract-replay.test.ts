/**
 * What a replay needs from the harness: values the suite makes up are the same for the
 * same run id, the replay's settings come from its recording, and `contract --replay`
 * checks its flag.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CliError } from '../src/cli-error.ts';
import { recordingText } from '../recording/recording-lines.ts';
import { RECORDING_V1_FORMAT } from '../recording/recording.ts';
import { recordingOf } from '../recording/test-support.ts';
import { CONTRACT_HELP, contractEnv } from './contract-command.ts';
import { readContractConfig } from './contract-config.ts';
import { buildReport, summarise } from './contract-report.ts';
import { runBytes, uniqueOutOrderNo } from './contract-test.ts';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'contract-replay-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const recordingFile = path.join(scratch, 'recording.json');
writeFileSync(
  recordingFile,
  recordingText(
    recordingOf([], {
      runId: 'mrun42',
      settings: { allowSpend: true, maxOrders: 2, pledgeAddress: 'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3' },
    }),
  ),
);

describe('values the suite makes up', () => {
  it('derive from the run id, the case and its count, so a replay sends the same ones', () => {
    const a = uniqueOutOrderNo('order', 'mrun42', 'x.contract.test.ts > a', 0);
    expect(a).toMatch(/^erk-order-mrun42-[0-9a-f]{8}-0$/);
    expect(uniqueOutOrderNo('order', 'mrun42', 'x.contract.test.ts > a', 0)).toBe(a);
    expect(uniqueOutOrderNo('order', 'mrun42', 'x.contract.test.ts > b', 0)).not.toBe(a);
    expect(uniqueOutOrderNo('order', 'mrun43', 'x.contract.test.ts > a', 0)).not.toBe(a);
    expect(uniqueOutOrderNo('order', 'mrun42', 'x.contract.test.ts > a', 1)).not.toBe(a);
    expect(a.length).toBeLessThanOrEqual(64);
    expect(runBytes('mrun42', 'c', 'address')).toEqual(runBytes('mrun42', 'c', 'address'));
    expect(runBytes('mrun42', 'c', 'address')).not.toEqual(runBytes('mrun43', 'c', 'address'));
  });
});

describe('readContractConfig in replay mode', () => {
  it('takes the run id, the spending guard and the receiving address from the recording', () => {
    const config = readContractConfig({
      CONTRACT_REPLAY: recordingFile,
      CONTRACT_RUN_ID: 'ignored',
      CONTRACT_PLEDGE_ADDRESS: 'Tother',
    });
    expect(config).toMatchObject({
      mode: 'replay',
      replayPath: recordingFile,
      runId: 'mrun42',
      allowSpend: true,
      maxOrders: 2,
      pledgeAddress: 'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3',
    });
  });

  it('refuses a replay together with a URL or a recording run', () => {
    expect(() =>
      readContractConfig({
        CONTRACT_REPLAY: recordingFile,
        CONTRACT_BASE_URL: 'http://x',
        CONTRACT_API_KEY: 'k',
      }),
    ).toThrow(/CONTRACT_REPLAY and CONTRACT_BASE_URL exclude each other/);
    expect(() => readContractConfig({ CONTRACT_REPLAY: recordingFile, CONTRACT_RECORD: scratch })).toThrow(
      /CONTRACT_REPLAY and CONTRACT_RECORD exclude each other/,
    );
  });

  it('uses CONTRACT_RUN_ID outside a replay', () => {
    expect(readContractConfig({ CONTRACT_RUN_ID: 'abc' }).runId).toBe('abc');
    expect(readContractConfig({}).runId).toMatch(/^[0-9a-z]+$/);
  });
});

describe('contract --replay', () => {
  it('is in the help and sets CONTRACT_REPLAY to the absolute path', () => {
    expect(CONTRACT_HELP).toMatch(/--replay FILE {9}Run offline against a recording/);
    const env = contractEnv(['--replay', path.relative(process.cwd(), recordingFile)], {});
    expect(env).toMatchObject({ CONTRACT_REPLAY: recordingFile });
  });

  it('refuses flags that the recording decides, and a file that is not a recording', () => {
    expect(() =>
      contractEnv(['--replay', recordingFile, '--base-url', 'http://x', '--allow-spend'], {}),
    ).toThrow(/--replay serves a recording offline.*drop --base-url, --allow-spend/);
    const missing = (() => {
      try {
        contractEnv(['--replay', path.join(scratch, 'nope.json')], {});
      } catch (error) {
        return error;
      }
    })();
    expect(missing).toBeInstanceOf(CliError);
    expect((missing as CliError).message).toMatch(
      /^--replay: cannot read the recording .*nope.json.*energy-rental-kit record --out/,
    );
  });

  it('reads a replayed recording only when it is a regular file under ENERGY_SIM_MAX_FILE_MB', () => {
    const large = path.join(scratch, 'large.json');
    writeFileSync(
      large,
      JSON.stringify({ ...recordingOf([]), format: RECORDING_V1_FORMAT, padding: 'x'.repeat(1024 * 1024) }),
    );
    const over = new RegExp(
      `'${large.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}' is 1\\.0 MB \\(\\d+ bytes\\), over the limit of 1 MB; pass a smaller file, or raise the limit with ENERGY_SIM_MAX_FILE_MB\\.$`,
    );
    expect(() => contractEnv(['--replay', large], { ENERGY_SIM_MAX_FILE_MB: '1' })).toThrow(
      new RegExp(`^--replay: ${over.source}`),
    );
    expect(() => readContractConfig({ CONTRACT_REPLAY: large, ENERGY_SIM_MAX_FILE_MB: '1' })).toThrow(
      new RegExp(`^CONTRACT_REPLAY: ${over.source}`),
    );
    expect(readContractConfig({ CONTRACT_REPLAY: large }).mode).toBe('replay');
    expect(() => contractEnv(['--replay', '/dev/zero'], {})).toThrow(
      "--replay: '/dev/zero' is not a regular file (a character device); pass the path of a recording file.",
    );
    expect(() => contractEnv(['--replay', large], { ENERGY_SIM_MAX_FILE_MB: '0' })).toThrow(
      "ENERGY_SIM_MAX_FILE_MB must be a whole number of megabytes from 1 to 511 (got '0').",
    );
  });

  it('names the recording in the run summary', () => {
    const report = buildReport(
      [
        {
          name: 'a',
          file: 'x',
          verdict: 'passed',
          interactions: [],
          meta: {
            target: {
              kind: 'replay',
              baseUrl: 'http://replay.invalid',
              simulator: true,
              capabilities: ['clock'],
              recording: 'fixtures/r.json',
              recordedFrom: 'the in-process simulator',
            },
            interactions: [],
            spent: [],
            facts: [],
            notes: [],
          },
        },
      ],
      new Date(0),
    );
    expect(summarise(report, 'contract-report.json')).toMatch(
      /Contract run against the recording fixtures\/r.json \(replayed offline; recorded from the in-process simulator\)/,
    );
  });
});
