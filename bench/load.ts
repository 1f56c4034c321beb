/**
 * One load run with autocannon's programmatic API: a warm-up that is thrown away, then
 * a measured run of fixed duration at a fixed number of connections.
 *
 * Latency percentiles are computed here from every response's own time (sub-millisecond),
 * because autocannon's histogram has 1 ms resolution and the target is p99 <= 2 ms.
 * Every response must be HTTP 2xx with a body starting `{"code":0,` (or, for a target that
 * expects a rejection, its status and code); anything else is counted (non2xx, mismatches,
 * errors, timeouts) and makes the run invalid.
 */
import autocannon from 'autocannon';
import { percentile } from './stats.ts';

export interface LoadTarget {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** The answer every request must get, when it is not a success: a rejection's status and code. */
  expect?: { status: number; code: number };
}

export interface LoadOptions {
  connections: number;
  durationS: number;
  warmupS: number;
}

export interface LoadResult {
  /** Mean of autocannon's per-second samples of completed requests. */
  rps: number;
  requests: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Answers of another status than the target's (a non-2xx one, unless it expects a rejection). */
  non2xx: number;
  mismatches: number;
  errors: number;
  timeouts: number;
  /** True when every response was 2xx with code 0 and there was no error or timeout. */
  valid: boolean;
}

/** Whether a status is not the one the target expects (a 2xx unless it expects a rejection). */
function unexpectedStatus(target: LoadTarget, status: number): boolean {
  return target.expect ? status !== target.expect.status : status < 200 || status >= 300;
}

/** Runs autocannon; `other` counts the answers of another status than the target's. */
async function cannon(
  target: LoadTarget,
  connections: number,
  durationS: number,
  onLatency?: (ms: number) => void,
) {
  const prefix = `{"code":${target.expect?.code ?? 0},`;
  let other = 0;
  const instance = autocannon({
    url: target.url,
    connections,
    duration: durationS,
    method: target.method ?? 'GET',
    headers: target.headers ?? {},
    ...(target.body !== undefined ? { body: target.body } : {}),
    timeout: 10,
    verifyBody: (body: string) => body.startsWith(prefix),
  });
  instance.on('response', (_client, status, _bytes, ms) => {
    if (unexpectedStatus(target, status)) other++;
    else onLatency?.(ms);
  });
  const result = await instance;
  return { ...result, other };
}

/** Runs the warm-up and then the measured load. */
export async function runLoad(target: LoadTarget, options: LoadOptions): Promise<LoadResult> {
  if (options.warmupS > 0) {
    const warm = await cannon(target, options.connections, options.warmupS);
    if (warm.errors + warm.other + warm.mismatches > 0) {
      const status = target.expect ? `other than ${target.expect.status}` : 'non-2xx';
      throw new Error(
        `${target.method ?? 'GET'} ${target.url}: the warm-up saw ${warm.other} answers ${status}, ${warm.mismatches} bodies without code ${target.expect?.code ?? 0} and ${warm.errors} errors.`,
      );
    }
  }
  let latencies = new Float64Array(1 << 18);
  let n = 0;
  const result = await cannon(target, options.connections, options.durationS, (ms) => {
    if (n === latencies.length) {
      const grown = new Float64Array(latencies.length * 2);
      grown.set(latencies);
      latencies = grown;
    }
    latencies[n++] = ms;
  });
  const sorted = latencies.subarray(0, n).sort();
  return {
    rps: result.requests.mean,
    requests: n,
    p50Ms: percentile(sorted, 50),
    p90Ms: percentile(sorted, 90),
    p99Ms: percentile(sorted, 99),
    maxMs: n > 0 ? sorted[n - 1]! : NaN,
    non2xx: result.other,
    mismatches: result.mismatches,
    errors: result.errors,
    timeouts: result.timeouts,
    valid:
      result.other === 0 && result.mismatches === 0 && result.errors === 0 && result.timeouts === 0 && n > 0,
  };
}
