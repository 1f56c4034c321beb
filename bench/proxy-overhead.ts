/**
 * What `serve --upstream` costs (issue 16): GET /v1/tron/price straight from a simulator,
 * and the same request through a second simulator started as its proxy, at the same
 * connections. Runs alternate (direct, proxy, direct, …) so both see the same machine;
 * medians are reported. The proxy forwards, checks the answer against the spec and
 * journals it; the upstream is the same kind of process in both runs.
 */
import { runLoad, type LoadOptions, type LoadResult } from './load.ts';
import { priceTarget } from './requests.ts';
import { DEFAULT_SERVE_ARGS, startServer } from './servers.ts';
import { median } from './stats.ts';

export interface ProxyOverhead {
  direct: { rps: number; p50Ms: number; p99Ms: number };
  proxied: { rps: number; p50Ms: number; p99Ms: number };
  /** Proxied req/s over direct req/s. */
  ratio: number;
  p50AddedMs: number;
  p99AddedMs: number;
  valid: boolean;
}

function summary(runs: LoadResult[]): ProxyOverhead['direct'] {
  return { rps: median(runs.map((r) => r.rps)), p50Ms: median(runs.map((r) => r.p50Ms)), p99Ms: median(runs.map((r) => r.p99Ms)) };
}

/**
 * Loads the upstream directly and through the proxy, `repeat` times each.
 *
 * @example
 *   const overhead = await measureProxyOverhead({ root, load, repeat: 3 });
 */
export async function measureProxyOverhead(options: { root: string; load: LoadOptions; repeat: number }): Promise<ProxyOverhead> {
  const quiet = [...DEFAULT_SERVE_ARGS, '--quiet'];
  const upstream = await startServer({ kind: 'sim', root: options.root, serveArgs: quiet });
  const proxy = await startServer({ kind: 'sim', root: options.root, serveArgs: ['--quiet', '--upstream', upstream.url] });
  try {
    const direct: LoadResult[] = [];
    const proxied: LoadResult[] = [];
    for (let i = 0; i < options.repeat; i++) {
      direct.push(await runLoad(priceTarget(upstream), options.load));
      proxied.push(await runLoad(priceTarget(proxy), options.load));
    }
    const d = summary(direct);
    const p = summary(proxied);
    return {
      direct: d,
      proxied: p,
      ratio: p.rps / d.rps,
      p50AddedMs: p.p50Ms - d.p50Ms,
      p99AddedMs: p.p99Ms - d.p99Ms,
      valid: [...direct, ...proxied].every((r) => r.valid),
    };
  } finally {
    await proxy.stop();
    await upstream.stop();
  }
}
