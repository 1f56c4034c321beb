/**
 * The upstream as the API's answer source (`serve --upstream URL`). What may go upstream is
 * decided first, from the method and the request target as sent (edge-classifier.ts): only
 * the exact canonical spelling of a documented operation with its documented method is
 * forwarded; any other spelling of an API path is answered here (404 naming the canonical
 * path, or 405 naming the method), and counts as an order attempt when it spells the order
 * path. Paths that are not the API stay here unless `--forward-unknown`, which lets GET and
 * HEAD through, never on a path with an `order` segment.
 *
 * A forwarded request has passed the core's faults and rate limit; then come the spending
 * guard (spend-guard.ts) and the upstream (upstream-forward.ts), whose answer is checked
 * against the spec as it passes (live-validation.ts) and passed on unaltered.
 *
 * The API key is forwarded and never kept: each request's keys go with its exchange to be
 * replaced by their aliases wherever a kept copy would hold them (journal-redaction.ts).
 */
import { loadSpec } from '../../src/spec/loader.ts';
import { parseUnits, SimulatorError } from '../engine/index.ts';
import { API_OPERATIONS, API_PATHS_NAMED } from './api-operations.ts';
import { decodeText } from './decode-text.ts';
import { createEdgeClassifier, type EdgeVerdict } from './edge-classifier.ts';
import type { CoreAnswer, CoreRequest } from './exchange.ts';
import {
  replaceKeys,
  secretPairValues,
  secretValuesOf,
  secretValuesOfJson,
  type KeyAliases,
} from './journal-redaction.ts';
import type { LiveValidation } from './live-validation.ts';
import type { AnswerSource, Exchange } from './request-core.ts';
import type { SpendGuard } from './spend-guard.ts';
import { readUpstreamAnswer } from './upstream-answer.ts';
import { DEFAULT_UPSTREAM_MAX_BYTES, forwardToUpstream, type UpstreamOptions } from './upstream-forward.ts';

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
 * Creates the upstream's answer source.
 *
 * @example
 *   const source = upstreamSource(proxy);
 *   createRequestCore({ engine, source, faults, exchanges });
 */
export function upstreamSource(proxy: ProxyContext): AnswerSource<EdgeVerdict> {
  const classify = createEdgeClassifier(loadSpec('api').operations);
  return {
    mode: 'proxy',
    takes: (path) => !LOCAL_PATHS.test(path),
    route(request, exchange) {
      exchange.keyEcho = keysOf(request, exchange, proxy.aliases);
      const verdict = classify(request.method, request.target);
      if (verdict.kind === 'api') exchange.operation = verdict.operationId;
      else if (!forwardsUnknown(verdict, request.method, proxy)) {
        if (verdict.order) proxy.guard.refuse();
        throw refusal(verdict, request.method, exchange.path);
      }
      return verdict;
    },
    answer: (request, exchange) => forward(request, exchange, proxy),
  };
}

/** The request's keys with their aliases: its API-KEY, and secret-named query parameters. */
function keysOf(request: CoreRequest, exchange: Exchange, aliases: KeyAliases): Array<[string, string]> {
  const keys = exchange.query === undefined ? [] : secretValuesOf(exchange.query);
  const header = request.header('api-key');
  if (header) keys.unshift(header);
  return keys.map((key) => [key, aliases.alias(key)]);
}

function forwardsUnknown(verdict: EdgeVerdict, method: string, proxy: ProxyContext): boolean {
  return (
    verdict.kind === 'unknown' &&
    !verdict.order &&
    proxy.forwardUnknown &&
    (method === 'GET' || method === 'HEAD')
  );
}

/** The error a request not forwarded gets, naming what would be forwarded. */
function refusal(verdict: EdgeVerdict, method: string, path: string): SimulatorError {
  switch (verdict.kind) {
    case 'wrong-method':
      return SimulatorError.answer(
        'methodNotAllowed',
        `Method ${method} is not allowed on ${verdict.canonical}; use ${verdict.allowed}.${verdict.order ? ' Nothing was forwarded upstream.' : ''}`,
        { Allow: verdict.allowed },
      );
    case 'misspelled':
      return SimulatorError.answer(
        'notFound',
        `No such path: the proxy forwards ${verdict.canonical} only as spelled so; '${path}' is another spelling of it and was not forwarded upstream.`,
      );
    default:
      return SimulatorError.answer(
        'notFound',
        verdict.order
          ? `No such path: '${path}' names an order but is not the API's ${API_OPERATIONS.createOrder.path}; it was not forwarded upstream.`
          : `No such path: '${path}' is not part of the API (${API_PATHS_NAMED}), and the proxy forwards only the API; --forward-unknown forwards GET and HEAD of other paths.`,
      );
  }
}

async function forward(request: CoreRequest, exchange: Exchange, proxy: ProxyContext): Promise<CoreAnswer> {
  const operation = exchange.operation;
  const method = request.method;
  const body = method === 'GET' || method === 'HEAD' || !request.hasBody ? undefined : await request.body();
  const forwarded = body && body.byteLength > 0 ? new Uint8Array(body) : undefined;
  if (operation === API_OPERATIONS.createOrder.id) {
    const guard = proxy.guard;
    let reason = guard.check();
    if (reason) guard.refuse();
    else {
      const cost = guard.needsCost ? await orderCost(request, exchange, proxy, forwarded) : undefined;
      reason = guard.admit(cost?.sun, cost?.why);
    }
    if (reason) {
      exchange.refused = reason;
      throw SimulatorError.answer('spendRefused', reason);
    }
  }
  if (forwarded) {
    const more = secretValuesOf(decodeText(forwarded));
    if (more.length > 0)
      exchange.keyEcho = [
        ...(exchange.keyEcho ?? []),
        ...more.map((k) => [k, proxy.aliases.alias(k)] as const),
      ];
  }
  proxy.counters.forwarded++;
  const answered = await forwardToUpstream(proxy.upstream, request, forwarded);
  const read = await readUpstreamAnswer(answered, proxy.upstream.maxBytes ?? DEFAULT_UPSTREAM_MAX_BYTES);
  exchange.response = read.journal;
  if (read.json !== undefined) exchange.responseSent = read.text;
  // A key the answer holds in a secret-named field or pair is hidden wherever else a copy
  // shows it (a message that repeats it, the spec-violation report), not only where it stands.
  const held =
    read.json !== undefined
      ? secretValuesOfJson(read.json, read.text)
      : typeof read.journal === 'string'
        ? secretPairValues(read.journal)
        : [];
  if (held.length > 0)
    exchange.keyEcho = [
      ...(exchange.keyEcho ?? []),
      ...held.map((k) => [k, proxy.aliases.alias(k)] as const),
    ];
  if (operation) {
    const keys = exchange.keyEcho ?? [];
    const violations = read.unchecked
      ? proxy.validation.unchecked(operation, answered.status, read.unchecked)
      : read.json !== undefined
        ? proxy.validation.check(operation, answered.status, read.json, (text) => replaceKeys(text, keys))
        : [];
    if (violations.length > 0) exchange.violations = violations;
  }
  // The answer is passed on as it came, still encoded if it was: the proxy reports drift,
  // it never hides it.
  return {
    status: answered.status,
    headers: answered.headers,
    body: answered.body.byteLength > 0 ? answered.body : null,
  };
}

/**
 * What an order costs at the upstream's own price: its `rentalCount` and `period` (from
 * the query or the form body) asked of the upstream's price operation with the caller's
 * key. Undefined `sun` with `why` when that cannot be known.
 */
async function orderCost(
  request: CoreRequest,
  exchange: Exchange,
  proxy: ProxyContext,
  body: Uint8Array | undefined,
): Promise<{ sun?: number; why?: string }> {
  const params = new URLSearchParams(exchange.query ?? '');
  if (body && /application\/x-www-form-urlencoded/i.test(request.header('content-type') ?? '')) {
    for (const [name, value] of new URLSearchParams(decodeText(body))) params.append(name, value);
  }
  const rentalCount = params.get('rentalCount');
  const period = params.get('period');
  if (!rentalCount || !period) return { why: 'the order names no rentalCount or no period' };
  const query = new URLSearchParams({ rentalCount, period });
  const key = request.header('api-key');
  const priceRequest = {
    method: 'GET',
    target: `${API_OPERATIONS.getPrice.path}?${query}`,
    header: (name: string) => (name === 'api-key' ? key : undefined),
  };
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
