/**
 * The JSON text of a read's `data` (a price quote, an order record, an account), kept
 * until the engine changes anything. A client polls the same order or account many times
 * between changes, and building and serialising that object was a third of a read's CPU
 * in the Node fast path.
 *
 * Correctness rests on one rule: every change of engine state emits an event, and every
 * event that could change what a read shows forgets everything (changesReads). Nothing
 * else a read's `data` shows can change: the envelope's `time` is not part of it.
 */
import type { Account, Engine, EngineEvent, Order } from '../engine/index.ts';

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
 * Whether an event could change the data of a price, order or account read. An order's
 * creation and steps move its status and its account's books; a deposit, the books; the
 * settings, the prices and the unit of `createdAt`; a reset, everything. A new account
 * has no cached read yet, and rules, the supply, an address and a rental's end show in
 * no read: a client polling its order keeps its cache through those.
 *
 * @example
 *   changesReads({ type: 'supply', energy: 1_000_000 }); // false
 */
export function changesReads(event: EngineEvent): boolean {
  switch (event.type) {
    case 'order':
      return event.change !== 'released';
    case 'account':
      return event.change !== 'created';
    case 'settings':
    case 'reset':
      return true;
    case 'rules':
    case 'supply':
    case 'address':
      return false;
  }
}

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
  engine.subscribe((event) => {
    if (empty || !changesReads(event)) return;
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
