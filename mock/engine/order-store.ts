/** An engine's orders by id, account and age; past the cap the oldest finished go, their spend booked. */
import type { AddressRegistry } from './address-registry.ts';
import type { Order } from './order.ts';

export interface OrderStore {
  get(id: string): Order | undefined;
  has(id: string): boolean;
  readonly size: number;
  /** Keeps a new (or restored) order, and the activation record of its address with it. */
  add(order: Order): void;
  /** Evicts the oldest finished orders while more than `cap` are stored. */
  evict(cap: number): void;
  /** Every stored order, oldest first. */
  list(): Order[];
}

/**
 * Creates an empty store over an engine's activation registry.
 *
 * @example
 *   const orders = createOrderStore(registry);
 *   orders.add(order);
 *   orders.evict(settings.maxStoredOrders);
 */
export function createOrderStore(registry: AddressRegistry): OrderStore {
  const byId = new Map<string, Order>();
  // Every order in creation order; evicted slots become undefined until compaction.
  let chronological: (Order | undefined)[] = [];
  let oldest = 0;

  function remove(order: Order): void {
    const account = order.account;
    byId.delete(order.id);
    if (order.outOrderNo !== undefined && account.byOutOrderNo.get(order.outOrderNo) === order)
      account.byOutOrderNo.delete(order.outOrderNo);
    account.orders.remove(order);
    registry.release(order.pledgeAddress);
    if (order.status === 'COMPLETED') account.evictedSpent[order.currency] += order.amount;
  }

  return {
    get: (id) => byId.get(id),
    has: (id) => byId.has(id),
    get size() {
      return byId.size;
    },
    add(order) {
      byId.set(order.id, order);
      order.account.orders.push(order);
      registry.retain(order.pledgeAddress);
      if (order.outOrderNo !== undefined) order.account.byOutOrderNo.set(order.outOrderNo, order);
      chronological.push(order);
    },
    evict(cap) {
      for (let i = oldest; byId.size > cap && i < chronological.length; i++) {
        const order = chronological[i];
        // Open orders, and completed rentals still holding supply, stay until they are done.
        if (!order || order.reserved || (order.status !== 'COMPLETED' && order.status !== 'REFUNDED'))
          continue;
        remove(order);
        chronological[i] = undefined;
      }
      while (oldest < chronological.length && chronological[oldest] === undefined) oldest++;
      if (oldest > 1024 && oldest > chronological.length / 2) {
        chronological = chronological.slice(oldest);
        oldest = 0;
      }
    },
    list: () => chronological.filter((o): o is Order => o !== undefined),
  };
}
