/** Recording files: recording@2 is JSON lines (a header, then an interaction a line); @1 is still read. */
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BoundedFileError, readBoundedFile, readBoundedLines, type FileLimit } from '../src/bounded-file.ts';
import type { components } from '../src/generated/control.ts';
import { RECORDING_FORMAT } from '../src/generated/lists.ts';
import { createValidators, loadSpec, type ValidateFunction } from '../src/spec/loader.ts';
import { describeSchemaProblems } from '../src/spec/schema-problem.ts';
import { realPathOf } from '../src/real-path.ts';
import { computeTiming } from './order-observations.ts';
import {
  keyLookingPaths,
  notARecording,
  parseRecording,
  RecordingError,
  type Interaction,
  type RecordedApiKey,
  type Recording,
} from './recording.ts';

/** The first line of a recording@2 file. */
export type RecordingHeader = components['schemas']['RecordingHeader'];

const RECORDING_FIX = 'pass the path of a recording file';

let control: ReturnType<typeof createValidators> | undefined;

/**
 * The header line of a recording in memory.
 *
 * @example
 *   headerOf(recording).format; // 'energy-rental-kit/recording@2'
 */
export function headerOf(recording: Omit<Recording, 'format' | 'interactions' | 'timing'>): RecordingHeader {
  const { recordedAt, runId, target, settings, apiKeys } = recording;
  return { format: RECORDING_FORMAT, recordedAt, runId, target, settings, apiKeys };
}

/**
 * The recording@2 text of a recording in memory: its header line, then a line per interaction.
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

/** What takes a recording@2's header and interactions, each checked; `interactions` then stay empty. */
export interface LineHooks {
  onHeader?: (header: RecordingHeader) => void;
  onInteraction?: (interaction: Interaction, text: string) => void;
}

/** A recording@2 as read: the recording, and where its last whole line ends, in bytes. */
export interface ReadRecording {
  recording: Recording;
  /** The byte length of the file up to its last whole line (a torn last line is past it). */
  wholeBytes: number;
  /** The number of the torn last line that was dropped, if any. */
  tornLine?: number;
  newlineMissing: boolean;
}

/**
 * Reads a recording@2 file a line at a time, naming the line of the first that is off;
 * undefined when the first line is no recording@2 header. A torn last line is dropped with a warning.
 */
function readRecordingLines(
  file: string,
  limit: FileLimit,
  onWarning: (line: string) => void,
  hooks: LineHooks,
  keyLooking: string[],
): ReadRecording | undefined {
  const fail = (what: string): Error => notARecording(`'${file}'`, what);
  control ??= createValidators(loadSpec('control'));
  const checkHeader = control.schema('RecordingHeader');
  const checkLine = control.schema('RecordingInteractionLine');
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
  readBoundedLines(file, limit, RECORDING_FIX, (text, lineNumber, ended) => {
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
      if (!checkHeader(value)) throw fail(`line 1, its header: ${problem(checkHeader, value)}`);
      header = value as RecordingHeader;
      hooks.onHeader?.(header);
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
      if (ended) throw fail(`line ${lineNumber} is not JSON (${(error as Error).message})`);
      tornLine = lineNumber;
      return onWarning(
        `warning: '${file}' line ${lineNumber} is cut short (its recorder stopped while writing it); it is dropped, the ${count} interactions before it are read.`,
      );
    }
    if (!checkLine(value)) throw fail(`line ${lineNumber}: ${problem(checkLine, value)}`);
    const interaction = value as Interaction;
    const alias = interaction.request.apiKeyAlias;
    if (alias !== undefined && !apiKeys.has(alias)) apiKeys.set(alias, { alias, role: 'foreign' });
    count++;
    keyLooking.push(...keyLookingPaths(interaction, `line ${lineNumber} `));
    if (hooks.onInteraction) hooks.onInteraction(interaction, text);
    else interactions.push(interaction);
    wholeBytes += Buffer.byteLength(text) + (ended ? 1 : 0);
  });
  if (notV2) return undefined;
  if (!header) throw fail('it is empty');
  const recording: Recording = {
    ...header,
    apiKeys: [...apiKeys.values()],
    interactions,
    timing: computeTiming(interactions),
  };
  return { recording, wholeBytes, newlineMissing, ...(tornLine !== undefined ? { tornLine } : {}) };
}

/**
 * Reads a recording file of either format, uncached, warning of a key it holds in clear.
 *
 * @example
 *   readRecordingFile('traffic.jsonl', fileLimit(256), warn).recording.format; // 'energy-rental-kit/recording@2'
 */
export function readRecordingFile(
  file: string,
  limit: FileLimit,
  onWarning: (line: string) => void,
  lineHooks: LineHooks = {},
): { recording: Recording } & Partial<ReadRecording> {
  const keyLooking: string[] = [];
  let read: { recording: Recording } & Partial<ReadRecording>;
  try {
    // No recording@2 header on the first line: a recording@1 document, read whole.
    read = readRecordingLines(file, limit, onWarning, lineHooks, keyLooking) ?? {
      recording: readDocument(file, readBoundedFile(file, limit, RECORDING_FIX), keyLooking),
    };
  } catch (error) {
    // A file that cannot be read at all: the rule it breaks, or the way to make one.
    if (!(error instanceof BoundedFileError)) throw error;
    if (error.rule === 'not-regular' || error.rule === 'too-large') throw new RecordingError(error.message);
    const what = error.rule === 'missing' ? `${error.code}, there is no such file` : error.code;
    throw new RecordingError(
      `cannot read the recording '${file}': ${what}. Make one with 'energy-rental-kit record --out ${file}'.`,
    );
  }
  if (keyLooking.length > 0) {
    const more = keyLooking.length > 5 ? ` and ${keyLooking.length - 5} more` : '';
    onWarning(
      `warning: '${file}' holds what looks like an API key in clear at ${keyLooking.slice(0, 5).join(', ')}${more}; a recording keeps aliases (key-1, key-2, …): do not share or commit it until they are removed.`,
    );
  }
  return read;
}

function readDocument(file: string, text: string, keyLooking: string[]): Recording {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new RecordingError(
      `'${file}' is not JSON (${(error as Error).message}); a recording is the file 'energy-rental-kit record --out FILE' writes.`,
    );
  }
  const recording = parseRecording(value, file);
  recording.interactions.forEach((interaction, i) =>
    keyLooking.push(...keyLookingPaths(interaction, `/interactions/${i}`)),
  );
  return recording;
}
