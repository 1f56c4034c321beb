/** Accounts and their API keys; a key is stored and looked up only as its SHA-256 digest. */
import { hash, randomBytes } from 'node:crypto';
import type { components } from '../../src/generated/control.ts';
import { createLedger, type Ledger } from './ledger.ts';
import type { Order } from './order.ts';
import { OrderList } from './order-list.ts';

export interface Account {
  readonly id: number;
  readonly name: string;
  readonly walletAddress: string;
  readonly keyDigest: string;
  readonly ledger: Ledger;
  referralCount: number;
  /** The account's orders, oldest first. */
  readonly orders: OrderList;
  readonly byOutOrderNo: Map<string, Order>;
  /** What evicted COMPLETED orders had spent, so the books still add up after eviction. */
  readonly evictedSpent: { TRX: number; USDT: number };
}

/** Digest under which a key is stored and looked up. */
export function digestKey(apiKey: string): string {
  return hash('sha256', apiKey, 'base64');
}

/** A fresh API key, from the system's CSPRNG: a known seed must not predict a key. */
export function generateApiKey(): string {
  return `sk_${randomBytes(24).toString('base64url')}`;
}

/**
 * An account with these identifiers, named as upstream names it, with empty books and no orders.
 *
 * @example
 *   newAccount({ id: 1, keyDigest: digestKey('demo-key'), walletAddress, referralCount: 0 }).name; // 'User-T…'
 */
export function newAccount(ids: Omit<AccountSnapshot, 'ledger' | 'evictedSpent'>): Account {
  const { id, keyDigest, walletAddress, referralCount } = ids;
  return {
    id,
    name: `User-${walletAddress.slice(0, 6)}`,
    walletAddress,
    keyDigest,
    ledger: createLedger(),
    referralCount,
    orders: new OrderList(),
    byOutOrderNo: new Map(),
    evictedSpent: { TRX: 0, USDT: 0 },
  };
}

/** An account as the state file keeps it (spec/control.yaml's StateFile): the key only as its digest. */
export type AccountSnapshot = components['schemas']['StateFile']['accounts'][number];

/**
 * The account as the state file keeps it; its books are copied, so they hold still.
 *
 * @example
 *   accountSnapshot(account).keyDigest; // the SHA-256 of its key, never the key
 */
export function accountSnapshot(a: Account): AccountSnapshot {
  return {
    id: a.id,
    keyDigest: a.keyDigest,
    walletAddress: a.walletAddress,
    referralCount: a.referralCount,
    ledger: { TRX: { ...a.ledger.TRX }, USDT: { ...a.ledger.USDT } },
    evictedSpent: { ...a.evictedSpent },
  };
}

/**
 * An account back from the state file, with its books and no orders yet.
 *
 * @example
 *   const account = accountFromSnapshot(saved.accounts[0]);
 */
export function accountFromSnapshot(saved: AccountSnapshot): Account {
  const account = newAccount(saved);
  Object.assign(account.ledger.TRX, saved.ledger.TRX);
  Object.assign(account.ledger.USDT, saved.ledger.USDT);
  Object.assign(account.evictedSpent, saved.evictedSpent);
  return account;
}
