/**
 * The control plane's read views (spec/control.yaml's AccountView, OrderView, Settings),
 * shared by the control routes and the dashboard.
 */
import type { components } from '../../src/generated/control.ts';
import {
  formatFixed,
  formatUnits,
  type Account,
  type Engine,
  type Order,
  type Settings,
} from '../engine/index.ts';
import { activationDelay } from '../engine/settings.ts';

type C = components['schemas'];

/** An account with its books as decimal strings. */
export function accountView(engine: Engine, account: Account): C['AccountView'] {
  const book = (currency: 'TRX' | 'USDT'): C['CurrencyLedger'] => {
    const b = account.ledger[currency];
    return {
      deposited: formatUnits(b.deposited),
      available: formatUnits(b.available),
      frozen: formatUnits(b.frozen),
      spent: formatUnits(b.spent),
    };
  };
  return {
    name: account.name,
    walletAddress: account.walletAddress,
    referralCount: account.referralCount,
    ledger: { trx: book('TRX'), usdt: book('USDT') },
    orders: account.orders.length,
  };
}

/** An order with its timeline and next scheduled step. */
export function orderView(engine: Engine, order: Order): C['OrderView'] {
  const view: C['OrderView'] = {
    orderId: order.id,
    status: order.status,
    pledgeAddress: order.pledgeAddress,
    rentalCount: order.rentalCount,
    period: order.period,
    amount: formatFixed(order.amount, 2),
    currency: order.currency,
    txId: order.txId,
    createdAt: order.createdAt,
    activatedAddress: order.activates,
    timeline: order.timeline(),
  };
  if (order.outOrderNo !== undefined) view.outOrderNo = order.outOrderNo;
  const next = engine.nextStep(order);
  if (next) view.next = next;
  return view;
}

/** The settings in the control plane's units (decimal strings). */
export function settingsView(settings: Settings): C['Settings'] {
  const prices: Record<string, string> = {};
  for (const [period, sun] of Object.entries(settings.prices)) prices[period] = String(sun);
  return {
    timing: settings.timing,
    prices,
    failureRate: settings.failureRate,
    usdtPerTrx: formatUnits(settings.microUsdtPerTrx),
    accountSuccessCode: settings.accountSuccessCode,
    duplicateOutOrderNo: settings.duplicateOutOrderNo,
    errorStatus: settings.errorStatus,
    activationDelayMs: activationDelay(settings),
    rateLimit: settings.rateLimit,
    maxStoredOrders: settings.maxStoredOrders,
    maxStoredAddresses: settings.maxStoredAddresses,
    errors: settings.errors,
    createdAtUnit: settings.createdAtUnit,
    delaysMs: settings.delaysMs,
    unknownPath: settings.unknownPath,
    envelopeTimeUnit: settings.envelopeTimeUnit,
    decimals: settings.decimals,
    extraFields: settings.extraFields,
    hiddenStatuses: settings.hiddenStatuses,
    historyPrefers: settings.historyPrefers,
    whenTrxShort: settings.whenTrxShort,
  };
}
