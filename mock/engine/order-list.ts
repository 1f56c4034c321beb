/** An account's orders, oldest first; a full store evicts the oldest with every new order. */
import type { Order } from './order.ts';

/**
 * The orders of one account in creation order.
 *
 * @example
 *   const list = new OrderList();
 *   list.push(a); list.push(b);
 *   list.remove(a); // O(1): a was the oldest
 *   list.at(0) === b; list.length === 1;
 */
export class OrderList implements Iterable<Order> {
  private items: (Order | undefined)[] = [];
  /** Index of the oldest order still listed; the slots before it are removed ones. */
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  /** The i-th oldest order (0 is the oldest). */
  at(index: number): Order | undefined {
    return index >= 0 && index < this.length ? this.items[this.head + index] : undefined;
  }

  push(order: Order): void {
    this.items.push(order);
  }

  /** Removes an order: O(1) for the oldest, which is what eviction nearly always removes. */
  remove(order: Order): void {
    if (this.items[this.head] === order) {
      this.items[this.head++] = undefined;
      // Reclaim the removed slots once they are most of the array: amortised O(1).
      if (this.head > 1024 && this.head * 2 > this.items.length) {
        this.items = this.items.slice(this.head);
        this.head = 0;
      }
      return;
    }
    const index = this.items.indexOf(order, this.head);
    if (index !== -1) this.items.splice(index, 1);
  }

  *[Symbol.iterator](): Iterator<Order> {
    for (let i = this.head; i < this.items.length; i++) yield this.items[i]!;
  }
}
