/**
 * `--state FILE`: the simulator's state on disk. Saved atomically, a temporary file
 * written and flushed and then renamed over the old one, so a crash at any moment
 * leaves either the previous state or the new one, never half of one.
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import path from 'node:path';
import { isEngineSnapshot, SNAPSHOT_FORMAT, type Engine, type EngineSnapshot } from '../engine/index.ts';
import { CliError } from './cli-error.ts';

/**
 * Reads a state file; undefined when there is none yet.
 *
 * @example
 *   const restore = loadState('.state/sim.json'); // undefined on the first start
 */
export function loadState(file: string): EngineSnapshot | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CliError(`--state: cannot read '${file}' (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new CliError(`--state: '${file}' is not valid JSON (${(error as Error).message}). Move it away to start afresh; it is left untouched.`);
  }
  if (!isEngineSnapshot(parsed)) {
    throw new CliError(`--state: '${file}' is not a simulator state of format ${SNAPSHOT_FORMAT}. Move it away to start afresh; it is left untouched.`);
  }
  return parsed;
}

/** Writes the state atomically. */
export function saveState(file: string, snapshot: EngineSnapshot): void {
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  const fd = openSync(temporary, 'w');
  try {
    writeSync(fd, JSON.stringify(snapshot));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, file);
}

/**
 * Saves the engine's state every `intervalMs` when it changed, and on demand.
 *
 * @example
 *   const saver = startSaver(engine, '.state/sim.json', 1000);
 *   process.on('SIGTERM', () => { saver.saveNow(); process.exit(0); });
 */
export function startSaver(engine: Engine, file: string, intervalMs: number, onError: (error: Error) => void): { saveNow(): void; stop(): void } {
  let savedVersion = -1;
  let savedNow = Number.NaN;
  // A manual clock's time is state as well (a restart resumes from it); a real clock's is not.
  const clockMoved = (): boolean => engine.clock.mode === 'manual' && engine.clock.now() !== savedNow;
  const saveNow = (): void => {
    if (engine.version === savedVersion && !clockMoved()) return;
    const version = engine.version;
    const now = engine.clock.now();
    try {
      saveState(file, engine.snapshot());
      savedVersion = version;
      savedNow = now;
    } catch (error) {
      onError(error as Error);
    }
  };
  saveNow();
  const timer = setInterval(saveNow, intervalMs);
  timer.unref();
  return { saveNow, stop: () => clearInterval(timer) };
}
