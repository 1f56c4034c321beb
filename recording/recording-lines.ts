/**
 * Recording format 2: JSON lines, a header then one interaction per line, appended as each
 * exchange ends and read a line at a time, each checked on its own; timing is computed on read.
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { readBoundedLines, type FileLimit } from '../src/bounded-file.ts';
import type { components } from '../src/generated/control.ts';
import { RECORDING_FORMAT } from '../src/generated/lists.ts';
import { createValidators, loadSpec, type ValidateFunction } from '../src/spec/loader.ts';
import { describeSchemaProblems } from '../src/spec/schema-problem.ts';
import { realPathOf } from '../src/real-path.ts';
import { computeTiming } from './order-observations.ts';
import { keyLookingPaths, type Interaction, type RecordedApiKey, type Recording } from './recording.ts';

/** The first line of a recording@2 file. */
export type RecordingHeader = components['schemas']['RecordingHeader'];

let validators: [header: ValidateFunction, line: ValidateFunction] | undefined;

/**
 * The header line of a recording in memory.
 *
 * @example
 *   headerOf(recording).format; // 'energy-rental-kit/recording@2'
 */
export function headerOf({
  recordedAt,
  runId,
  target,
  settings,
  apiKeys,
}: Omit<Recording, 'format' | 'interactions' | 'timing'>): RecordingHeader {
  return { format: RECORDING_FORMAT, recordedAt, runId, target, settings, apiKeys };
}

/**
 * The recording@2 text of a recording in memory: its header line, then a line per
 * interaction.
 *
 * @example
 *   recordingText(recording).split('\n')[0]; // '{"format":"energy-rental-kit/recording@2",…}'
 */
export function recordingText(recording: Recording): string {
  return [headerOf(recording), ...recording.interactions].map((line) => `${JSON.stringify(line)}\n`).join('');
}

/**
 * Writes `recording` to `file` as recording@2 through a temporary file renamed into place.
 *
 * @example
 *   writeRecordingFile('recordings/upstream.jsonl', assembleRecording(dir, meta));
 */
export function writeRecordingFile(file: string, recording: Recording): void {
  const target = realPathOf(file);
  mkdirSync(path.dirname(target), { recursive: true });
  const temporary = `${target}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, recordingText(recording));
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  renameSync(temporary, target);
}

/** What reading a recording@2 file found besides its content. */
export interface ReadLinesOptions {
  /** A warning (a torn last line), one line of text. */
  onWarning: (line: string) => void;
  /** Makes the error of a file that is not a recording; `what` says what is off. */
  fail: (what: string) => Error;
  /** The message of a file that cannot be read (missing, too large, no regular file). */
  fix: string;
  /** Takes each interaction, checked, with its line's text; `interactions` then stay empty. */
  onInteraction?: (interaction: Interaction, text: string) => void;
  /** Takes the header, checked, before any interaction. */
  onHeader?: (header: RecordingHeader) => void;
  /** Takes the JSON paths of an interaction where a key looks left in clear (keyLookingPaths). */
  onKeyLooking?: (paths: string[]) => void;
}

/** A recording@2 as read: the recording, and where its last whole line ends, in bytes. */
export interface ReadRecording {
  recording: Recording;
  /** The byte length of the file up to its last whole line (a torn last line is past it). */
  wholeBytes: number;
  /** The number of the torn last line that was dropped, if any. */
  tornLine?: number;
  /** Whether the file's last line has no newline. */
  newlineMissing: boolean;
}

/**
 * Reads a recording@2 file a line at a time, naming the line of the first that is off;
 * undefined when the first line is no recording@2 header. A torn last line is dropped with a warning.
 *
 * @example
 *   readRecordingLines('traffic.jsonl', fileLimit(256), { onWarning, fail, fix })?.recording.interactions.length;
 */
export function readRecordingLines(
  file: string,
  limit: FileLimit,
  options: ReadLinesOptions,
): ReadRecording | undefined {
  if (!validators) {
    const control = createValidators(loadSpec('control'));
    validators = [control.schema('RecordingHeader'), control.schema('RecordingInteractionLine')];
  }
  const [checkHeader, checkLine] = validators;
  let header: RecordingHeader | undefined;
  let notV2 = false;
  const interactions: Interaction[] = [];
  let count = 0;
  // An alias that no header line names is a key the recorder met later: a foreign one.
  const apiKeys = new Map<string, RecordedApiKey>();
  let wholeBytes = 0;
  let tornLine: number | undefined;
  let newlineMissing = false;
  // The line itself is the root: "line 4: unknown field 'x'", not "line 4: /: …".
  const problem = (check: ValidateFunction, value: unknown): string =>
    describeSchemaProblems(check.errors ?? [], value).replace(/^\/: /, '');
  readBoundedLines(file, limit, options.fix, (text, lineNumber, ended) => {
    newlineMissing = !ended;
    let value: unknown;
    if (lineNumber === 1) {
      try {
        value = JSON.parse(text);
      } catch {
        // Not JSON: a recording@1 document spread over lines, or no recording.
      }
      if ((value as { format?: unknown } | null)?.format !== RECORDING_FORMAT) {
        notV2 = true;
        return false;
      }
      if (!checkHeader(value)) throw options.fail(`line 1, its header: ${problem(checkHeader, value)}`);
      header = value as RecordingHeader;
      options.onHeader?.(header);
      for (const key of header.apiKeys) apiKeys.set(key.alias, key);
      wholeBytes += Buffer.byteLength(text) + 1;
      return;
    }
    if (text.trim() === '') {
      if (ended) wholeBytes += Buffer.byteLength(text) + 1;
      return;
    }
    try {
      value = JSON.parse(text);
    } catch (error) {
      if (ended) throw options.fail(`line ${lineNumber} is not JSON (${(error as Error).message})`);
      tornLine = lineNumber;
      return options.onWarning(
        `warning: '${file}' line ${lineNumber} is cut short (its recorder stopped while writing it); it is dropped, the ${count} interactions before it are read.`,
      );
    }
    if (!checkLine(value)) throw options.fail(`line ${lineNumber}: ${problem(checkLine, value)}`);
    const interaction = value as Interaction;
    const alias = interaction.request.apiKeyAlias;
    if (alias !== undefined && !apiKeys.has(alias)) apiKeys.set(alias, { alias, role: 'foreign' });
    count++;
    options.onKeyLooking?.(keyLookingPaths(interaction, `line ${lineNumber} `));
    if (options.onInteraction) options.onInteraction(interaction, text);
    else interactions.push(interaction);
    wholeBytes += Buffer.byteLength(text) + (ended ? 1 : 0);
  });
  if (notV2) return undefined;
  if (!header) throw options.fail('it is empty');
  const recording: Recording = {
    ...header,
    apiKeys: [...apiKeys.values()],
    interactions,
    timing: computeTiming(interactions),
  };
  return { recording, wholeBytes, newlineMissing, ...(tornLine !== undefined ? { tornLine } : {}) };
}
