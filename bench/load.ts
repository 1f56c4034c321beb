/**
 * One load run with autocannon's programmatic API: a warm-up that is thrown away, then
 * a measured run of fixed duration at a fixed number of connections.
 *
 * Latency percentiles are computed here from every response's own time (sub-millisecond),
 * because autocannon's histogram has 1 ms resolution and the target is p99 <= 2 ms.
 * Every response must be HTTP 2xx with a body starting `{"code":0,`; anything else is
 * counted (non2xx, mismatches, errors, timeouts) and makes the run invalid.
 */
import autocannon from 'autocannon';
import { percentile } from './stats.ts';

export interface LoadTarget {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
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
  non2xx: number;
  mismatches: number;
  errors: number;
  timeouts: number;
  /** True when every response was 2xx with code 0 and there was no error or timeout. */
  valid: boolean;
}

const SUCCESS_PREFIX = '{"code":0,';
const verifyBody = (body: string): boolean => body.startsWith(SUCCESS_PREFIX);

function cannon(
  target: LoadTarget,
  connections: number,
  durationS: number,
  onLatency?: (ms: number, status: number) => void,
) {
  const instance = autocannon({
    url: target.url,
    connections,
    duration: durationS,
    method: target.method ?? 'GET',
    headers: target.headers ?? {},
    ...(target.body !== undefined ? { body: target.body } : {}),
    timeout: 10,
    verifyBody,
  });
  if (onLatency) instance.on('response', (_client, status, _bytes, ms) => onLatency(ms, status));
  return instance;
}

/** Runs the warm-up and then the measured load. */
export async function runLoad(target: LoadTarget, options: LoadOptions): Promise<LoadResult> {
  if (options.warmupS > 0) {
    const warm = await cannon(target, options.connections, options.warmupS);
    if (warm.errors + warm.non2xx + warm.mismatches > 0) {
      throw new Error(
        `${target.method ?? 'GET'} ${target.url}: the warm-up saw ${warm.non2xx} non-2xx, ${warm.mismatches} bodies without code 0 and ${warm.errors} errors.`,
      );
    }
  }
  let latencies = new Float64Array(1 << 18);
  let n = 0;
  const result = await cannon(target, options.connections, options.durationS, (ms, status) => {
    if (status < 200 || status >= 300) return;
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
    non2xx: result.non2xx,
    mismatches: result.mismatches,
    errors: result.errors,
    timeouts: result.timeouts,
    valid:
      result.non2xx === 0 && result.mismatches === 0 && result.errors === 0 && result.timeouts === 0 && n > 0,
  };
}
