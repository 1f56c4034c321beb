/**
 * The upstream as the API's response source (`serve --upstream URL`): only a documented
 * operation's exact spelling is forwarded, an order only past the spending guard.
 */
import { loadSpec } from '../../src/spec/loader.ts';
import { parseUnits, SimulatorError } from '../engine/index.ts';
import { API_OPERATIONS, API_PATHS_NAMED } from './api-operations.ts';
import type { SimContext } from './context.ts';
import type { ResponseSource } from './create-app.ts';
import { asSent, bodyOf, decodeText } from './request-body.ts';
import { createEdgeClassifier, type EdgeVerdict } from './edge-classifier.ts';
import {
  redactUrl,
  replaceKeys,
  secretPairValues,
  secretValuesOfJson,
  type KeyAliases,
} from './journal-redaction.ts';
import type { LiveValidation } from './live-validation.ts';
import { orderParams, type SpendGuard } from './spend-guard.ts';
import {
  addKeys,
  forwardSent,
  forwardToUpstream,
  passOn,
  readUpstreamResponse,
  type UpstreamOptions,
} from './upstream-forward.ts';

export interface ProxyContext {
  upstream: UpstreamOptions;
  guard: SpendGuard;
  validation: LiveValidation;
  /** Counts every call handed to the upstream, answered or not. */
  counters: { forwarded: number };
  /** Forward GET and HEAD of paths that are not the API (`--forward-unknown`). */
  forwardUnknown: boolean;
  /** The aliases of the keys seen, which every kept copy holds instead of them. */
  aliases: KeyAliases;
}

/** Paths the simulator answers itself in every mode: never forwarded, whatever the flags. */
const LOCAL_PATHS = /^\/(_sim|docs)(\/|$)/;

/**
 * Creates the upstream's response source.
 *
 * @example
 *   const source = upstreamSource(proxy);
 *   createApp({ engine, source, … });
 */
export function upstreamSource(proxy: ProxyContext): ResponseSource {
  const classify = createEdgeClassifier(loadSpec('api').operations);
  return {
    mode: 'proxy',
    stats: () => ({
      upstream: redactUrl(proxy.upstream.url),
      forwarded: proxy.counters.forwarded,
      violations: proxy.validation.count,
      refusedOrders: proxy.guard.refused,
    }),
    takes: (path) => !LOCAL_PATHS.test(path),
    route(c) {
      const { path, query } = asSent(c);
      addKeys(c, proxy.aliases, [c.req.header('api-key') ?? '', ...secretPairValues(query ?? '')]);
      const method = c.req.method;
      const verdict = classify(method, query === undefined ? path : `${path}?${query}`);
      if (verdict.kind === 'api') c.set('operation', verdict.operationId);
      // --forward-unknown: a GET or HEAD of a path that is not the API, and names no order.
      else if (
        verdict.kind !== 'unknown' ||
        verdict.order ||
        !proxy.forwardUnknown ||
        (method !== 'GET' && method !== 'HEAD')
      ) {
        if (verdict.order) proxy.guard.refuse();
        throw refusal(verdict, method, path);
      }
    },
    respond: (c) => forward(c, proxy),
  };
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

async function forward(c: SimContext, proxy: ProxyContext): Promise<Response> {
  const operation = c.get('operation');
  const method = c.req.method;
  const bytes = method === 'GET' || method === 'HEAD' ? undefined : bodyOf(c);
  const body = bytes && bytes.byteLength > 0 ? new Uint8Array(bytes) : undefined;
  if (operation === API_OPERATIONS.createOrder.id) {
    const guard = proxy.guard;
    let params: Map<string, string>;
    try {
      params = orderParams(asSent(c).query, body, c.req.header('content-type'));
    } catch (error) {
      guard.refuse();
      throw error;
    }
    const reason = await guard.admit(() => orderCost(c, proxy, params));
    if (reason) {
      c.set('refused', reason);
      throw new SimulatorError('spendRefused', reason);
    }
  }
  if (body) addKeys(c, proxy.aliases, secretPairValues(decodeText(body)));
  proxy.counters.forwarded++;
  const { response, read } = await forwardSent(c, proxy.upstream, body);
  // A key the response holds is hidden wherever else a copy shows it (the violation report too).
  const echoed =
    read.json !== undefined
      ? secretValuesOfJson(read.json, read.text)
      : secretPairValues(String(read.journal));
  addKeys(c, proxy.aliases, echoed);
  if (operation) {
    const keys = c.get('keys') ?? [];
    const violations = read.unchecked
      ? proxy.validation.unchecked(operation, response.status, read.unchecked)
      : read.json !== undefined
        ? proxy.validation.check(operation, response.status, read.json, (text) => replaceKeys(text, keys))
        : [];
    if (violations.length > 0) c.set('violations', violations);
  }
  return passOn(response);
}

/** What an order costs at the upstream's own price, asked with the caller's key; else `why` not. */
async function orderCost(
  c: SimContext,
  proxy: ProxyContext,
  params: Map<string, string>,
): Promise<{ sun?: number; why?: string }> {
  const rentalCount = params.get('rentalCount');
  const period = params.get('period');
  if (!rentalCount || !period) return { why: 'the order names no rentalCount or no period' };
  const key = c.req.header('api-key');
  const priceRequest = {
    method: 'GET',
    pathAndQuery: `${API_OPERATIONS.getPrice.path}?${new URLSearchParams({ rentalCount, period })}`,
    header: (name: string) => (name === 'api-key' ? key : undefined),
  };
  let trxPrice: unknown;
  try {
    const response = await forwardToUpstream(proxy.upstream, priceRequest, undefined);
    proxy.counters.forwarded++;
    const read = await readUpstreamResponse(response, proxy.upstream.maxBytes);
    if (response.status !== 200 || !read.json)
      return { why: `the upstream's price answered HTTP ${response.status}` };
    trxPrice = (read.json as { data?: { trxPrice?: unknown } }).data?.trxPrice;
  } catch (error) {
    return { why: `the upstream's price could not be had: ${(error as Error).message}` };
  }
  try {
    if (typeof trxPrice !== 'string') throw new Error('no trxPrice');
    return { sun: parseUnits(trxPrice, 'trxPrice') };
  } catch {
    return { why: `the upstream's price named no trxPrice amount (got ${JSON.stringify(trxPrice)})` };
  }
}
