/**
 * The upstream as the API's answer source (`serve --upstream URL`). What may go upstream is
 * decided first, from the method and the request target as sent (edge-classifier.ts): only
 * the exact canonical spelling of a documented operation with its documented method is
 * forwarded; any other spelling of an API path is answered here (404 naming the canonical
 * path, or 405 naming the method), and counts as an order attempt when it spells the order
 * path. Paths that are not the API stay here unless `--forward-unknown`, which lets GET and
 * HEAD through, never on a path with an `order` segment.
 *
 * A forwarded request passes the same stages as the engine's routes (the journal, faults,
 * the rate limit), then the spending guard (spend-guard.ts), then the upstream
 * (upstream-forward.ts), whose answer is checked against the spec as it passes
 * (live-validation.ts) and passed on unaltered.
 *
 * The API key is forwarded and never kept: the journal keeps no header, and bodies and
 * queries are redacted as they are for the engine's routes.
 */
import type { IncomingMessage } from 'node:http';
import { Hono, type Context } from 'hono';
import { loadSpec } from '../../src/spec/loader.ts';
import { parseUnits, SimulatorError } from '../engine/index.ts';
import { API_OPERATIONS, API_PATHS_NAMED, findApiOperation, withoutApiPrefix } from './api-operations.ts';
import type { ApiStage } from './api-stages.ts';
import type { SimEnv } from './context.ts';
import { createEdgeClassifier, type EdgeVerdict } from './edge-classifier.ts';
import { replaceKeys, secretValuesOf, type KeyAliases } from './journal-redaction.ts';
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
  /** Forward GET and HEAD of paths that are not the API (`--forward-unknown`). */
  forwardUnknown?: boolean | undefined;
  /** Proxy mode: the aliases of the keys seen, which every kept copy holds instead of them. */
  aliases?: KeyAliases | undefined;
}

/** Paths the simulator answers itself in every mode: never forwarded, whatever the flags. */
const LOCAL_PATHS = /^\/(_sim|docs)(\/|$)/;
/** What a replay answers from its recording. */
const API_NAMESPACE = /^(\/api)?\/v1\//;

/**
 * Builds the proxy's routes: one catch-all, mounted after the control plane and the docs.
 *
 * @example
 *   app.route('/', proxyRoutes(proxy, stages));
 */
export function proxyRoutes(proxy: ProxyContext, stages: readonly ApiStage[]): Hono<SimEnv> {
  const routes = new Hono<SimEnv>();
  const classify = createEdgeClassifier(loadSpec('api').operations);
  routes.all(
    '*',
    async (c, next) => {
      if (LOCAL_PATHS.test(c.req.path)) return c.notFound();
      if (!proxy.guard) {
        // A replay spends nothing and serves what was recorded, unknown paths and wrong
        // methods the suite asked included: everything under the API's /v1 goes to it.
        if (!API_NAMESPACE.test(c.req.path)) return c.notFound();
        const op = findApiOperation(c.req.method, withoutApiPrefix(c.req.path));
        if (op) c.set('operation', op.id);
        return next();
      }
      c.set('keyEcho', keysOf(c, proxy.aliases));
      const verdict = classify(c.req.method, rawTarget(c));
      if (verdict.kind === 'api') c.set('operation', verdict.operationId);
      else if (!forwardsUnknown(verdict, c.req.method, proxy)) {
        if (verdict.order) proxy.guard?.refuse();
        throw refusal(verdict, c.req.method, c.req.path);
      }
      await next();
    },
    // Faults and the rate limit apply before anything is forwarded: an app can be tried
    // against 429s, 5xx, latency and dropped connections while it talks to the real service.
    ...stages.map((s) => s.middleware),
    (c) => forward(c, proxy),
  );
  return routes;
}

/** The request's keys with their aliases: its API-KEY, and secret-named query parameters. */
function keysOf(c: Context<SimEnv>, aliases: KeyAliases | undefined): Array<[string, string]> {
  if (!aliases) return [];
  const keys = secretValuesOf(new URL(c.req.url).search.slice(1));
  const header = c.req.header('api-key');
  if (header) keys.unshift(header);
  return keys.map((key) => [key, aliases.alias(key)]);
}

function forwardsUnknown(verdict: EdgeVerdict, method: string, proxy: ProxyContext): boolean {
  return (
    verdict.kind === 'unknown' &&
    !verdict.order &&
    proxy.forwardUnknown === true &&
    (method === 'GET' || method === 'HEAD')
  );
}

/** The error a request not forwarded gets, naming what would be forwarded. */
function refusal(verdict: EdgeVerdict, method: string, path: string): SimulatorError {
  switch (verdict.kind) {
    case 'wrong-method':
      return new SimulatorError(
        'methodNotAllowed',
        `Method ${method} is not allowed on ${verdict.canonical}; use ${verdict.allowed}.${verdict.order ? ' Nothing was forwarded upstream.' : ''}`,
        { Allow: verdict.allowed },
      );
    case 'misspelled':
      return new SimulatorError(
        'notFound',
        `No such path: the proxy forwards ${verdict.canonical} only as spelled so; '${path}' is another spelling of it and was not forwarded upstream.`,
      );
    default:
      return new SimulatorError(
        'notFound',
        verdict.order
          ? `No such path: '${path}' names an order but is not the API's ${API_OPERATIONS.createOrder.path}; it was not forwarded upstream.`
          : `No such path: '${path}' is not part of the API (${API_PATHS_NAMED}), and the proxy forwards only the API; --forward-unknown forwards GET and HEAD of other paths.`,
      );
  }
}

/**
 * The request target as sent: the Node server's own, else (in process) the URL's path and
 * query, which WHATWG parsing has already normalised.
 */
function rawTarget(c: Context<SimEnv>): string {
  const sent = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.url;
  if (sent) return sent;
  const url = new URL(c.req.url);
  return url.pathname + url.search;
}

/** A target in origin form: an absolute-form target (`http://host/path`) loses its scheme and host. */
function originForm(target: string): string {
  const authority = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(target);
  if (!authority) return target;
  const rest = target.slice(authority[0].length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}

async function forward(c: Context<SimEnv>, proxy: ProxyContext): Promise<Response> {
  const operation = c.get('operation');
  const body =
    c.req.method === 'GET' || c.req.method === 'HEAD' ? undefined : new Uint8Array(await c.req.arrayBuffer());
  if (operation === API_OPERATIONS.createOrder.id && proxy.guard) {
    const guard = proxy.guard;
    let reason = guard.check();
    if (reason) guard.refuse();
    else {
      const cost = guard.needsCost ? await orderCost(c, proxy, body) : undefined;
      reason = guard.admit(cost?.sun, cost?.why);
    }
    if (reason) {
      c.set('refused', reason);
      throw new SimulatorError('spendRefused', reason);
    }
  }
  if (body && proxy.aliases) {
    const more = secretValuesOf(new TextDecoder().decode(body));
    if (more.length > 0)
      c.set('keyEcho', [...c.get('keyEcho'), ...more.map((k) => [k, proxy.aliases!.alias(k)] as const)]);
  }
  proxy.counters.forwarded++;
  const answered = await forwardToUpstream(proxy.upstream, c.req.raw, body, originForm(rawTarget(c)));
  const read = await readUpstreamAnswer(answered, proxy.upstream.maxBytes ?? DEFAULT_UPSTREAM_MAX_BYTES);
  c.set('responseBody', read.journal);
  if (operation && proxy.validation) {
    const keys = c.get('keyEcho');
    const violations = read.unchecked
      ? proxy.validation.unchecked(operation, answered.status, read.unchecked)
      : read.json !== undefined
        ? proxy.validation.check(operation, answered.status, read.json, (text) => replaceKeys(text, keys))
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

/**
 * What an order costs at the upstream's own price: its `rentalCount` and `period` (from
 * the query or the form body) asked of the upstream's price operation with the caller's
 * key. Undefined `sun` with `why` when that cannot be known.
 */
async function orderCost(
  c: Context<SimEnv>,
  proxy: ProxyContext,
  body: Uint8Array | undefined,
): Promise<{ sun?: number; why?: string }> {
  const params = new URL(c.req.url).searchParams;
  if (body && /application\/x-www-form-urlencoded/i.test(c.req.header('content-type') ?? '')) {
    for (const [name, value] of new URLSearchParams(new TextDecoder().decode(body)))
      params.append(name, value);
  }
  const rentalCount = params.get('rentalCount');
  const period = params.get('period');
  if (!rentalCount || !period) return { why: 'the order names no rentalCount or no period' };
  const query = new URLSearchParams({ rentalCount, period });
  const headers = new Headers();
  const key = c.req.header('api-key');
  if (key !== undefined) headers.set('api-key', key);
  const priceRequest = new Request(`http://proxy.local${API_OPERATIONS.getPrice.path}?${query}`, { headers });
  let answer: { data?: { trxPrice?: unknown } } | undefined;
  try {
    const answered = await forwardToUpstream(proxy.upstream, priceRequest, undefined);
    proxy.counters.forwarded++;
    const read = await readUpstreamAnswer(answered, proxy.upstream.maxBytes ?? DEFAULT_UPSTREAM_MAX_BYTES);
    answer = answered.status === 200 ? (read.json as typeof answer) : undefined;
    if (!answer) return { why: `the upstream's price answered HTTP ${answered.status}` };
  } catch (error) {
    return { why: `the upstream's price could not be had: ${(error as Error).message}` };
  }
  const trxPrice = answer?.data?.trxPrice;
  try {
    if (typeof trxPrice !== 'string') throw new Error('no trxPrice');
    return { sun: parseUnits(trxPrice, 'trxPrice') };
  } catch {
    return { why: `the upstream's price named no trxPrice amount (got ${JSON.stringify(trxPrice)})` };
  }
}
