/**
 * The engine's state as plain JSON, for `--state FILE`. API keys are kept only as
 * their digests, so a state file holds no secret.
 */
import type { AccountSnapshot } from './accounts.ts';
import type { AddressRecord } from './address-registry.ts';
import type { Order, OrderSnapshot } from './order.ts';
import type { Rule } from './outcome-rules.ts';
import type { Settings } from './settings.ts';

export type { AccountSnapshot } from './accounts.ts';
export type { OrderSnapshot } from './order.ts';

export const SNAPSHOT_FORMAT = 'energy-rental-kit/state@1';

export interface EngineSnapshot {
  format: typeof SNAPSHOT_FORMAT;
  /** The clock's time when saved, Unix ms. */
  savedAt: number;
  seed: number;
  /** Accounts and orders created since the start, to reseed the random source on restore. */
  created: number;
  /** JSON drops an undefined activationDelayMs, so a file may lack it. */
  settings: Omit<
    Settings,
    'activationDelayMs' | 'maxStoredAddresses' | 'errors' | 'createdAtUnit' | 'delaysMs' | 'unknownPath'
  > & {
    activationDelayMs?: number | undefined;
    maxStoredAddresses?: number;
  } & Partial<Pick<Settings, 'errors' | 'createdAtUnit' | 'delaysMs' | 'unknownPath'>>;
  supply: { energy: number | null; delegated: number };
  rules: Rule[];
  addresses: AddressRecord[];
  accounts: AccountSnapshot[];
  orders: OrderSnapshot[];
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
  return (
    typeof value === 'object' && value !== null && (value as { format?: unknown }).format === SNAPSHOT_FORMAT
  );
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

/**
 * A snapshot of now whose orders are read out later, a chunk at a time. Copy-on-write:
 * the engine calls every function in `beforeChange` before it changes an order, and
 * this snapshot keeps that order's state of now; `close()` stops it.
 *
 * @example
 *   const later = pendingSnapshot(head, orders.list(), beforeChange);
 *   while (later.next(500).length > 0) {}
 *   later.close();
 */
export function pendingSnapshot(
  head: PendingSnapshot['head'],
  orders: readonly Order[],
  beforeChange: Set<(order: Order) => void>,
): PendingSnapshot {
  const before = new Map<Order, OrderSnapshot>();
  const capture = (order: Order): void => {
    if (!before.has(order)) before.set(order, order.toSnapshot());
  };
  beforeChange.add(capture);
  let position = 0;
  return {
    head,
    orderCount: orders.length,
    next(count) {
      const end = Math.min(orders.length, position + count);
      const out: OrderSnapshot[] = [];
      for (; position < end; position++)
        out.push(before.get(orders[position]!) ?? orders[position]!.toSnapshot());
      return out;
    },
    close: () => void beforeChange.delete(capture),
  };
}
