/**
 * One simulator per `--state` file: `FILE.lock`, created exclusively (O_EXCL) and holding
 * the owner's pid and start time. Two processes saving one file would each overwrite the
 * other's orders. A lock whose process is gone (a crash, SIGKILL) is taken over.
 * Hand-written: the lock libraries on npm (proper-lockfile) lock by mtime polling, which
 * a stopped process keeps fresh no better than a pid check does.
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { CliError } from './cli-error.ts';

interface LockOwner {
  pid: number;
  startedAt: string;
}

/**
 * Takes the lock of a state file; returns the function that releases it.
 *
 * @example
 *   const release = lockStateFile('.state/sim.json'); // throws a CliError when another live process has it
 *   process.on('exit', release);
 */
export function lockStateFile(file: string): () => void {
  const lock = `${file}.lock`;
  const me: LockOwner = { pid: process.pid, startedAt: new Date().toISOString() };
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(lock, 'wx');
      try {
        writeSync(fd, JSON.stringify(me));
      } finally {
        closeSync(fd);
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new CliError(`--state: cannot create the lock '${lock}' (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`);
      }
      const owner = readOwner(lock);
      if (owner && isAlive(owner.pid) && owner.pid !== process.pid) {
        throw new CliError(
          `--state: '${file}' is in use by process ${owner.pid} (since ${owner.startedAt}, lock ${lock}); two simulators on one file would lose each other's orders. ` +
            `Stop that simulator, or give this one another --state file; if process ${owner.pid} is no simulator, delete ${lock}.`,
        );
      }
      // Stale (its process is gone) or unreadable: take it over, once.
      if (attempt > 0) throw new CliError(`--state: could not take over the stale lock '${lock}'; delete it and start again.`);
      try {
        unlinkSync(lock);
      } catch {
        // Another process took it over first; the next attempt finds out whose it is.
      }
    }
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    // Only our own lock: never one that another process took over after ours went stale.
    if (readOwner(lock)?.pid === me.pid) {
      try {
        unlinkSync(lock);
      } catch {
        // Already gone.
      }
    }
  };
}

function readOwner(lock: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(readFileSync(lock, 'utf8')) as Partial<LockOwner>;
    return Number.isSafeInteger(owner.pid) ? { pid: owner.pid!, startedAt: String(owner.startedAt) } : undefined;
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
