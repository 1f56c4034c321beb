/** `--state FILE`: the state on disk, saved atomically (a flushed temporary file renamed over it). */
import { closeSync, fsyncSync, openSync, readdirSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import {
  SNAPSHOT_FORMAT,
  type Engine,
  type EngineSnapshot,
  type PendingSnapshot,
} from '../mock/engine/index.ts';
import { createValidators, loadSpec } from '../src/spec/loader.ts';
import { describeSchemaProblem } from '../src/spec/schema-problem.ts';
import {
  BoundedFileError,
  DEFAULT_FILE_LIMIT,
  readBoundedFile,
  type FileLimit,
} from '../src/bounded-file.ts';
import { CliError } from '../src/cli-error.ts';
import { realPathOf } from '../src/real-path.ts';
import type { StateLog } from './state-log.ts';

/** The format of the state files saved before the log of effects. */
const FORMAT_BEFORE_LOG = 'energy-rental-kit/state@1';

/** What to pass instead of a state path that is no regular file. */
export const STATE_FIX = 'pass the path of a state file, or of one to create';

/** Reads a state file of at most `limit`; undefined when there is none: `loadState('.state/sim.json')`. */
export function loadState(
  file: string,
  { limit = DEFAULT_FILE_LIMIT, source = '--state' }: { limit?: FileLimit; source?: string } = {},
): EngineSnapshot | undefined {
  let text: string;
  try {
    text = readBoundedFile(file, limit, STATE_FIX);
  } catch (error) {
    if (!(error instanceof BoundedFileError)) throw error;
    if (error.rule === 'missing') return undefined;
    if (error.rule === 'unreadable') throw new CliError(`${source}: cannot read '${file}' (${error.code}).`);
    throw new CliError(`${source}: ${error.message}`);
  }
  let parsed: { format?: unknown; logSeq?: unknown } | null;
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch (error) {
    throw new CliError(
      `${source}: '${file}' is not valid JSON (${(error as Error).message}). Move it away to start afresh; it is left untouched.`,
    );
  }
  // A file saved before the log of effects holds the state of no log entry: logSeq 0.
  if (parsed?.format === FORMAT_BEFORE_LOG) parsed = { ...parsed, format: SNAPSHOT_FORMAT, logSeq: 0 };
  if (parsed?.format !== SNAPSHOT_FORMAT) {
    throw new CliError(
      `${source}: '${file}' is not a simulator state of format ${SNAPSHOT_FORMAT}. Move it away to start afresh; it is left untouched.`,
    );
  }
  const problems = stateFileProblems(parsed);
  if (problems.length > 0) {
    throw new CliError(
      `${source}: '${file}' is refused, it does not match the StateFile schema (spec/control.yaml): ${problems.join('; ')}. Mend it or move it away to start afresh; it is left untouched.`,
    );
  }
  return parsed as unknown as EngineSnapshot;
}

/**
 * Where a parsed state file breaks spec/control.yaml's StateFile schema: at most ten problems.
 * @example
 *   stateFileProblems({ ...saved, seed: -1 }); // ['/seed: must be >= 0 (got -1)']
 */
export function stateFileProblems(parsed: unknown): string[] {
  const validate = createValidators(loadSpec('control')).schema('StateFile');
  if (validate(parsed)) return [];
  return (validate.errors ?? []).slice(0, 10).map((e) => describeSchemaProblem(e, parsed));
}

/** Replaces `file` atomically: `data` written whole beside it (flushed, with its directory, when `sync`) and renamed over it. */
export function replaceFile(file: string, data: string | Buffer, sync = true): void {
  const temporary = temporaryOf(file);
  const fd = openSync(temporary, 'w');
  try {
    writeFileSync(fd, data);
    if (sync) fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    unlinkSync(temporary);
    throw error;
  }
  closeSync(fd);
  renameSync(temporary, file);
  if (!sync) return;
  // A rename is on the disk once its directory is: what power loss needs besides the file's own flush.
  const dir = openSync(path.dirname(file), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}

let temporaries = 0;
/** A temporary file beside `file`, where a rename over it is atomic: `.NAME.PID.N.tmp`. */
export const temporaryOf = (file: string): string =>
  path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${temporaries++}.tmp`);

/**
 * Removes the temporary files dead saves of a state file and its log left, and returns their paths.
 * Call it holding the file's lock: `for (const gone of removeLeftovers(file)) log.warn(gone)`.
 */
export function removeLeftovers(file: string): string[] {
  const real = realPathOf(file);
  const dir = path.dirname(real);
  const name = path.basename(real).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const leftover = new RegExp(`^\\.${name}(\\.log)?\\.\\d+\\.\\d+\\.tmp$`);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const entry of names) {
    if (!leftover.test(entry)) continue;
    try {
      unlinkSync(path.join(dir, entry));
      removed.push(path.join(dir, entry));
    } catch {
      // Gone already, or not ours to remove: the next start tries again.
    }
  }
  return removed;
}

/** Orders turned into JSON per step, so a large state never holds the loop long. */
const ORDERS_PER_CHUNK = 500;

/**
 * Writes a snapshot atomically, its orders a chunk at a time; resolves false, leaving the old file,
 * when `cancelled()` turns true: `await writeStateInChunks(file, engine.snapshotLater())`.
 */
export async function writeStateInChunks(
  file: string,
  pending: PendingSnapshot,
  cancelled: () => boolean = () => false,
): Promise<boolean> {
  const temporary = temporaryOf(file);
  const handle = await open(temporary, 'w');
  let done = false;
  try {
    // `orders` is the snapshot's last key, so the head's JSON ends in its empty array.
    const head = JSON.stringify({ ...pending.head, orders: [] });
    await handle.write(head.slice(0, -2));
    for (let first = true; !cancelled(); first = false) {
      const chunk = pending.next(ORDERS_PER_CHUNK);
      if (chunk.length === 0) break;
      await handle.write((first ? '' : ',') + chunk.map((order) => JSON.stringify(order)).join(','));
    }
    if (!cancelled()) {
      await handle.write(']}');
      await handle.sync();
      done = true;
    }
  } finally {
    pending.close();
    await handle.close();
    if (!done || cancelled()) await unlink(temporary).catch(() => undefined);
  }
  if (!done || cancelled()) return false;
  await rename(temporary, file);
  return true;
}

/**
 * Saves the engine's state `intervalMs` after the last save ended when it changed, and at once
 * on demand; each save then compacts the log. Saves go to the real path of `file`, so a
 * symlink keeps pointing at the state.
 * @example
 *   const saver = startSaver(engine, '.state/sim.json', 1000, console.error, log);
 *   process.on('SIGTERM', () => { saver.stop(); saver.saveNow(); process.exit(0); });
 */
export function startSaver(
  engine: Engine,
  file: string,
  intervalMs: number,
  onError: (error: Error) => void,
  log?: StateLog,
): { saveNow(): void; soon(): void; stop(): void; settled(): Promise<void> } {
  const target = realPathOf(file);
  let savedVersion = -1;
  let savedNow = Number.NaN;
  let stopped = false;
  /** Moves on with every synchronous save, cancelling a chunked one under way. */
  let generation = 0;
  let running: Promise<void> = Promise.resolve();
  let busy = false;
  // A manual clock's time is state as well (a restart resumes from it); a real clock's is not.
  const unchanged = (): boolean =>
    engine.version === savedVersion && !(engine.clock.mode === 'manual' && engine.clock.now() !== savedNow);
  const saveNow = (): void => {
    if (unchanged()) return;
    const version = engine.version;
    const now = engine.clock.now();
    try {
      const snapshot = engine.snapshot();
      replaceFile(target, JSON.stringify(snapshot));
      savedVersion = version;
      savedNow = now;
      log?.compact(snapshot.logSeq);
    } catch (error) {
      onError(error as Error);
    }
  };
  let timer: NodeJS.Timeout | undefined;
  const schedule = (): void => {
    if (stopped) return;
    clearTimeout(timer);
    // A log still past its cap (it grew while the snapshot was written) is compacted again at once.
    timer = setTimeout(tick, log?.full ? 0 : intervalMs);
    timer.unref();
  };
  const tick = (): void => {
    if (busy) return;
    if (unchanged()) return schedule();
    const version = engine.version;
    const now = engine.clock.now();
    const mine = generation;
    busy = true;
    // What is appended from here on is the log after this snapshot.
    log?.beginSnapshot();
    const pending = engine.snapshotLater();
    const seq = pending.head.logSeq;
    running = writeStateInChunks(target, pending, () => stopped || generation !== mine)
      .then((written) => {
        if (written) {
          savedVersion = version;
          savedNow = now;
          log?.compact(seq);
        } else if (generation === mine) log?.abortSnapshot();
      })
      .catch((error: Error) => {
        if (generation === mine) log?.abortSnapshot();
        onError(error);
      })
      .finally(() => {
        busy = false;
      });
    void running.then(schedule);
  };
  saveNow();
  schedule();
  return {
    // Synchronous, for a shutdown; a save under way is cancelled so it cannot rename an older state over it.
    saveNow: () => {
      generation++;
      saveNow();
    },
    soon: () => {
      if (!stopped && !busy) {
        clearTimeout(timer);
        timer = setTimeout(tick, 0);
        timer.unref();
      }
    },
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
    settled: () => running,
  };
}
