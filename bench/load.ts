/** One autocannon run, in process; an answer not a 2xx starting `{"code":0,` makes it invalid. */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** The part of autocannon's API used here (it ships no types). */
interface Autocannon extends PromiseLike<{
  duration: number;
  errors: number;
  timeouts: number;
  mismatches: number;
}> {
  on(event: 'response', listener: (client: unknown, status: number, bytes: number, ms: number) => void): void;
}
const autocannon = createRequire(import.meta.url)('autocannon') as (options: object) => Autocannon;

export interface LoadTarget {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadResult {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers that were not a 2xx with code 0, errors and timeouts. */
  bad: number;
  /** CPU time (user + system) the server's process spent per answer, µs; NaN off Linux. */
  cpuUs: number;
}

/** CPU time (user + system) process `pid` has used so far, ms, from /proc. */
function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [user, system] = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .slice(11, 13)
      .map(Number);
    return (user! + system!) * 10;
  } catch {
    return NaN;
  }
}

/** Loads `target`, served by process `pid`, with `connections` for `seconds`: `await runLoad(target, pid, 32, 4)`. */
export async function runLoad(
  target: LoadTarget,
  pid: number,
  connections: number,
  seconds: number,
): Promise<LoadResult> {
  const cpuBefore = cpuMs(pid);
  const latencies: number[] = [];
  let other = 0;
  const instance = autocannon({
    url: target.url,
    method: target.method ?? 'GET',
    headers: target.headers ?? {},
    ...(target.body === undefined ? {} : { body: target.body }),
    connections,
    duration: seconds,
    timeout: 10,
    verifyBody: (body: string) => body.startsWith('{"code":0,'),
  });
  instance.on('response', (_client, status, _bytes, ms) => {
    if (status >= 200 && status < 300) latencies.push(ms);
    else other++;
  });
  const result = await instance;
  const cpuUs = ((cpuMs(pid) - cpuBefore) * 1000) / (latencies.length + other);
  latencies.sort((a, b) => a - b);
  const at = (p: number): number =>
    latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? NaN;
  return {
    rps: (latencies.length + other) / result.duration,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    bad: other + result.mismatches + result.errors + result.timeouts + (latencies.length === 0 ? 1 : 0),
    cpuUs,
  };
}

/** The median; NaN for none. */
export function median(values: readonly number[]): number {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length === 0 ? NaN : sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
