/** The operations of the Energy Rental API: what each does; the rest is spec/openapi.yaml's (generated lists). */
import {
  API_OPERATION_IDS,
  API_OPERATION_SPECS,
  API_PATHS,
  type ApiOperationId,
  type ApiRequestParams,
} from '../../src/generated/lists.ts';
import type { Account, Engine, Order, Outcome } from '../engine/index.ts';
import { accountData, orderCreatedData, orderRecord, priceQuoteData } from './api-views.ts';

/** The checked parameters of each operation: its form body, else its query (generated from the spec). */
export type ApiParams = ApiRequestParams;

export type { ApiOperationId };

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
    params: ApiParams[Id],
    asked?: { outcome?: Outcome | undefined },
  ): ApiResult;
}

/** What an operation's run gives besides the success's code 0 and message. */
type Ran = Omit<ApiResult, 'msg' | 'code'> & { code?: number };
type Run = (...args: Parameters<ApiOperation['run']>) => Ran;

/** What each operation does; the spec gives the rest of its entry in API_OPERATIONS, and its success message. */
const RUN: { readonly [Id in ApiOperationId]: (...args: Parameters<ApiOperation<Id>['run']>) => Ran } = {
  createOrder(engine, account, params, asked) {
    const { pledgeAddress, rentalCount, period, outOrderNo } = params;
    const { order, duplicate } = engine.createOrder(
      account,
      { pledgeAddress, rentalCount, period, outOrderNo },
      asked,
    );
    return {
      data: orderCreatedData(order),
      order,
      ...(order.activates && !duplicate ? { activation: true } : {}),
    };
  },
  getPrice: (engine, _account, { rentalCount, period }) => ({
    data: priceQuoteData(engine.quote(rentalCount, period), engine.settings()),
  }),
  getOrderHistory(engine, account, params) {
    const order = engine.findOrder(account, params);
    return { data: orderRecord(order, engine.settings()), order };
  },
  getAccount(engine, account) {
    const settings = engine.settings();
    return { code: settings.accountSuccessCode, data: accountData(account, settings) };
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

/** The operation of a method and path (without the /api prefix), or undefined. */
export function findApiOperation(method: string, path: string): ApiOperation | undefined {
  return (Object.values(API_OPERATIONS) as ApiOperation[]).find(
    (op) => op.path === path && op.method === method,
  );
}
