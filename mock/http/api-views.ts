/** The API's envelope `{ code, msg, time, data }` and the views of engine objects, as the settings show them. */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { components } from '../../src/generated/openapi.ts';
import {
  DEFAULT_SETTINGS,
  formatDecimals,
  formatFixed,
  type Account,
  type Engine,
  type Order,
  type Quote,
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
/** The settings a view reads. */
type ViewSettings = Pick<Settings, 'createdAtUnit' | 'decimals' | 'hiddenStatuses'>;
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
  if (hidden.length === 0) return status;
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
export function orderRecord(order: Order, settings: ViewSettings = DEFAULT_SETTINGS): Schemas['Order'] {
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
export function priceQuoteData(
  priced: Quote,
  settings: Pick<Settings, 'decimals'> = DEFAULT_SETTINGS,
): Schemas['PriceQuote'] {
  return {
    sun: String(priced.sunPerUnit),
    trxPrice:
      settings.decimals.trxPrice === undefined
        ? priced.trxPrice
        : decimal(settings, 'trxPrice', priced.costSun),
    period: priced.period,
    resourceType: 'ENERGY',
    rentalCount: priced.rentalCount,
  };
}

/** The account record of the spec's Account schema. */
export function accountData(
  account: Account,
  settings: Pick<Settings, 'decimals'> = DEFAULT_SETTINGS,
): Schemas['Account'] {
  const { TRX, USDT } = account.ledger;
  return {
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
}
