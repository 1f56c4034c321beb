/**
 * `--state FILE`'s log of effects, `FILE.log`: one JSON line per change, written before it takes effect.
 * A snapshot records the last change it holds (`logSeq`); the log then keeps only the entries after it.
 */
import {
  closeSync,
  fdatasync,
  fdatasyncSync,
  fstatSync,
  ftruncateSync,
  openSync,
  truncateSync,
  writeSync,
} from 'node:fs';
import type { EffectWriter, EngineEffect } from '../mock/engine/index.ts';
import { notKept, notWritten, type ChangeLog } from '../mock/http/exchange.ts';
import { BoundedFileError, readBoundedFile, type FileLimit } from '../src/bounded-file.ts';
import { CliError } from '../src/cli-error.ts';
import { realPathOf } from '../src/real-path.ts';
import { loadState, replaceFile } from './state-file.ts';

/** When appended entries are forced to the disk: each, about once a second, or when the system likes. */
export const FSYNC_POLICIES = ['always', 'everysec', 'no'] as const;
export type FsyncPolicy = (typeof FSYNC_POLICIES)[number];

/** A log past this many MB has a snapshot taken at once, whatever `--save-interval` says. */
export const DEFAULT_LOG_MAX_MB = 64;

/** A state file's log, beside its real path: `logFileOf('.state/sim.json'); // '/abs/…/sim.json.log'`. */
export function logFileOf(stateFile: string): string {
  return `${realPathOf(stateFile)}.log`;
}

/** What to do with a log that cannot be used. */
const LOG_FIX = 'move it away to start from the state file alone (the changes it holds are lost)';

/**
 * The entries of a log after `after` (a snapshot's logSeq); a last line cut off by a crash is dropped
 * and cut from the file, a damaged one before stops the start: `readStateLog(file, { limit, after, warn })`.
 */
export function readStateLog(
  file: string,
  {
    limit,
    after,
    warn,
    source = '--state',
  }: { limit: FileLimit; after: number; warn: (line: string) => void; source?: string },
): EngineEffect[] {
  let text: string;
  try {
    text = readBoundedFile(file, limit, LOG_FIX);
  } catch (error) {
    if (!(error instanceof BoundedFileError)) throw error;
    if (error.rule === 'missing') return [];
    throw new CliError(`${source}: the log of effects: ${error.message}`);
  }
  const effects: EngineEffect[] = [];
  const lines = text.split('\n');
  const ended = lines.at(-1) === '';
  if (ended) lines.pop();
  let offset = 0;
  for (const [index, line] of lines.entries()) {
    const last = index === lines.length - 1;
    const bytes = Buffer.byteLength(line) + (!last || ended ? 1 : 0);
    const effect = parseEntry(line);
    if (effect === undefined) {
      if (!last)
        throw new CliError(
          `${source}: the log of effects '${file}' has a damaged entry at byte ${offset}; ${LOG_FIX}. It is left untouched.`,
        );
      warn(
        `${source}: the log of effects '${file}' ends in an entry cut off by a crash at byte ${offset} (${bytes} bytes); it was dropped and the log cut there.`,
      );
      truncateSync(file, offset);
      break;
    }
    if (effect.seq > after) effects.push(effect);
    offset += bytes;
  }
  return effects;
}

function parseEntry(line: string): EngineEffect | undefined {
  try {
    const entry = JSON.parse(line) as Partial<Record<string, unknown>> | null;
    const { seq, at, type } = entry ?? {};
    if (
      Number.isSafeInteger(seq) &&
      (seq as number) >= 1 &&
      typeof at === 'number' &&
      typeof type === 'string'
    )
      return entry as unknown as EngineEffect;
  } catch {
    // Not JSON: a damaged entry.
  }
  return undefined;
}

export interface StateLog extends ChangeLog, EffectWriter {
  /** Bytes in the log now. */
  readonly bytes: number;
  /** True once the log outgrew its cap: a snapshot is due now. */
  readonly full: boolean;
  /** A snapshot of now is being written: from now on, what is appended is kept for the log after it. */
  beginSnapshot(): void;
  /** A snapshot of every change up to `seq` is on disk: the log is replaced by its entries after `seq`. */
  compact(seq: number): void;
  /** The snapshot under way was not written: keep nothing more for it. */
  abortSnapshot(): void;
  /** Forces what was appended to the disk (per the policy) and closes the file. */
  close(): void;
}

export interface StateLogOptions {
  /** The state file the log follows: what a put-back reads, with the log (readBack). */
  stateFile: string;
  /** The largest state or log read back. */
  limit: FileLimit;
  fsync: FsyncPolicy;
  /** Past this size `onFull` is called, once until the next compaction. */
  maxBytes: number;
  onFull: () => void;
  /** A write or a flush failed (told once per run of failures). */
  onError: (error: Error) => void;
}

/** Opens a log to append to (made when missing): `engine.writeAhead(openStateLog(file, options))`. */
export function openStateLog(file: string, options: StateLogOptions): StateLog {
  const { stateFile, limit, fsync, maxBytes, onFull, onError } = options;
  let fd = openSync(file, 'a');
  let bytes = 0;
  let signalled = false;
  /** What was appended since the snapshot under way was taken, with each entry's number. */
  let kept: { seq: number; line: Buffer }[] | undefined;
  /** Why appends fail now; undefined while they succeed. */
  let failing: Error | undefined;
  let failures = 0;
  /** For a second after a refusal, changes are refused before they are made. */
  let refusedAt = -Infinity;
  /** Lines whose write failed, written before any later line so the log keeps its order. */
  const unwritten: Buffer[] = [];
  // everysec: one flush at a time, off the loop; a file replaced meanwhile is closed once flushed.
  let dirty = false;
  let flushing = false;
  const closeAfterFlush: number[] = [];
  const flush = (): void => {
    if (!dirty || flushing) return;
    dirty = false;
    flushing = true;
    fdatasync(fd, (error) => {
      flushing = false;
      if (error) onError(error);
      for (const old of closeAfterFlush.splice(0)) closeSync(old);
    });
  };
  const timer = fsync === 'everysec' ? setInterval(flush, 1000).unref() : undefined;

  /** Writes one line whole or not at all: a part written before a failure is cut off again. */
  const writeLine = (line: Buffer): void => {
    let done = 0;
    try {
      while (done < line.length) done += writeSync(fd, line, done, line.length - done);
    } catch (error) {
      // A torn line in the middle would make the log unreadable once more lines follow it.
      if (done > 0) ftruncateSync(fd, fstatSync(fd).size - done);
      throw error;
    }
  };

  /** Told once per run of failures: a full disk would otherwise log a line per change. */
  const failed = (error: Error): void => {
    if (!failing) onError(error);
    failing = error;
  };

  /** Writes what failed before, oldest first; false (and `failing` set) when the disk still refuses. */
  const writeUnwritten = (): boolean => {
    if (unwritten.length === 0) return true;
    try {
      while (unwritten.length > 0) {
        writeLine(unwritten[0]!);
        unwritten.shift();
      }
      if (fsync === 'always') fdatasyncSync(fd);
      else dirty = true;
      failing = undefined;
      return true;
    } catch (error) {
      failures++;
      failed(error as Error);
      return false;
    }
  };

  /** Counts lines written, keeps them for the snapshot under way, and asks for one when full. */
  const written = (entries: { seq: number; line: Buffer }[]): void => {
    for (const entry of entries) bytes += entry.line.length;
    kept?.push(...entries);
    if (bytes > maxBytes && !signalled) {
      signalled = true;
      onFull();
    }
  };
  const entryOf = (effect: EngineEffect): { seq: number; line: Buffer } => ({
    seq: effect.seq,
    line: Buffer.from(`${JSON.stringify(effect)}\n`),
  });

  return {
    write(effects) {
      const entries = effects.map(entryOf);
      const lines = Buffer.concat(entries.map((entry) => entry.line));
      // What failed before goes first, so the log keeps its order; then this change, whole.
      if (!writeUnwritten()) throw notWritten(failing!);
      try {
        writeLine(lines);
        if (fsync === 'always') {
          try {
            fdatasyncSync(fd);
          } catch (error) {
            // Not on the disk, so not kept: cut off again, as if never written.
            ftruncateSync(fd, fstatSync(fd).size - lines.length);
            throw error;
          }
        } else dirty = true;
      } catch (error) {
        failed(error as Error);
        refusedAt = Date.now();
        throw notWritten(error as Error);
      }
      failing = undefined;
      written(entries);
    },
    append(effect) {
      const entry = entryOf(effect);
      unwritten.push(entry.line);
      writeUnwritten();
      written([entry]);
    },
    get bytes() {
      return bytes;
    },
    get failures() {
      return failures;
    },
    check() {
      // Refused again at once, rather than made and put back, while the disk just refused.
      if (failing && Date.now() - refusedAt < 1000) return failing;
      return failing && !writeUnwritten() ? failing : undefined;
    },
    readBack() {
      // As a start reads them: the snapshot, the log's entries after it, then what is still unwritten.
      try {
        const saved = loadState(stateFile, { limit });
        const effects = readStateLog(file, { limit, after: saved?.logSeq ?? 0, warn: () => undefined });
        for (const line of unwritten) effects.push(JSON.parse(line.toString()) as EngineEffect);
        return { saved, effects };
      } catch (error) {
        onError(
          new Error(`the state could not be read back to put a change back: ${(error as Error).message}`),
        );
        throw notKept();
      }
    },
    get full() {
      return bytes > maxBytes;
    },
    beginSnapshot() {
      kept = [];
    },
    compact(seq) {
      const rest = (kept ?? []).filter((entry) => entry.seq > seq);
      kept = undefined;
      // Written whole beside the log and renamed over it, so a crash leaves one or the other.
      const data = Buffer.concat(rest.map((entry) => entry.line));
      replaceFile(file, data, fsync !== 'no');
      // The snapshot holds what was not written before it, the new log what came after it.
      unwritten.length = 0;
      failing = undefined;
      const old = fd;
      fd = openSync(file, 'a');
      if (flushing) closeAfterFlush.push(old);
      else closeSync(old);
      bytes = data.length;
      signalled = false;
    },
    abortSnapshot() {
      kept = undefined;
    },
    close() {
      clearInterval(timer);
      try {
        if (fsync !== 'no') fdatasyncSync(fd);
      } finally {
        if (!flushing) closeSync(fd);
        else closeAfterFlush.push(fd);
      }
    },
  };
}
