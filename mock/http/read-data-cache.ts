/**
 * The JSON text of a read's `data` (a price quote, an order record, an account), kept
 * until the engine changes anything. A client polls the same order or account many times
 * between changes, and building and serialising that object was a third of a read's CPU
 * in the Node fast path.
 *
 * Correctness rests on one rule: every change of engine state emits an event (orders,
 * accounts, settings, reset), and any event forgets everything. Nothing else a read's
 * `data` shows can change: the envelope's `time` is not part of it.
 */
import type { Account, Engine, Order } from '../engine/index.ts';

export interface ReadDataCache {
  /** The data of a price read for these (validated) parameters. */
  price(rentalCount: number, period: string, make: () => unknown): string;
  /** The data of a history read of this order. */
  order(order: Order, make: () => unknown): string;
  /** The data of an account read. */
  account(account: Account, make: () => unknown): string;
}

// A price cache holds one text per distinct (rentalCount, period); a client scanning
// many quantities would grow it without bound, so it starts afresh past this many.
const MAX_PRICES = 256;

/**
 * Creates a cache bound to one engine.
 *
 * @example
 *   const cache = createReadDataCache(engine);
 *   const text = cache.account(account, () => accountData(account)); // serialised once per change
 */
export function createReadDataCache(engine: Pick<Engine, 'subscribe'>): ReadDataCache {
  let prices = new Map<string, string>();
  let orders = new WeakMap<Order, string>();
  let accounts = new WeakMap<Account, string>();
  let empty = true;
  engine.subscribe(() => {
    if (empty) return;
    prices = new Map();
    orders = new WeakMap();
    accounts = new WeakMap();
    empty = true;
  });
  // Map and WeakMap alike: the prices are keyed by a string, orders and accounts by object.
  function remember<K>(
    map: { get(key: K): string | undefined; set(key: K, text: string): unknown },
    key: K,
    make: () => unknown,
  ): string {
    let text = map.get(key);
    if (text === undefined) {
      text = JSON.stringify(make());
      map.set(key, text);
      empty = false;
    }
    return text;
  }
  return {
    price(rentalCount, period, make) {
      const key = `${rentalCount} ${period}`;
      if (prices.size >= MAX_PRICES && !prices.has(key)) prices.clear();
      return remember(prices, key, make);
    },
    order: (order, make) => remember(orders, order, make),
    account: (account, make) => remember(accounts, account, make),
  };
}
