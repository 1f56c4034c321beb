/**
 * Recording format 2, JSON lines: what is written reads back the same, a format 1 document
 * still loads, a last line cut short is dropped with a warning naming it, and anything
 * else that is off is named by its line.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fileLimit } from '../src/bounded-file.ts';
import { readRecordingFile, recordingText, writeRecordingFile } from './recording-lines.ts';
import { loadRecording, RECORDING_FORMAT, RECORDING_V1_FORMAT } from './recording.ts';
import { baseline } from './test-support.ts';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'recording-lines-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const read = (file: string, warnings: string[] = []) =>
  readRecordingFile(file, fileLimit(16), (line) => warnings.push(line));

describe('a recording@2 file', () => {
  it('reads back what was written: a header line, then a line per interaction', () => {
    const recording = baseline();
    const file = path.join(scratch, 'round-trip.jsonl');
    writeRecordingFile(file, recording);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(recording.interactions.length + 1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ format: RECORDING_FORMAT, runId: recording.runId });
    expect(read(file).recording).toEqual(recording);
  });

  it('still loads a recording@1 document, as the same recording in memory', () => {
    const recording = baseline();
    const file = path.join(scratch, 'v1.json');
    writeFileSync(file, JSON.stringify({ ...recording, format: RECORDING_V1_FORMAT }, null, 2));
    expect(loadRecording(file, undefined, () => {})).toEqual({ ...recording, format: RECORDING_V1_FORMAT });
  });

  it('drops a last line cut short, with a warning naming its line, and keeps the lines before it', () => {
    const recording = baseline();
    const file = path.join(scratch, 'torn.jsonl');
    writeRecordingFile(file, recording);
    const whole = readFileSync(file).length;
    appendFileSync(file, JSON.stringify(recording.interactions[0]).slice(0, 40));
    const warnings: string[] = [];
    const result = read(file, warnings);
    const torn = recording.interactions.length + 2;
    expect(result.recording.interactions).toEqual(recording.interactions);
    expect(result).toMatchObject({ tornLine: torn, wholeBytes: whole });
    expect(warnings).toEqual([expect.stringContaining(`'${file}' line ${torn} is cut short`)]);
  });

  it('names the line and the rule of an interaction that is off', () => {
    const recording = baseline();
    const lines = recordingText(recording).split('\n');
    lines[3] = JSON.stringify({ ...recording.interactions[2], reqest: {} });
    const file = path.join(scratch, 'spoilt.jsonl');
    writeFileSync(file, lines.join('\n'));
    expect(() => read(file)).toThrow(
      `'${file}' is not an energy-rental-kit recording: line 4: unknown field 'reqest'`,
    );
  });

  it('names the line of one that is not JSON, when it is not the last', () => {
    const lines = recordingText(baseline()).split('\n');
    lines[2] = '{"case":';
    const file = path.join(scratch, 'broken.jsonl');
    writeFileSync(file, lines.join('\n'));
    expect(() => read(file)).toThrow(/line 3 is not JSON/);
  });

  it('names the header when it is off', () => {
    const lines = recordingText(baseline()).split('\n');
    lines[0] = JSON.stringify({ ...JSON.parse(lines[0]!), runId: '' });
    const file = path.join(scratch, 'bad-header.jsonl');
    writeFileSync(file, lines.join('\n'));
    expect(() => read(file)).toThrow(/line 1, its header: \/runId: must NOT have fewer than 1 characters/);
  });

  it('gives a key alias the header does not list the role foreign', () => {
    const recording = baseline();
    const file = path.join(scratch, 'later-key.jsonl');
    writeRecordingFile(file, { ...recording, apiKeys: [{ alias: 'key-1', role: 'main' }] });
    expect(read(file).recording.apiKeys).toEqual([
      { alias: 'key-1', role: 'main' },
      { alias: 'key-2', role: 'foreign' },
    ]);
  });

  it('is refused over the file limit, like any file read', () => {
    const file = path.join(scratch, 'large.jsonl');
    writeFileSync(file, `${recordingText(baseline())}${' '.repeat(1024 * 1024)}\n`);
    expect(() => readRecordingFile(file, fileLimit(1), () => {})).toThrow(/over the limit of 1 MB/);
  });
});
