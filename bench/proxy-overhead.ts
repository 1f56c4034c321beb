/**
 * What `serve --upstream` costs: GET /v1/tron/price straight from a simulator,
 * and the same request through a second simulator started as its proxy, at the same
 * connections. Runs alternate (direct, proxy, bare proxy, direct, …) so all see the same
 * machine; medians are reported. The proxy forwards, checks the answer against the spec
 * and journals it; the upstream is the same kind of process in every run.
 *
 * Two upstreams are measured:
 * - one that answers at once (its fast path, ~15 µs of CPU a request): the proxy's own
 *   CPU is then the limit, on cores it shares with the upstream and the load generator;
 * - one that answers after `latencyMs` on average (an injected latency fault, drawn from
 *   half to one and a half times it), as a real service across a network does: the
 *   proxy's cost then shows as added latency, not as lost throughput, which is how an
 *   app in front of the real service meets it.
 *
 * `bench/bare-proxy.mjs` (forwarding over node:http, nothing else) is measured beside it:
 * no proxy in JavaScript on this machine does better, so it is the ceiling to compare with.
 */
import { watchCpu } from './cpu.ts';
import { runLoad, type LoadOptions, type LoadResult } from './load.ts';
import { AUTH, priceTarget } from './requests.ts';
import { DEFAULT_SERVE_ARGS, startServer, type RunningServer } from './servers.ts';
import { median } from './stats.ts';

export interface LoadSummary {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** CPU time (user + system, /proc) of the server the load was sent to, per request, µs; warm-up included at its own rate. */
  cpuUsPerReq: number;
}

export interface ProxyOverheadCase {
  /** The upstream's own delay per answer, ms (0: it answers at once). */
  upstreamLatencyMs: number;
  direct: LoadSummary;
  proxied: LoadSummary;
  /** The same upstream through bench/bare-proxy.mjs. */
  bareProxy: LoadSummary;
  /** Proxied req/s over direct req/s. */
  ratio: number;
  /** Bare proxy req/s over direct req/s: the best any proxy here reaches. */
  bareRatio: number;
  p50AddedMs: number;
  p99AddedMs: number;
  valid: boolean;
}

export interface ProxyOverhead {
  cases: ProxyOverheadCase[];
}

type MeasuredRun = LoadResult & { cpuUsPerReq: number };

function summary(runs: MeasuredRun[]): LoadSummary {
  return {
    rps: median(runs.map((r) => r.rps)),
    p50Ms: median(runs.map((r) => r.p50Ms)),
    p99Ms: median(runs.map((r) => r.p99Ms)),
    cpuUsPerReq: median(runs.map((r) => r.cpuUsPerReq)),
  };
}

/** One load run, with the CPU the server under load used per request. */
async function measured(server: RunningServer, load: LoadOptions): Promise<MeasuredRun> {
  const stop = watchCpu([server.pid]);
  const result = await runLoad(priceTarget(server), load);
  const cores = stop().cores[server.pid] ?? NaN;
  return { ...result, cpuUsPerReq: (cores / result.rps) * 1e6 };
}

async function injectLatency(upstream: RunningServer, latencyMs: number): Promise<void> {
  const response = await fetch(`${upstream.url}/_sim/faults`, {
    method: 'POST',
    headers: { ...AUTH, 'content-type': 'application/json' },
    // A range, as a real service's times vary: one fixed delay would send the 32 connections'
    // requests back in lockstep, and the proxy would meet them as waves of 32 at once.
    body: JSON.stringify({
      operation: 'getPrice',
      latencyMs: latencyMs / 2,
      latencyMaxMs: (latencyMs * 3) / 2,
    }),
  });
  if (!response.ok)
    throw new Error(
      `bench: the upstream refused a ${latencyMs} ms latency fault: HTTP ${response.status} ${await response.text()}`,
    );
}

/**
 * Loads each upstream directly, through the proxy and through the bare proxy, `repeat`
 * times each.
 *
 * @example
 *   const overhead = await measureProxyOverhead({ root, load, repeat: 3, upstreamLatenciesMs: [0, 20] });
 */
export async function measureProxyOverhead(options: {
  root: string;
  load: LoadOptions;
  repeat: number;
  upstreamLatenciesMs: number[];
}): Promise<ProxyOverhead> {
  const cases: ProxyOverheadCase[] = [];
  for (const latencyMs of options.upstreamLatenciesMs) {
    const upstream = await startServer({
      kind: 'sim',
      root: options.root,
      serveArgs: [...DEFAULT_SERVE_ARGS, '--quiet'],
    });
    const proxy = await startServer({
      kind: 'sim',
      root: options.root,
      serveArgs: ['--quiet', '--upstream', upstream.url],
    });
    const bare = await startServer({ kind: 'bare-proxy', upstream: upstream.url });
    try {
      if (latencyMs > 0) await injectLatency(upstream, latencyMs);
      const direct: MeasuredRun[] = [];
      const proxied: MeasuredRun[] = [];
      const bareRuns: MeasuredRun[] = [];
      for (let i = 0; i < options.repeat; i++) {
        direct.push(await measured(upstream, options.load));
        proxied.push(await measured(proxy, options.load));
        bareRuns.push(await measured(bare, options.load));
      }
      const d = summary(direct);
      const p = summary(proxied);
      const b = summary(bareRuns);
      cases.push({
        upstreamLatencyMs: latencyMs,
        direct: d,
        proxied: p,
        bareProxy: b,
        ratio: p.rps / d.rps,
        bareRatio: b.rps / d.rps,
        p50AddedMs: p.p50Ms - d.p50Ms,
        p99AddedMs: p.p99Ms - d.p99Ms,
        valid: [...direct, ...proxied, ...bareRuns].every((r) => r.valid),
      });
    } finally {
      await bare.stop();
      await proxy.stop();
      await upstream.stop();
    }
  }
  return { cases };
}
