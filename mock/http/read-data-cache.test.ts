import { describe, expect, it } from 'vitest';
import type { Account, Engine, EngineEvent, Order } from '../engine/index.ts';
import { createReadDataCache } from './read-data-cache.ts';

/** An engine that only emits what the test tells it to. */
function fakeEngine() {
  const listeners: Array<(event: EngineEvent) => void> = [];
  const engine: Pick<Engine, 'subscribe'> = {
    subscribe(listener) {
      listeners.push(listener);
      return () => listeners.splice(listeners.indexOf(listener), 1);
    },
  };
  return { engine, emit: (event: EngineEvent) => listeners.forEach((l) => l(event)) };
}

const counting = () => {
  let calls = 0;
  return { make: () => ({ n: ++calls }), calls: () => calls };
};

describe('read data cache', () => {
  const order = {} as Order;
  const account = {} as Account;

  it('serialises the data of an order, an account and a price once while nothing changes', () => {
    const { engine } = fakeEngine();
    const cache = createReadDataCache(engine);
    const made = counting();
    expect(cache.order(order, made.make)).toBe('{"n":1}');
    expect(cache.order(order, made.make)).toBe('{"n":1}');
    expect(cache.account(account, made.make)).toBe('{"n":2}');
    expect(cache.account(account, made.make)).toBe('{"n":2}');
    expect(cache.price(65_000, '1h', made.make)).toBe('{"n":3}');
    expect(cache.price(65_000, '1h', made.make)).toBe('{"n":3}');
    expect(cache.price(65_000, '1d', made.make)).toBe('{"n":4}');
    expect(made.calls()).toBe(4);
  });

  it('keeps each order and account apart', () => {
    const cache = createReadDataCache(fakeEngine().engine);
    const made = counting();
    cache.order(order, made.make);
    expect(cache.order({} as Order, made.make)).toBe('{"n":2}');
    cache.account(account, made.make);
    expect(cache.account({} as Account, made.make)).toBe('{"n":4}');
  });

  it.each<EngineEvent['type']>(['order', 'account', 'settings', 'reset'])(
    'forgets everything when the engine emits a %s event',
    (type) => {
      const { engine, emit } = fakeEngine();
      const cache = createReadDataCache(engine);
      const made = counting();
      cache.order(order, made.make);
      cache.account(account, made.make);
      cache.price(65_000, '1h', made.make);
      emit({ type, order, account } as EngineEvent);
      expect([
        cache.order(order, made.make),
        cache.account(account, made.make),
        cache.price(65_000, '1h', made.make),
      ]).toEqual(['{"n":4}', '{"n":5}', '{"n":6}']);
    },
  );

  it('holds at most 256 prices, then starts afresh', () => {
    const cache = createReadDataCache(fakeEngine().engine);
    const made = counting();
    for (let i = 0; i < 256; i++) cache.price(64_000 + i, '1h', made.make);
    expect(cache.price(64_000, '1h', made.make)).toBe('{"n":1}');
    cache.price(1_000_000, '1h', made.make); // the 257th clears the others
    expect(cache.price(64_000, '1h', made.make)).toBe('{"n":258}');
  });
});
