/** The control plane's read views (spec/control.yaml), shared by the control routes and the dashboard. */
import type { components } from '../../src/generated/control.ts';
import {
  chainAccountAt,
  chainOf,
  delegatedAt,
  delegationOf,
  energyOf,
  formatFixed,
  formatUnits,
  stakeOf,
  usdtOf,
  type Account,
  type AddressRecord,
  type Delegation,
  type Engine,
  type Order,
  type Settings,
} from '../engine/index.ts';
import { activationDelay } from '../engine/settings.ts';

type C = components['schemas'];

/** An account with its books as decimal strings. */
export function accountView(account: Account): C['AccountView'] {
  // Each amount of a currency's book (deposited, available, frozen, spent) as a decimal string.
  const book = (currency: 'TRX' | 'USDT'): C['CurrencyLedger'] =>
    Object.fromEntries(
      Object.entries(account.ledger[currency]).map(([name, units]) => [name, formatUnits(units)]),
    ) as C['CurrencyLedger'];
  return {
    name: account.name,
    walletAddress: account.walletAddress,
    referralCount: account.referralCount,
    ledger: { trx: book('TRX'), usdt: book('USDT') },
    orders: account.orders.length,
  };
}

/** The clock's mode and time. */
export function clockView(engine: Engine): C['Clock'] {
  const now = engine.clock.now();
  return { mode: engine.clock.mode, now, iso: new Date(now).toISOString() };
}

/** An activation record as the control plane shows it: the pending claim is internal. */
export function addressView({ claimedByOrderId: _claimed, ...record }: AddressRecord): C['AddressState'] {
  return record;
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
  const delegation = delegationOf(order, chainOf(engine.settings()));
  if (delegation) view.delegation = delegationView(delegation, engine.clock.now());
  const next = engine.nextStep(order);
  if (next) view.next = next;
  return view;
}

/** The settings in the control plane's units (decimal strings). */
export function settingsView(settings: Settings): C['Settings'] {
  const { microUsdtPerTrx, prices, ...rest } = settings;
  return {
    ...rest,
    prices: Object.fromEntries(Object.entries(prices).map(([period, sun]) => [period, String(sun)])),
    usdtPerTrx: formatUnits(microUsdtPerTrx),
    activationDelayMs: activationDelay(settings),
    chain: chainOf(settings),
  };
}

/** An order's delegation, and whether the full node shows it at `now`. */
function delegationView(d: Delegation, now: number): C['OrderDelegation'] {
  return { ...d, state: delegatedAt(d, now) ? 'delegated' : 'expired' };
}

/**
 * An address on the simulated TRON node now: whether it exists, its energy and delegations.
 *
 * @example
 *   chainAddressView(engine, 'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3').energyLimit; // 65000 once delivered
 */
export function chainAddressView(engine: Engine, address: string): C['ChainAddress'] {
  const chain = chainOf(engine.settings());
  const now = engine.clock.now();
  const record = engine.address(address);
  const delegations = engine.delegations(address);
  const account = chainAccountAt(record, delegations, chain, now);
  const stakeSun = stakeOf(account?.received ?? []);
  const view: C['ChainAddress'] = {
    exists: account !== undefined,
    confirmed: chainAccountAt(record, delegations, chain, now - chain.confirmationMs) !== undefined,
    energyLimit: energyOf(stakeSun, chain),
    stakeSun,
    usdt: formatUnits(usdtOf(chain, address)),
    delegations: delegations.map((d) => delegationView(d, now)),
  };
  if (account) view.createTime = account.createTime;
  return view;
}
