import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Order } from './order.ts';
import { OrderList } from './order-list.ts';

const fakeOrders = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `o${i}` }) as unknown as Order);

describe('OrderList', () => {
  it('lists orders oldest first, by index and by iteration', () => {
    const list = new OrderList();
    const [a, b, c] = fakeOrders(3);
    for (const order of [a!, b!, c!]) list.push(order);
    expect([...list]).toEqual([a, b, c]);
    expect([list.at(0), list.at(2), list.at(3), list.at(-1)]).toEqual([a, c, undefined, undefined]);
    expect(list.length).toBe(3);
  });

  it('removes any order, oldest or not, and behaves as an array would', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 3000 }),
        fc.array(fc.nat(), { maxLength: 3000 }),
        (count, picks) => {
          const orders = fakeOrders(count);
          const list = new OrderList();
          const mirror: Order[] = [];
          for (const order of orders) {
            list.push(order);
            mirror.push(order);
          }
          for (const pick of picks) {
            if (mirror.length === 0) break;
            // Mostly the oldest, as eviction does; sometimes one further in.
            const index = pick % 5 === 0 ? pick % mirror.length : 0;
            list.remove(mirror[index]!);
            mirror.splice(index, 1);
          }
          expect(list.length).toBe(mirror.length);
          expect([...list]).toEqual(mirror);
          expect(list.at(0)).toBe(mirror[0]);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('ignores an order it does not hold', () => {
    const list = new OrderList();
    const [a, b] = fakeOrders(2);
    list.push(a!);
    list.remove(b!);
    expect([...list]).toEqual([a]);
  });
});
