/**
 * One simulator per `--state` file: `FILE.lock` beside its real path, created exclusively with the
 * owner's pid; a lock whose process is gone is taken over (a pid tells a dead owner better than mtimes).
 */
import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CliError } from '../src/cli-error.ts';
import { realPathOf } from '../src/real-path.ts';

interface LockOwner {
  pid: number;
  startedAt: string;
}

/** Takes a state file's lock (CliError if a live process has it): `process.on('exit', lockStateFile(f))`. */
export function lockStateFile(file: string): () => void {
  const real = realPathOf(file);
  const lock = `${real}.lock`;
  // Named as the user wrote it, and by its real path when that differs (a symlink).
  const named = real === path.resolve(file) ? `'${file}'` : `'${file}' (the real file '${real}')`;
  const me: LockOwner = { pid: process.pid, startedAt: new Date().toISOString() };
  // Written whole, then linked (which fails when the lock exists): no lock is ever seen empty.
  const mine = `${lock}.${process.pid}.tmp`;
  try {
    writeFileSync(mine, JSON.stringify(me));
  } catch (error) {
    throw new CliError(
      `--state: cannot create the lock '${lock}' (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); check that the directory of ${named} exists and is writable.`,
    );
  }
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(mine, lock);
        break;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'EEXIST')
          throw new CliError(
            `--state: cannot create the lock '${lock}' (${code ?? (error as Error).message}).`,
          );
      }
      const stale = readText(lock);
      const owner = parseOwner(stale);
      if (owner && isAlive(owner.pid) && owner.pid !== process.pid)
        throw new CliError(
          `--state: ${named} is in use by process ${owner.pid} (since ${owner.startedAt}, lock ${lock}); two simulators on one file would lose each other's orders. ` +
            `Stop that simulator, or give this one another --state file; if process ${owner.pid} is no simulator, delete ${lock}.`,
        );
      // Stale (its process is gone) or unreadable: taken over, once.
      if (attempt > 0)
        throw new CliError(
          `--state: could not take over the stale lock '${lock}'; delete it and start again.`,
        );
      try {
        // Only the stale lock read above, not one another process took over meanwhile.
        if (readText(lock) === stale) unlinkSync(lock);
      } catch {
        // Gone already; the next attempt finds out whose it is now.
      }
    }
  } finally {
    unlinkSync(mine);
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    // Only our own lock: never one that another process took over after ours went stale.
    if (parseOwner(readText(lock))?.pid === me.pid) {
      try {
        unlinkSync(lock);
      } catch {
        // Already gone.
      }
    }
  };
}

function readText(lock: string): string | undefined {
  try {
    return readFileSync(lock, 'utf8');
  } catch {
    return undefined;
  }
}

function parseOwner(text: string | undefined): LockOwner | undefined {
  try {
    const owner = JSON.parse(text ?? '') as Partial<LockOwner>;
    return Number.isSafeInteger(owner.pid)
      ? { pid: owner.pid!, startedAt: String(owner.startedAt) }
      : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
