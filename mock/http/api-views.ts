/**
 * The API's response views: engine objects as the spec's schemas. Shared by both
 * transports through the operation table, and by the control plane's order views.
 */
import type { components } from '../../src/generated/openapi.ts';
import { formatFixed, formatUnits, type Account, type Order, type Quote } from '../engine/index.ts';

type Schemas = components['schemas'];

/** The order record of the history, as the spec's Order schema; `createdAt` in ms, or in s when calibrated so. */
export function orderRecord(order: Order, createdAtUnit: 'ms' | 's' = 'ms'): Schemas['Order'] {
  return {
    orderId: order.id,
    amount: formatFixed(order.amount, 2),
    currency: order.currency,
    status: order.status,
    txId: order.txId,
    pledgeAddress: order.pledgeAddress,
    createdAt: createdAtUnit === 's' ? Math.floor(order.createdAt / 1000) : order.createdAt,
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
