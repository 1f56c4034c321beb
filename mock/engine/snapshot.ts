/** The engine's state as plain JSON, for `--state FILE`; keys only as their digests. */
import { STATE_FORMAT } from '../../src/generated/lists.ts';
import type { components } from '../../src/generated/control.ts';
import type { Order, OrderSnapshot } from './order.ts';

export type { AccountSnapshot } from './accounts.ts';
export type { OrderSnapshot } from './order.ts';

/** The format a snapshot is saved in: StateFile's `format` constant in spec/control.yaml. */
export const SNAPSHOT_FORMAT: typeof STATE_FORMAT = STATE_FORMAT;

/** The engine's whole state as JSON-ready data: spec/control.yaml's StateFile. */
export type EngineSnapshot = components['schemas']['StateFile'];

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
 * A snapshot of now whose orders are read out later by chunks: the engine calls `beforeChange` to copy one.
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
