/**
 * A Node-only fast path for the read-only happy path of the API: GET price, history and
 * account with a known key, valid parameters, no fault and no rate limit in force. It
 * uses the same validators, engine and response builders as the Hono routes and writes
 * the same journal entry, but skips building a WHATWG Request and Response, which the
 * CPU profile showed to be most of a read's cost.
 *
 * Anything else (a rejection, a fault, a rate limit, a write) answers `false`, and the
 * caller hands the request to the Hono app, which answers it from scratch: a GET changes
 * nothing, so nothing is done twice.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SpecValidators } from '../../src/spec/loader.ts';
import type { Account, Engine, Order, PeriodCode } from '../engine/index.ts';
import { accountData, orderRecord, priceQuoteData, SUCCESS_MESSAGES } from './api-routes.ts';
import { envelopeTime } from './envelope.ts';
import type { FaultInjector } from './fault-injector.ts';
import type { Journal } from './journal.ts';

export interface FastPathContext {
  engine: Engine;
  journal: Journal;
  faults: FaultInjector;
  apiValidators: SpecValidators;
}

type Handler = (engine: Engine, account: Account, params: Record<string, unknown>) => { msg: string; data: unknown; code?: number } | undefined;

const HANDLERS: Record<string, { operation: string; handle: Handler }> = {
  '/v1/tron/price': {
    operation: 'getPrice',
    handle: (engine, _account, p) => ({ msg: SUCCESS_MESSAGES.getPrice, data: priceQuoteData(engine.quote(p.rentalCount as number, p.period as PeriodCode)) }),
  },
  '/v1/tron/history': {
    operation: 'getOrderHistory',
    handle: (engine, account, p) => {
      let order: Order;
      try {
        order = engine.findOrder(account, p as { orderId?: string; outOrderNo?: string });
      } catch {
        return undefined;
      }
      return { msg: SUCCESS_MESSAGES.getOrderHistory, data: orderRecord(order) };
    },
  },
  '/v1/account': {
    operation: 'getAccount',
    handle: (engine, account) => ({ msg: SUCCESS_MESSAGES.getAccount, data: accountData(account), code: engine.settings().accountSuccessCode }),
  },
};

/**
 * Creates the fast path; it answers true when it served the request.
 *
 * @example
 *   const fast = createNodeFastPath(sim);
 *   http.createServer((req, res) => fast(req, res) || honoListener(req, res));
 */
export function createNodeFastPath(ctx: FastPathContext): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { engine, journal, faults } = ctx;
  const validators: Record<string, ReturnType<SpecValidators['request']>> = {
    getPrice: ctx.apiValidators.request('getPrice'),
    getOrderHistory: ctx.apiValidators.request('getOrderHistory'),
  };
  return (req, res) => {
    if (req.method !== 'GET' || faults.active || engine.settings().rateLimit) return false;
    const started = performance.now();
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const rawPath = q === -1 ? url : url.slice(0, q);
    const path = rawPath.startsWith('/api/') ? rawPath.slice(4) : rawPath;
    const route = HANDLERS[path];
    if (!route) return false;
    const key = req.headers['api-key'];
    if (typeof key !== 'string' || key === '') return false;
    const account = engine.authenticate(key);
    if (!account) return false;

    const query: Record<string, string> = Object.create(null) as Record<string, string>;
    if (q !== -1) {
      for (const [name, value] of new URLSearchParams(url.slice(q + 1))) {
        // A repeated parameter is a rejection case: the Hono route words it.
        if (name in query) return false;
        query[name] = value;
      }
    }
    const validate = validators[route.operation];
    const params: Record<string, unknown> = { ...query };
    if (validate && !validate(params)) return false;
    for (const value of Object.values(params)) if (typeof value === 'number' && !Number.isFinite(value)) return false;

    const result = route.handle(engine, account, params);
    if (!result) return false;
    const body = { code: result.code ?? 0, msg: result.msg, time: envelopeTime(engine), data: result.data };
    const text = JSON.stringify(body);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
    journal.record({
      at: engine.clock.now(),
      method: 'GET',
      path: rawPath,
      status: 200,
      response: body,
      durationMs: Math.round((performance.now() - started) * 1000) / 1000,
      operation: route.operation,
      account: account.walletAddress,
      ...(q !== -1 ? { query: { ...query } } : {}),
    });
    return true;
  };
}
