/**
 * The operations of the Energy Rental API: what each does on the engine and how its answer
 * looks, in the envelope; the rest is spec/openapi.yaml's (generated lists).
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { components } from '../../src/generated/openapi.ts';
import {
  API_OPERATION_IDS,
  API_OPERATION_SPECS,
  API_PATHS,
  type ApiOperationId,
  type ApiRequestParams,
} from '../../src/generated/lists.ts';
import {
  formatDecimals,
  formatFixed,
  type Account,
  type Engine,
  type Order,
  type Outcome,
  type Settings,
} from '../engine/index.ts';
import type { SimEnv } from './context.ts';

/** `time` as upstream sends it: Unix seconds in a string (or ms, or s.sss, as the settings say), from the simulator's clock. */
export function envelopeTime(engine: Engine): string {
  const now = Math.floor(engine.clock.now());
  const unit = engine.settings().envelopeTimeUnit;
  if (unit === 'ms') return String(now);
  return unit === 's' ? String(Math.floor(now / 1000)) : (now / 1000).toFixed(3);
}

/**
 * The envelope of a response: its code, its message, the time and its data.
 *
 * @example
 *   envelope(engine, 0, 'Get price successfully', { sun: '65' }); // { code: 0, msg: …, time: '1741801809', data: { sun: '65' } }
 */
export function envelope(
  engine: Engine,
  code: number,
  msg: string,
  data: unknown,
): { code: number; msg: string; time: string; data: unknown } {
  return { code, msg, time: envelopeTime(engine), data };
}

/** Sends a JSON body and keeps it for the journal. */
export function sendJson(
  c: Context<SimEnv>,
  body: unknown,
  status: ContentfulStatusCode = 200,
  headers?: Record<string, string>,
): Response {
  c.set('response', body);
  return c.json(body, status, headers);
}

type Schemas = components['schemas'];
type DecimalField = keyof Settings['decimals'];

/** What each decimal-string field shows when the settings leave it out: the simulator's own formats (calibration compares with them). */
export const DEFAULT_DECIMALS: Readonly<Record<DecimalField, number | 'trimmed'>> = {
  trxPrice: 2,
  amount: 2,
  'balance.available.trx': 'trimmed',
  'balance.available.usdt': 6,
  'balance.frozen.trx': 'trimmed',
};

/** Where each decimal-string field is in the answers, as `drift` and `calibrate` name it. */
export const DECIMAL_FIELDS: Readonly<Record<DecimalField, { operation: string; path: string }>> = {
  trxPrice: { operation: 'getPrice', path: '/data/trxPrice' },
  amount: { operation: 'getOrderHistory', path: '/data/amount' },
  'balance.available.trx': { operation: 'getAccount', path: '/data/balance/available/trx' },
  'balance.available.usdt': { operation: 'getAccount', path: '/data/balance/available/usdt' },
  'balance.frozen.trx': { operation: 'getAccount', path: '/data/balance/frozen/trx' },
};

const decimal = (settings: Pick<Settings, 'decimals'>, field: DecimalField, units: number): string =>
  formatDecimals(units, settings.decimals[field] ?? DEFAULT_DECIMALS[field]);

/** The status the history shows: a hidden one shows as the status before it. */
function shownStatus(status: Order['status'], hidden: Settings['hiddenStatuses']): Order['status'] {
  if (status === 'PROCESSING' && hidden.includes('PROCESSING')) return 'PENDING';
  if (status === 'REFUNDED' && hidden.includes('REFUNDED')) return 'FAILED';
  return status;
}

/**
 * The order record of the history, as the spec's Order schema.
 *
 * @example
 *   orderRecord(order, { ...settings, createdAtUnit: 's' }).createdAt; // 1741801809
 */
export function orderRecord(
  order: Order,
  settings: Pick<Settings, 'createdAtUnit' | 'decimals' | 'hiddenStatuses'>,
): Schemas['Order'] {
  return {
    orderId: order.id,
    amount: decimal(settings, 'amount', order.amount),
    currency: order.currency,
    status: shownStatus(order.status, settings.hiddenStatuses),
    txId: order.txId,
    pledgeAddress: order.pledgeAddress,
    createdAt: settings.createdAtUnit === 's' ? Math.floor(order.createdAt / 1000) : order.createdAt,
    rentalCount: String(order.rentalCount),
    period: order.period,
    resourceType: 'ENERGY',
  };
}

/** What an operation results in: the envelope's code and message, and its data. */
interface ApiResult {
  code: number;
  msg: string;
  /** The data, as the operation's response schema. */
  data: unknown;
  /** The order it created activates its address (behaviour coverage counts it; the response does not show it). */
  activation?: true;
  /** The order the result is about, for the extra fields that copy or time from it. */
  order?: Order;
}

export interface ApiOperation<Id extends ApiOperationId = ApiOperationId> {
  readonly id: Id;
  readonly method: (typeof API_OPERATION_SPECS)[Id]['method'];
  /** The path under /v1 (the /api prefix of the real service is accepted too). */
  readonly path: (typeof API_OPERATION_SPECS)[Id]['path'];
  /** Runs the operation on the engine; a rejection throws a SimulatorError and changes nothing. `outcome` is what `Prefer: outcome=…` asked. */
  run(
    engine: Engine,
    account: Account,
    params: ApiRequestParams[Id],
    asked?: { outcome?: Outcome | undefined },
  ): ApiResult;
}

/** What an operation's run gives besides the success's code 0 and message. */
type Ran = Omit<ApiResult, 'msg' | 'code'> & { code?: number };
type Run = (...args: Parameters<ApiOperation['run']>) => Ran;

/** What each operation does and the data it answers, as its response schema; the spec gives the rest. */
const RUN: { readonly [Id in ApiOperationId]: (...args: Parameters<ApiOperation<Id>['run']>) => Ran } = {
  createOrder(engine, account, params, asked) {
    const { pledgeAddress, rentalCount, period, outOrderNo } = params;
    const { order, duplicate } = engine.createOrder(
      account,
      { pledgeAddress, rentalCount, period, outOrderNo },
      asked,
    );
    const data: Schemas['OrderCreated'] = {
      id: order.id,
      // Upstream sends this amount as a JSON number; it is printed from integer units.
      amount: Number(formatFixed(order.amount, 2)),
      currency: order.currency,
    };
    if (order.outOrderNo !== undefined) data.outOrderNo = order.outOrderNo;
    return { data, order, ...(order.activates && !duplicate ? { activation: true } : {}) };
  },
  getPrice(engine, _account, { rentalCount, period }) {
    const quote = engine.quote(rentalCount, period);
    const settings = engine.settings();
    const trxPrice =
      settings.decimals.trxPrice === undefined
        ? quote.trxPrice
        : decimal(settings, 'trxPrice', quote.costSun);
    const data: Schemas['PriceQuote'] = {
      sun: String(quote.sunPerUnit),
      trxPrice,
      period: quote.period,
      resourceType: 'ENERGY',
      rentalCount: quote.rentalCount,
    };
    return { data };
  },
  getOrderHistory(engine, account, params) {
    const order = engine.findOrder(account, params);
    return { data: orderRecord(order, engine.settings()), order };
  },
  getAccount(engine, account) {
    const settings = engine.settings();
    const { TRX, USDT } = account.ledger;
    const data: Schemas['Account'] = {
      name: account.name,
      walletAddress: account.walletAddress,
      balance: {
        available: {
          trx: decimal(settings, 'balance.available.trx', TRX.available),
          usdt: decimal(settings, 'balance.available.usdt', USDT.available),
        },
        frozen: { trx: decimal(settings, 'balance.frozen.trx', TRX.frozen) },
      },
      referralCount: account.referralCount,
    };
    return { code: settings.accountSuccessCode, data };
  },
};

/**
 * The operation table: the spec's method and path of each operation, with what it does.
 *
 * @example
 *   const op = API_OPERATIONS.getPrice;
 *   op.run(engine, account, { rentalCount: 65000, period: '1h' }).data; // { sun: '65', trxPrice: '4.23', ... }
 */
export const API_OPERATIONS = Object.fromEntries(
  API_OPERATION_IDS.map((id) => {
    const { method, path } = API_OPERATION_SPECS[id];
    const run: ApiOperation['run'] = (engine, account, params, asked) => ({
      code: 0,
      msg: API_OPERATION_SPECS[id].successMessage,
      ...(RUN[id] as Run)(engine, account, params as never, asked),
    });
    return [id, { id, method, path, run }];
  }),
) as { readonly [Id in ApiOperationId]: ApiOperation<Id> };

/** The API's paths as messages list them: '/v1/tron/order, /v1/tron/price, …'. */
export const API_PATHS_NAMED: string = API_PATHS.join(', ');

/** The real service lives under /api (https://api.eopen.io/api/v1/...); the simulator answers with and without it. */
export const API_PREFIX = '/api';

/** The API's namespace: /v1 and what is under it, with and without the /api prefix. */
const API_NAMESPACE = /^(\/api)?\/v1(\/|$)/;

/**
 * Whether a path is in the API's namespace.
 *
 * @example
 *   isApiPath('/api/v1/account'); // true
 *   isApiPath('/_sim/health');    // false
 */
export function isApiPath(path: string): boolean {
  return API_NAMESPACE.test(path);
}

/**
 * A request path without the /api prefix, as the operation table names it.
 *
 * @example
 *   withoutApiPrefix('/api/v1/account'); // '/v1/account'
 */
export function withoutApiPrefix(path: string): string {
  return path.startsWith(API_PREFIX + '/') ? path.slice(API_PREFIX.length) : path;
}

/** Every API operation, in the spec's order. */
export const API_OPERATION_LIST = Object.values(API_OPERATIONS) as readonly ApiOperation[];

/** The operation of a method and path (without the /api prefix), or undefined. */
export function findApiOperation(method: string, path: string): ApiOperation | undefined {
  return API_OPERATION_LIST.find((op) => op.path === path && op.method === method);
}
