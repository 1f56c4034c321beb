/**
 * The engine's state as plain JSON, for `--state FILE`. API keys are kept only as
 * their digests, so a state file holds no secret.
 */
import type { AddressRecord } from './address-registry.ts';
import type { Ledger } from './ledger.ts';
import type { CurrencyCode } from './money.ts';
import type { Order, OrderStatusCode } from './order.ts';
import type { Outcome, Rule } from './outcome-rules.ts';
import type { PeriodCode } from './pricing.ts';
import type { Settings } from './settings.ts';

export const SNAPSHOT_FORMAT = 'energy-rental-kit/state@1';

export interface AccountSnapshot {
  id: number;
  keyDigest: string;
  walletAddress: string;
  referralCount: number;
  ledger: Ledger;
  evictedSpent: { TRX: number; USDT: number };
}

export interface OrderSnapshot {
  id: string;
  accountId: number;
  pledgeAddress: string;
  rentalCount: number;
  period: PeriodCode;
  currency: CurrencyCode;
  amount: number;
  createdAt: number;
  outOrderNo?: string;
  plannedTxId: string;
  outcome: Outcome;
  forced: boolean;
  activates: boolean;
  processingAfter: number;
  outcomeAfter: number;
  refundAfter: number;
  status: OrderStatusCode;
  processingAt: number;
  outcomeAt: number;
  refundedAt: number;
  refunds: number;
  reserved: boolean;
  failureReason?: string;
}

export interface EngineSnapshot {
  format: typeof SNAPSHOT_FORMAT;
  /** The clock's time when saved, Unix ms. */
  savedAt: number;
  seed: number;
  /** Accounts and orders created since the start, to reseed the random source on restore. */
  created: number;
  /** JSON drops an undefined activationDelayMs, so a file may lack it. */
  settings: Omit<Settings, 'activationDelayMs' | 'maxStoredAddresses'> & { activationDelayMs?: number | undefined; maxStoredAddresses?: number };
  supply: { energy: number | null; delegated: number };
  rules: Rule[];
  addresses: AddressRecord[];
  accounts: AccountSnapshot[];
  orders: OrderSnapshot[];
}

/**
 * An order as the state file keeps it.
 *
 * @example
 *   JSON.stringify(orderSnapshot(order)); // one element of a state file's orders
 */
export function orderSnapshot(o: Order): OrderSnapshot {
  return {
    id: o.id,
    accountId: o.account.id,
    pledgeAddress: o.pledgeAddress,
    rentalCount: o.rentalCount,
    period: o.period,
    currency: o.currency,
    amount: o.amount,
    createdAt: o.createdAt,
    ...(o.outOrderNo !== undefined ? { outOrderNo: o.outOrderNo } : {}),
    plannedTxId: o.plannedTxId,
    outcome: o.outcome,
    forced: o.forced,
    activates: o.activates,
    processingAfter: o.processingAfter,
    outcomeAfter: o.outcomeAfter,
    refundAfter: o.refundAfter,
    status: o.status,
    processingAt: o.processingAt,
    outcomeAt: o.outcomeAt,
    refundedAt: o.refundedAt,
    refunds: o.refunds,
    reserved: o.reserved,
    ...(o.failureReason !== undefined ? { failureReason: o.failureReason } : {}),
  };
}

/** A snapshot taken now and read out later: `head` at once, the orders by `next(count)`. */
export interface PendingSnapshot {
  readonly head: Omit<EngineSnapshot, 'orders'>;
  readonly orderCount: number;
  /** The next `count` orders (fewer at the end), as they were when the snapshot was taken. */
  next(count: number): OrderSnapshot[];
  /** Stops keeping copies of orders that change; call it when the snapshot is written. */
  close(): void;
}

/**
 * Tells whether a parsed file claims to be a snapshot this version writes. Only a claim:
 * the CLI then checks it against the StateFile schema, and a restore checks its parts.
 *
 * @example
 *   isSnapshotOfThisFormat(JSON.parse(text)); // false for [] or another format
 */
export function isSnapshotOfThisFormat(value: unknown): value is { format: typeof SNAPSHOT_FORMAT } {
  return typeof value === 'object' && value !== null && (value as { format?: unknown }).format === SNAPSHOT_FORMAT;
}

/**
 * spec/control.yaml's StateFile schema is the one description of the file; these fail to
 * compile when the engine's snapshot type and the generated one drift apart.
 */
type StateFile = import('../../src/generated/control.ts').components['schemas']['StateFile'];
type Assignable<From, To> = [From] extends [To] ? true : false;
const snapshotIsStateFile: Assignable<EngineSnapshot, StateFile> = true;
const stateFileIsSnapshot: Assignable<StateFile, EngineSnapshot> = true;
void snapshotIsStateFile;
void stateFileIsSnapshot;
