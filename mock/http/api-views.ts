/**
 * The API's response views: engine objects as the spec's schemas, shown as the settings
 * say the service shows them (decimals, the unit of `createdAt`, the statuses it shows).
 * Shared by both transports through the operation table.
 */
import type { components } from '../../src/generated/openapi.ts';
import {
  DEFAULT_SETTINGS,
  formatDecimals,
  formatFixed,
  type Account,
  type Order,
  type Quote,
  type Settings,
} from '../engine/index.ts';

type Schemas = components['schemas'];
/** The settings a view reads. */
export type ViewSettings = Pick<Settings, 'createdAtUnit' | 'decimals' | 'hiddenStatuses'>;
type DecimalField = keyof Settings['decimals'];

/** What each decimal-string field shows when the settings leave it out: the simulator's own formats (calibration compares with them). */
export const DEFAULT_DECIMALS: Readonly<Record<DecimalField, number | 'trimmed'>> = {
  trxPrice: 2,
  amount: 2,
  'balance.available.trx': 'trimmed',
  'balance.available.usdt': 6,
  'balance.frozen.trx': 'trimmed',
};

/**
 * Where each decimal-string field is in the answers: the operation and JSON Pointer
 * that `drift` and `calibrate` name it by.
 */
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
