/**
 * Loading a recording: a key left in clear (by an older recorder, or by hand) is named
 * with its JSON path, so it is removed before the file is shared or committed.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  keyLookingPaths,
  loadRecording,
  parseRecording,
  RECORDING_V1_FORMAT,
  RecordingError,
  type Recording,
} from './recording.ts';
import { baseline, dataOf } from './test-support.ts';

/** A recording as the one JSON document of format 1. */
const v1 = (recording: Recording): Recording => ({ ...recording, format: RECORDING_V1_FORMAT });

const FIXTURE = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../fixtures/simulator-recording.json',
);

const scratch = mkdtempSync(path.join(os.tmpdir(), 'recording-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('loadRecording', () => {
  it('warns of a key in clear, naming its JSON path, and loads the recording all the same', () => {
    const recording = baseline(undefined, (interactions) => {
      interactions[0]!.request.query.api_key = 'sk_live_12345';
      dataOf(interactions, 'getAccount').token = 'tk_12345678';
    });
    const file = path.join(scratch, 'leaky.json');
    writeFileSync(file, JSON.stringify(v1(recording)));
    const warnings: string[] = [];
    expect(loadRecording(file, undefined, (line) => warnings.push(line)).interactions).toHaveLength(
      recording.interactions.length,
    );
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('/interactions/0/request/query/api_key');
    expect(warnings[0]).toContain('/interactions/1/response/body/data/token');
    expect(warnings[0]).not.toContain('sk_live_12345');
  });

  it('says nothing of aliases and redaction marks, which are what a recording keeps', () => {
    const recording = baseline(undefined, (interactions) => {
      interactions[0]!.request.query.api_key = 'key-2';
      dataOf(interactions, 'getAccount').apiKey = '[redacted]';
    });
    const paths = (r: Recording): string[] => r.interactions.flatMap((i) => keyLookingPaths(i, ''));
    expect(paths(recording)).toEqual([]);
    expect(paths(baseline())).toEqual([]);
  });
});

describe('parseRecording', () => {
  it('loads the shipped fixture, which the schema describes field for field', () => {
    const fixture = JSON.parse(readFileSync(FIXTURE, 'utf8')) as unknown;
    const recording = parseRecording(fixture, 'fixtures/simulator-recording.json');
    expect(recording).toEqual(fixture);
    expect(recording.interactions.length).toBeGreaterThan(0);
  });

  it('loads what the hand-made baseline of the tests writes', () => {
    expect(parseRecording(JSON.parse(JSON.stringify(v1(baseline()))))).toEqual(v1(baseline()));
  });

  it.each([
    [
      'a request method that is no string',
      (r: any) => (r.interactions[2].request.method = 5),
      '/interactions/2/request/method: must be string (got 5)',
    ],
    [
      'a status outside HTTP',
      (r: any) => (r.interactions[1].response.status = 99),
      '/interactions/1/response/status: must be >= 100 (got 99)',
    ],
    [
      'an unknown role of a key',
      (r: any) => (r.apiKeys[0].role = 'owner'),
      '/apiKeys/0/role: must be one of main, issued, foreign (got "owner")',
    ],
    [
      'a misspelt field of an interaction',
      (r: any) => (r.interactions[0].reqest = {}),
      "/interactions/0: unknown field 'reqest'",
    ],
    [
      'an interaction without its operation',
      (r: any) => delete r.interactions[3].operation,
      "/interactions/3: must have required property 'operation'",
    ],
    ['a timing that is no object', (r: any) => (r.timing = []), '/timing: must be object (got [])'],
    ['an empty runId', (r: any) => (r.runId = ''), '/runId: must NOT have fewer than 1 characters (got "")'],
  ])('refuses %s, naming its JSON path and the rule', (_what, spoil, problem) => {
    const recording = JSON.parse(JSON.stringify(v1(baseline()))) as unknown;
    spoil(recording);
    const error = (() => {
      try {
        parseRecording(recording, 'spoilt.json');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(RecordingError);
    expect((error as Error).message).toContain(
      `spoilt.json is not an energy-rental-kit recording: ${problem}`,
    );
  });

  it('refuses another format, naming it and this one', () => {
    expect(() => parseRecording({ ...baseline(), format: 'energy-rental-kit/recording@9' })).toThrow(
      "'format' is \"energy-rental-kit/recording@9\", expected 'energy-rental-kit/recording@1' (or a first line of format 'energy-rental-kit/recording@2')",
    );
  });

  it('reads a recording@1 made before settings and apiKeys were kept as a run that spent nothing, with one key', () => {
    const { settings: _settings, apiKeys: _keys, ...older } = v1(baseline());
    expect(parseRecording(older)).toMatchObject({
      settings: { allowSpend: false, maxOrders: 1 },
      apiKeys: [{ alias: 'key-1', role: 'main' }],
    });
  });
});
