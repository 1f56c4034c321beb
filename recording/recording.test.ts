/**
 * Loading a recording: a key left in clear (by an older recorder, or by hand) is named
 * with its JSON path, so it is removed before the file is shared or committed.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { keyLookingPaths, loadRecording } from './recording.ts';
import { baseline, dataOf } from './test-support.ts';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'recording-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('loadRecording', () => {
  it('warns of a key in clear, naming its JSON path, and loads the recording all the same', () => {
    const recording = baseline(undefined, (interactions) => {
      interactions[0]!.request.query.api_key = 'sk_live_12345';
      dataOf(interactions, 'getAccount').token = 'tk_12345678';
    });
    const file = path.join(scratch, 'leaky.json');
    writeFileSync(file, JSON.stringify(recording));
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
    expect(keyLookingPaths(recording)).toEqual([]);
    expect(keyLookingPaths(baseline())).toEqual([]);
  });
});
