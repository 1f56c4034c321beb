import { describe, expect, it } from 'vitest';
import {
  createEngine,
  DEMO_SCENARIO,
  type Account,
  type Engine,
  type EngineEvent,
  type Order,
} from '../engine/index.ts';
import { createManualClock } from '../engine/manual-clock.ts';
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

  it.each<[string, EngineEvent]>([
    [
      'a rule added',
      { type: 'rules', change: 'added', rule: { id: 'rule-1', match: {}, outcome: 'FAILED', used: 0 } },
    ],
    ['a rule removed', { type: 'rules', change: 'removed', id: 'rule-1' }],
    ['the rules cleared', { type: 'rules', change: 'cleared' }],
    ['the supply set', { type: 'supply', energy: 1_000_000 }],
    ['an address set', { type: 'address', record: { address: 'T', activated: true, activatedAt: 0 } }],
    ['a rental ended', { type: 'order', change: 'released', order }],
    ['an account created', { type: 'account', change: 'created', account: {} as Account }],
  ])('keeps every answer through %s, which no read shows', (_name, event) => {
    const { engine, emit } = fakeEngine();
    const cache = createReadDataCache(engine);
    const made = counting();
    cache.order(order, made.make);
    cache.account(account, made.make);
    cache.price(65_000, '1h', made.make);
    emit(event);
    expect([
      cache.order(order, made.make),
      cache.account(account, made.make),
      cache.price(65_000, '1h', made.make),
    ]).toEqual(['{"n":1}', '{"n":2}', '{"n":3}']);
  });

  it('forgets an account read when a real engine books a deposit, and keeps it when the supply changes', () => {
    const engine = createEngine({ clock: createManualClock(), scenario: DEMO_SCENARIO });
    const demo = engine.authenticate('demo-key')!;
    const cache = createReadDataCache(engine);
    const read = () => cache.account(demo, () => ({ trx: demo.ledger.TRX.available }));
    const first = read();
    engine.setSupply(1_000_000);
    expect(read()).toBe(first);
    engine.deposit(demo, { trx: 1 });
    expect(read()).not.toBe(first);
  });

  it('holds at most 256 prices, then starts afresh', () => {
    const cache = createReadDataCache(fakeEngine().engine);
    const made = counting();
    for (let i = 0; i < 256; i++) cache.price(64_000 + i, '1h', made.make);
    expect(cache.price(64_000, '1h', made.make)).toBe('{"n":1}');
    cache.price(1_000_000, '1h', made.make); // the 257th clears the others
    expect(cache.price(64_000, '1h', made.make)).toBe('{"n":258}');
  });
});
