/**
 * The TRON chain as a client reads it, derived on each read from orders, addresses and settings. A
 * COMPLETED order delegates its energy from its outcome until its period (or a rule's `delegationMs`) ends.
 */
import { hash } from 'node:crypto';
import type { components } from '../../src/generated/control.ts';
import { ENGINE_SETTINGS } from '../../src/generated/lists.ts';
import type { AddressRecord } from './address-registry.ts';
import { parseUnits } from './money.ts';
import type { Order } from './order.ts';
import { PERIOD_MS } from './pricing.ts';
import type { Settings } from './settings.ts';
import { PROFILES } from './timing.ts';

/** The chain settings in force: spec/control.yaml's ChainSettings with every field filled in. */
export type Chain = Required<components['schemas']['ChainSettings']>;

/** A block every 3 s of the clock, numbered from main net's genesis. */
const BLOCK_MS = 3000;
const GENESIS_MS = 1_529_891_469_000;
const SUN_PER_TRX = 1_000_000n;
/** Energy of USDT's balanceOf: java-tron's documented example of the call (x-unverified). */
const BALANCE_OF_ENERGY = 935;
const DEFAULTS = ENGINE_SETTINGS.chain.properties;

/**
 * The chain settings in force: the scenario's over the spec's defaults.
 *
 * @example
 *   chainOf(DEFAULT_SETTINGS).chainParameters.getEnergyFee; // 100
 */
export function chainOf(settings: Settings): Chain {
  const set = settings.chain;
  return {
    poolAddress: set.poolAddress ?? DEFAULTS.poolAddress.default,
    usdtContract: set.usdtContract ?? DEFAULTS.usdtContract.default,
    confirmationMs: set.confirmationMs ?? PROFILES[settings.timing].confirmation,
    totalEnergyWeight: set.totalEnergyWeight ?? DEFAULTS.totalEnergyWeight.default,
    chainParameters: { ...DEFAULTS.chainParameters.default, ...set.chainParameters },
    usdtBalances: set.usdtBalances ?? DEFAULTS.usdtBalances.default,
    transferEnergy: set.transferEnergy ?? DEFAULTS.transferEnergy.default,
  };
}

const totalEnergyLimit = (chain: Chain): bigint => BigInt(chain.chainParameters.getTotalEnergyLimit ?? 0);

/**
 * The stake (sun, whole TRX, rounded up as java-tron counts) whose energy is at least `energy`.
 *
 * @example
 *   stakeFor(65_000, chainOf(DEFAULT_SETTINGS)); // 6_500_000_000 (6500 TRX at 10 energy a TRX)
 */
export function stakeFor(energy: number, chain: Chain): number {
  const limit = totalEnergyLimit(chain);
  if (limit === 0n) return 0;
  const product = BigInt(energy) * BigInt(chain.totalEnergyWeight);
  return Number(((product + limit - 1n) / limit) * SUN_PER_TRX);
}

/**
 * The energy a stake yields, as java-tron computes EnergyLimit: whole TRX × TotalEnergyLimit ÷ TotalEnergyWeight.
 *
 * @example
 *   energyOf(6_500_000_000, chainOf(DEFAULT_SETTINGS)); // 65_000
 */
export function energyOf(stakeSun: number, chain: Chain): number {
  return Number(
    ((BigInt(stakeSun) / SUN_PER_TRX) * totalEnergyLimit(chain)) / BigInt(chain.totalEnergyWeight),
  );
}

/** The energy one COMPLETED order delegated, from its delivery to `expiresAt` (spec/control.yaml's OrderDelegation). */
export type Delegation = Omit<components['schemas']['OrderDelegation'], 'state'>;

/** An order's delegation: undefined unless it is COMPLETED. */
export function delegationOf(order: Order, chain: Chain): Delegation | undefined {
  if (order.status !== 'COMPLETED') return undefined;
  const deliveredAt = order.outcomeAt;
  return {
    orderId: order.id,
    from: chain.poolAddress,
    to: order.pledgeAddress,
    energy: order.rentalCount,
    stakeSun: stakeFor(order.rentalCount, chain),
    deliveredAt,
    expiresAt: deliveredAt + (order.delegationMs ?? PERIOD_MS[order.period]),
  };
}

/** Whether the chain shows a delegation at `at`. */
export const delegatedAt = (delegation: Delegation, at: number): boolean =>
  delegation.deliveredAt <= at && at < delegation.expiresAt;

/**
 * The delegations of the orders given (every one, or those to `to`), oldest first.
 *
 * @example
 *   delegationsOf(orders, chain, 'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3');
 */
export function delegationsOf(orders: readonly Order[], chain: Chain, to?: string): Delegation[] {
  return orders
    .filter((order) => to === undefined || order.pledgeAddress === to)
    .flatMap((order) => delegationOf(order, chain) ?? []);
}

/** An account on chain at a time: when it was made, its running delegations both ways, those it ended. */
export interface ChainAccount {
  address: string;
  createTime: number;
  received: Delegation[];
  lent: Delegation[];
  ended: Delegation[];
}

/**
 * An address on chain at `at`, or undefined before it exists (pool, USDT holders, hand-activated: always).
 *
 * @example
 *   chainAccountAt(engine.address(a), engine.delegations(), chain, now)?.received.length; // 1 once delivered
 */
export function chainAccountAt(
  record: AddressRecord,
  delegations: readonly Delegation[],
  chain: Chain,
  at: number,
): ChainAccount | undefined {
  const { address } = record;
  const fromStart =
    address === chain.poolAddress ||
    chain.usdtBalances[address] !== undefined ||
    (record.activated && record.activatedByOrderId === undefined);
  if (!fromStart && !(record.activated && record.activatedAt! <= at)) return undefined;
  const received: Delegation[] = [];
  const lent: Delegation[] = [];
  const ended: Delegation[] = [];
  for (const d of delegations) {
    const running = delegatedAt(d, at);
    if (d.to === address && running) received.push(d);
    else if (d.to === address && d.expiresAt <= at) ended.push(d);
    if (d.from === address && running) lent.push(d);
  }
  return { address, createTime: record.activatedAt ?? GENESIS_MS, received, lent, ended };
}

/** The total of a delegation list's stakes, sun. */
export const stakeOf = (delegations: readonly Delegation[]): number =>
  delegations.reduce((sum, d) => sum + d.stakeSun, 0);

interface ChainBlock {
  number: number;
  timestamp: number;
  blockID: string;
  parentHash: string;
}

/**
 * The block of a time: a block every 3 s, its id the number in 8 bytes and a made-up hash.
 *
 * @example
 *   blockAt(1_529_891_478_000).number; // 3: main net's genesis was 9 s earlier
 */
export function blockAt(at: number): ChainBlock {
  const number = Math.max(0, Math.floor((at - GENESIS_MS) / BLOCK_MS));
  return {
    number,
    timestamp: GENESIS_MS + number * BLOCK_MS,
    blockID: blockId(number),
    parentHash: blockId(Math.max(0, number - 1)),
  };
}

function blockId(number: number): string {
  return number.toString(16).padStart(16, '0') + hash('sha256', `block ${number}`, 'hex').slice(16);
}

/** A call of the USDT contract the simulator knows; `other` is any other function (it reverts). */
export type UsdtCall =
  | { fn: 'balanceOf'; holder: string }
  | { fn: 'transfer'; owner: string; to: string; amount: bigint }
  | { fn: 'other' };

/** What a USDT call does: the energy it uses, its output word (hex) or a revert. */
interface UsdtResult {
  energy: number;
  output: string;
  reverted: boolean;
}

/** The USDT an address holds, micro-USDT (the token's 6 decimals). */
export const usdtOf = (chain: Chain, address: string): number =>
  parseUnits(chain.usdtBalances[address] ?? '0', `chain.usdtBalances.${address}`);

/**
 * Runs a USDT call without a transaction: a transfer uses `transferEnergy.holder` or `.empty`
 * by what its receiver holds, and reverts when its owner holds less than it sends.
 *
 * @example
 *   callUsdt(chain, { fn: 'transfer', owner, to: emptyAddress, amount: 1n }).energy; // 130_285
 */
export function callUsdt(chain: Chain, call: UsdtCall): UsdtResult {
  const word = (value: bigint): string => value.toString(16).padStart(64, '0');
  if (call.fn === 'balanceOf')
    return { energy: BALANCE_OF_ENERGY, output: word(BigInt(usdtOf(chain, call.holder))), reverted: false };
  if (call.fn === 'other' || BigInt(usdtOf(chain, call.owner)) < call.amount)
    return { energy: 0, output: '', reverted: true };
  const energy = usdtOf(chain, call.to) > 0 ? chain.transferEnergy.holder : chain.transferEnergy.empty;
  return { energy, output: word(1n), reverted: false };
}
