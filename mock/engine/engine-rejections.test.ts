/**
 * A rejected order changes nothing. The Node fast path relies on it: it hands a request
 * the engine rejected to the Hono app, which runs it again to word the error.
 */
import { describe, expect, it } from 'vitest';
import { createManualClock } from './manual-clock.ts';
import { createEngine, type CreateOrderInput, type Engine } from './index.ts';
import { SimulatorError } from './simulator-error.ts';

const PLEDGE = 'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3';

function engineWithOrders(): Engine {
  const engine = createEngine({
    clock: createManualClock(),
    seed: 9,
    scenario: {
      settings: { duplicateOutOrderNo: 'reject' },
      accounts: [{ apiKey: 'k', trx: 10_000_000 }, { apiKey: 'poor' }],
      activatedAddresses: [PLEDGE],
    },
  });
  engine.createOrder(engine.authenticate('k')!, {
    pledgeAddress: PLEDGE,
    rentalCount: 65_000,
    period: '1h',
    outOrderNo: 'taken',
  });
  return engine;
}

const REJECTED: Array<[string, string, CreateOrderInput]> = [
  [
    'a duplicate outOrderNo',
    'k',
    { pledgeAddress: PLEDGE, rentalCount: 65_000, period: '1h', outOrderNo: 'taken' },
  ],
  ['an account that cannot pay', 'poor', { pledgeAddress: PLEDGE, rentalCount: 65_000, period: '1h' }],
  ['more than the balance covers', 'k', { pledgeAddress: PLEDGE, rentalCount: 5_000_000, period: '30d' }],
];

describe('Engine.createOrder rejections', () => {
  it.each(REJECTED)(
    'changes nothing when it rejects %s: state, version, events and later ids',
    (_name, key, input) => {
      const engine = engineWithOrders();
      const twin = engineWithOrders();
      const before = engine.snapshot();
      const version = engine.version;
      const events: unknown[] = [];
      engine.subscribe((event) => events.push(event));
      expect(() => engine.createOrder(engine.authenticate(key)!, input)).toThrow(SimulatorError);
      expect(engine.snapshot()).toEqual(before);
      expect(engine.version).toBe(version);
      expect(events).toEqual([]);
      // Nothing drawn from the random source either: the next order is the twin's.
      const next = { pledgeAddress: PLEDGE, rentalCount: 65_000, period: '1h' } as const;
      expect(engine.createOrder(engine.authenticate('k')!, next).order.toSnapshot()).toEqual(
        twin.createOrder(twin.authenticate('k')!, next).order.toSnapshot(),
      );
    },
  );
});
