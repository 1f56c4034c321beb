/**
 * The upstream as the API's answer source (`serve --upstream URL`): every API call, any
 * method, under /v1 (and /api/v1) goes to the upstream behind the same front as the
 * engine's routes: the journal, faults and the rate limit first (api-stages.ts), then the
 * spending guard, then the upstream (upstream-forward.ts), whose answer is checked against
 * the spec as it passes (live-validation.ts) and passed on unaltered.
 *
 * The API key is forwarded and never kept: the journal keeps no header, and bodies and
 * queries are redacted as they are for the engine's routes.
 */
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { every } from 'hono/combine';
import { SimulatorError } from '../engine/index.ts';
import { API_OPERATIONS, findApiOperation, withoutApiPrefix } from './api-operations.ts';
import type { ApiStage } from './api-stages.ts';
import type { SimEnv } from './context.ts';
import type { LiveValidation } from './live-validation.ts';
import type { SpendGuard } from './spend-guard.ts';
import { readUpstreamAnswer } from './upstream-answer.ts';
import { DEFAULT_UPSTREAM_MAX_BYTES, forwardToUpstream, type UpstreamOptions } from './upstream-forward.ts';

export interface ProxyContext {
  upstream: UpstreamOptions;
  /** Proxy mode only: a replay spends nothing. */
  guard?: SpendGuard | undefined;
  /** Proxy mode only: a replay's answers were checked when they were recorded. */
  validation?: LiveValidation | undefined;
  /** What /_sim/health names as the upstream (a replay's recording); the upstream's URL when absent. */
  label?: string | undefined;
  /** Counts every call handed to the upstream, answered or not. */
  counters: { forwarded: number };
}

/**
 * Builds the proxy's routes (mounted at / and at /api, as the engine's are).
 *
 * @example
 *   app.route('/', proxyRoutes(proxy, stages));
 */
export function proxyRoutes(proxy: ProxyContext, stages: readonly ApiStage[]): Hono<SimEnv> {
  const routes = new Hono<SimEnv>();
  const named: MiddlewareHandler<SimEnv> = async (c, next) => {
    const op = findApiOperation(c.req.method, withoutApiPrefix(c.req.path));
    if (op) c.set('operation', op.id);
    await next();
  };
  // Faults and the rate limit apply before anything is forwarded: an app can be tried
  // against 429s, 5xx, latency and dropped connections while it talks to the real service.
  const pipeline = every(named, ...stages.map((s) => s.middleware));
  routes.all('/v1/*', pipeline, (c) => answer(c, proxy));
  return routes;
}

async function answer(c: Context<SimEnv>, proxy: ProxyContext): Promise<Response> {
  const operation = c.get('operation');
  if (operation === API_OPERATIONS.createOrder.id && proxy.guard) {
    const refusal = proxy.guard.admit();
    if (refusal) {
      c.set('refused', refusal);
      throw new SimulatorError('spendRefused', refusal);
    }
  }
  const body =
    c.req.method === 'GET' || c.req.method === 'HEAD' ? undefined : new Uint8Array(await c.req.arrayBuffer());
  proxy.counters.forwarded++;
  const answered = await forwardToUpstream(proxy.upstream, c.req.raw, body);
  const read = await readUpstreamAnswer(answered, proxy.upstream.maxBytes ?? DEFAULT_UPSTREAM_MAX_BYTES);
  c.set('responseBody', read.journal);
  if (operation && proxy.validation) {
    const violations = read.unchecked
      ? proxy.validation.unchecked(operation, answered.status, read.unchecked)
      : read.json !== undefined
        ? proxy.validation.check(operation, answered.status, read.json)
        : [];
    if (violations.length > 0) c.set('violations', violations);
  }
  // The answer is passed on as it came, still encoded if it was: the proxy reports drift,
  // it never hides it.
  return new Response(answered.body.byteLength > 0 ? answered.body : null, {
    status: answered.status,
    headers: answered.headers,
  });
}
