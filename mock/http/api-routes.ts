/**
 * The four operations of the Energy Rental API, translated between HTTP and the engine.
 */
import { Hono, type MiddlewareHandler } from 'hono';
import { every } from 'hono/combine';
import type { components } from '../../src/generated/openapi.ts';
import type { SpecValidators } from '../../src/spec/loader.ts';
import { formatFixed, formatUnits, SimulatorError, type Account, type Engine, type Order, type PeriodCode, type Quote } from '../engine/index.ts';
import type { SimEnv } from './context.ts';
import { sendEnvelope } from './envelope.ts';
import type { FaultInjector } from './fault-injector.ts';
import { injectFaults } from './inject-faults.ts';
import { rateLimit } from './rate-limit.ts';
import { readParams } from './request-params.ts';
import { check } from './validate.ts';

type Schemas = components['schemas'];

/** Upstream's messages where it published them; the history message is the kit's own. */
export const SUCCESS_MESSAGES = {
  createOrder: 'Order generated successfully, please check order processing status later',
  getPrice: 'Get price successfully',
  getOrderHistory: 'Get order successfully',
  getAccount: 'Get user information successfully',
} as const;

/** The order record of the history, as the spec's Order schema. */
export function orderRecord(order: Order): Schemas['Order'] {
  return {
    orderId: order.id,
    amount: formatFixed(order.amount, 2),
    currency: order.currency,
    status: order.status,
    txId: order.txId,
    pledgeAddress: order.pledgeAddress,
    createdAt: order.createdAt,
    rentalCount: String(order.rentalCount),
    period: order.period,
    resourceType: 'ENERGY',
  };
}

/** The answer to a created (or, for a repeated outOrderNo, found) order, as the spec's OrderCreated schema. */
export function orderCreatedData(order: Order): Schemas['OrderCreated'] {
  const data: Schemas['OrderCreated'] = {
    id: order.id,
    // Upstream sends this amount as a JSON number; it is printed from integer units.
    amount: Number(formatFixed(order.amount, 2)),
    currency: order.currency,
  };
  if (order.outOrderNo !== undefined) data.outOrderNo = order.outOrderNo;
  return data;
}

/** The price estimate of the spec's PriceQuote schema. */
export function priceQuoteData(priced: Quote): Schemas['PriceQuote'] {
  return {
    sun: String(priced.sunPerUnit),
    trxPrice: priced.trxPrice,
    period: priced.period,
    resourceType: 'ENERGY',
    rentalCount: priced.rentalCount,
  };
}

/** The account record of the spec's Account schema. */
export function accountData(account: Account): Schemas['Account'] {
  const { TRX, USDT } = account.ledger;
  return {
    name: account.name,
    walletAddress: account.walletAddress,
    balance: {
      available: { trx: formatUnits(TRX.available), usdt: formatFixed(USDT.available, 6) },
      frozen: { trx: formatUnits(TRX.frozen) },
    },
    referralCount: account.referralCount,
  };
}

/** Requires a known API-KEY and puts its account on the context. */
export function requireApiKey(engine: Engine): MiddlewareHandler<SimEnv> {
  return async (c, next) => {
    const key = c.req.header('api-key');
    if (!key) throw new SimulatorError('apiKeyMissing', "Missing API key: send the account's key in the 'API-KEY' header.");
    const account = engine.authenticate(key);
    if (!account) throw new SimulatorError('apiKeyUnknown', "Unknown API key: the 'API-KEY' header names no account. Check the key, or create an account with POST /_sim/accounts.");
    c.set('account', account);
    await next();
  };
}

/**
 * Builds the routes of the simulated API.
 *
 * @example
 *   app.route('/', apiRoutes(engine, createValidators(loadSpec('api'), { coerceTypes: true })));
 */
export function apiRoutes(engine: Engine, validators: SpecValidators, faults: FaultInjector): Hono<SimEnv> {
  const api = new Hono<SimEnv>();
  const validateOrder = validators.request('createOrder');
  const validatePrice = validators.request('getPrice');
  const validateHistory = validators.request('getOrderHistory');
  const faulty = injectFaults(faults, engine);
  const limited = rateLimit(engine);
  const authenticate = requireApiKey(engine);
  // Faults come before authentication, as a broken proxy in front of the service would.
  const op = (operation: string): MiddlewareHandler<SimEnv> =>
    every(async (c, next) => {
      c.set('operation', operation);
      await next();
    }, faulty);
  const auth = every(authenticate, limited);

  api.post('/v1/tron/order', op('createOrder'), auth, async (c) => {
    const params = check<Schemas['OrderRequest']>(validateOrder, await readParams(c, true));
    const { order } = engine.createOrder(c.get('account'), {
      pledgeAddress: params.pledgeAddress,
      rentalCount: params.rentalCount,
      period: params.period as PeriodCode,
      outOrderNo: params.outOrderNo,
    });
    return sendEnvelope(c, engine, SUCCESS_MESSAGES.createOrder, orderCreatedData(order));
  });

  api.get('/v1/tron/price', op('getPrice'), auth, async (c) => {
    const params = check<{ rentalCount: number; period: PeriodCode }>(validatePrice, await readParams(c, false));
    return sendEnvelope(c, engine, SUCCESS_MESSAGES.getPrice, priceQuoteData(engine.quote(params.rentalCount, params.period)));
  });

  api.get('/v1/tron/history', op('getOrderHistory'), auth, async (c) => {
    const params = check<{ orderId?: string; outOrderNo?: string }>(validateHistory, await readParams(c, false));
    const order = engine.findOrder(c.get('account'), params);
    return sendEnvelope(c, engine, SUCCESS_MESSAGES.getOrderHistory, orderRecord(order));
  });

  api.get('/v1/account', op('getAccount'), auth, (c) =>
    sendEnvelope(c, engine, SUCCESS_MESSAGES.getAccount, accountData(c.get('account')), engine.settings().accountSuccessCode),
  );

  return api;
}
