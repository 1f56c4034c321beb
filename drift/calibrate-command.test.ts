/**
 * `calibrate` as a command: the scenario it writes carries each setting's evidence, and
 * what the recording showed but the simulator cannot answer alike is printed as such.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { writeRecordingFile } from '../recording/recording-lines.ts';
import { exchange, recordingOf } from '../recording/test-support.ts';
import { runCalibrate } from './calibrate-command.ts';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'calibrate-command-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const price = (period: string, extra: Record<string, unknown>) =>
  exchange(
    'getPrice',
    {
      code: 0,
      msg: 'Get price successfully',
      time: '1741801809123',
      data: { sun: '60', trxPrice: '3.84', period, resourceType: 'ENERGY', rentalCount: 64000, ...extra },
    },
    { path: '/v1/tron/price', query: { period, rentalCount: '64000' } },
  );

describe('calibrate RECORDING', () => {
  it('writes extra fields with their evidence and prints what it cannot reproduce', async () => {
    const file = path.join(scratch, 'recording.json');
    writeRecordingFile(
      file,
      recordingOf([
        price('1h', { fee: '0', ok: true, echo: '1h' }),
        price('10min', { fee: '0', ok: false, echo: '10min' }),
      ]),
    );
    const out = path.join(scratch, 'calibrated.yaml');
    let printed = '';
    expect(await runCalibrate([file, '--out', out], { write: (text) => void (printed += text) })).toBe(0);
    const text = readFileSync(out, 'utf8');
    const scenario = parse(text) as { settings: Record<string, unknown> };
    expect(scenario.settings).toMatchObject({
      envelopeTimeUnit: 'ms',
      extraFields: {
        getPrice: [
          { path: '/data/echo', copyParameter: 'period' },
          { path: '/data/fee', constant: '0' },
        ],
      },
    });
    expect(text).toMatch(/# getPrice, ".*": \/data\/fee: 2× "0"\n\s*- path: \/data\/fee/);
    expect(printed).toMatch(/envelopeTimeUnit\s+"ms"\s+observed: getPrice, time "1741801809123"/);
    expect(printed).toContain('Seen in the recording but not reproduced by the calibrated simulator:');
    expect(printed).toMatch(
      /- getPrice \/data\/ok: boolean values that vary cannot be drawn; the simulator leaves it out \(getPrice, ".*"\)/,
    );
  });
});
