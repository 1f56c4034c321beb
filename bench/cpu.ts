/**
 * How busy the machine was during a measurement, from /proc (Linux only; elsewhere the
 * figures are NaN): the CPU used by the processes under test, and by everything else.
 * "Foreign" CPU is time spent by processes that are not part of the measurement (another
 * build or test run on this machine), in cores; a run with much of it is suspect.
 */
import { readFileSync } from 'node:fs';

const HZ = 100; // USER_HZ: /proc counts in 1/100 s on every Linux Node supports.

function systemBusyTicks(): number {
  try {
    const fields = readFileSync('/proc/stat', 'utf8')
      .split('\n', 1)[0]!
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
    return user + nice + system + irq + softirq + steal;
  } catch {
    return NaN;
  }
}

function processTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may contain spaces; fields after ')' are fixed.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]); // utime, stime
  } catch {
    return NaN;
  }
}

export interface CpuUsage {
  /** Cores used by each watched pid over the window. */
  cores: Record<number, number>;
  /** Cores used by everything else on the machine over the window. */
  foreignCores: number;
  seconds: number;
}

/** Starts watching; call the returned function at the end of the window. */
export function watchCpu(pids: number[]): () => CpuUsage {
  const t0 = performance.now();
  const busy0 = systemBusyTicks();
  const own0 = pids.map(processTicks);
  return () => {
    const seconds = (performance.now() - t0) / 1000;
    const busy = systemBusyTicks() - busy0;
    const own = pids.map((pid, i) => processTicks(pid) - own0[i]!);
    const cores: Record<number, number> = {};
    pids.forEach((pid, i) => (cores[pid] = own[i]! / HZ / seconds));
    const ownTotal = own.reduce((a, b) => a + b, 0);
    return { cores, foreignCores: Math.max(0, (busy - ownTotal) / HZ / seconds), seconds };
  };
}

/**
 * Waits until the rest of the machine is quiet: other processes (not `ownPids`) using
 * less than `limitCores` over two consecutive half-second windows. Gives up after
 * `maxWaitMs` and returns how long it waited and the last load seen.
 */
export async function waitForQuiet(
  ownPids: number[],
  limitCores: number,
  maxWaitMs: number,
): Promise<{ waitedMs: number; foreignCores: number }> {
  const started = performance.now();
  let quietWindows = 0;
  let last = NaN;
  while (performance.now() - started < maxWaitMs) {
    const stop = watchCpu(ownPids);
    await new Promise((resolve) => setTimeout(resolve, 500));
    last = stop().foreignCores;
    if (!Number.isFinite(last)) break; // no /proc: nothing to wait for
    quietWindows = last < limitCores ? quietWindows + 1 : 0;
    if (quietWindows >= 2) break;
  }
  return { waitedMs: performance.now() - started, foreignCores: last };
}
