/**
 * Every change of an engine's state is told once: each public mutation emits exactly one
 * event saying what it changed, and moves `version` by one. A listener that records the
 * events sees every change there is; a saver that watches the version misses none.
 */
import { describe, expect, it } from 'vitest';
import { encodeTronAddress } from '../../src/tron-address.ts';
import type { Clock } from './clock.ts';
import { createEngine, type Engine, type EngineEvent } from './index.ts';
import type { Order } from './order.ts';

const PLEDGE = 'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3';
const START = 1_741_801_809_000;
const RENTAL_MS = 600_000;

function address(n: number): string {
  return encodeTronAddress(new Uint8Array(20).fill(n));
}

interface Fixture {
  engine: Engine;
  /** Moves the time without firing anything: steps happen only when `tick()` runs them. */
  setNow(at: number): void;
  /** A completed 10-minute rental that still holds energy of the limited supply. */
  rental: Order;
}

/**
 * An engine with an account, a rule, a limited supply and one completed rental, on a
 * clock that never fires alarms, so each mutation below is the only thing that happens.
 */
function fixture(): Fixture {
  let now = START;
  const clock: Clock = { mode: 'real', now: () => now, setAlarm: () => () => {} };
  const engine = createEngine({
    clock,
    seed: 5,
    scenario: {
      settings: { delaysMs: { processing: 1_000, outcome: 2_000, refund: 3_000 } },
      accounts: [{ apiKey: 'k', trx: 1_000_000_000 }],
      rules: [{ match: { outOrderNo: 'forced' }, outcome: 'FAILED' }],
      supply: 1_000_000,
    },
  });
  const rental = engine.createOrder(engine.authenticate('k')!, {
    pledgeAddress: PLEDGE,
    rentalCount: 65_000,
    period: '10min',
  }).order;
  // Past its outcome, the activation of its address included.
  now += 60_000;
  engine.tick();
  expect(rental.status).toBe('COMPLETED');
  expect(rental.reserved).toBe(true);
  return { engine, setNow: (at) => void (now = at), rental };
}

const k = (engine: Engine) => engine.authenticate('k')!;
const anOrder = { pledgeAddress: address(1), rentalCount: 65_000, period: '1h' } as const;

/**
 * Each public mutation, named as the engine names it. Given a fixture, an entry prepares
 * what the mutation needs and returns the mutation, which returns the event it must emit.
 */
const MUTATIONS: Array<[string, (f: Fixture) => () => EngineEvent]> = [
  [
    'createOrder',
    ({ engine }) =>
      () => ({ type: 'order', change: 'created', order: engine.createOrder(k(engine), anOrder).order }),
  ],
  [
    'tick',
    ({ engine, setNow }) => {
      const { order } = engine.createOrder(k(engine), anOrder);
      setNow(order.createdAt + order.processingAfter);
      return () => {
        engine.tick();
        expect(order.status).toBe('PROCESSING');
        return { type: 'order', change: 'step', order };
      };
    },
  ],
  [
    'createAccount',
    ({ engine }) =>
      () => ({ type: 'account', change: 'created', account: engine.createAccount({ trx: 1 }).account }),
  ],
  [
    'deposit',
    ({ engine }) =>
      () => ({
        type: 'account',
        change: 'deposit',
        account: engine.deposit(k(engine), { trx: 5 }),
        trx: 5,
        usdt: 0,
      }),
  ],
  [
    'updateSettings',
    ({ engine }) =>
      () => ({ type: 'settings', settings: engine.updateSettings({ failureRate: 0.5 }) }),
  ],
  [
    'rules.add',
    ({ engine }) =>
      () => ({ type: 'rules', change: 'added', rule: engine.rules.add({ match: {}, outcome: 'COMPLETED' }) }),
  ],
  [
    'rules.remove',
    ({ engine }) =>
      () => {
        expect(engine.rules.remove('rule-1')).toBe(true);
        return { type: 'rules', change: 'removed', id: 'rule-1' };
      },
  ],
  [
    'rules.clear',
    ({ engine }) =>
      () => {
        engine.rules.clear();
        return { type: 'rules', change: 'cleared' };
      },
  ],
  [
    'setSupply',
    ({ engine }) =>
      () => {
        engine.setSupply(9_000_000);
        return { type: 'supply', energy: 9_000_000 };
      },
  ],
  [
    'setAddress',
    ({ engine }) =>
      () => ({ type: 'address', record: engine.setAddress(address(2), true) }),
  ],
  [
    'reset',
    ({ engine }) =>
      () => {
        engine.reset();
        return { type: 'reset' };
      },
  ],
];

/** The engine's members that change nothing. */
const READS = [
  'clock',
  'seed',
  'settings',
  'authenticate',
  'quote',
  'findOrder',
  'accounts',
  'orders',
  'nextStep',
  'rules.list',
  'supply',
  'address',
  'addresses',
  'delegations',
  'checkInvariants',
  'snapshot',
  'snapshotLater',
  'storedOrders',
  'version',
  'seq',
  'subscribe',
  'subscribeEffects',
  'writeAhead',
];

/** Runs `change` and returns what it emitted and how far the version moved. */
function observe(engine: Engine, change: () => void): { heard: EngineEvent[]; moved: number } {
  const heard: EngineEvent[] = [];
  const version = engine.version;
  const stop = engine.subscribe((event) => heard.push(event));
  change();
  stop();
  return { heard, moved: engine.version - version };
}

describe('the events of an engine', () => {
  it('are tested for every member that is not a read, so a new mutation cannot go untold', () => {
    const { engine } = fixture();
    const members = [
      ...Object.keys(engine).filter((name) => name !== 'rules'),
      ...Object.keys(engine.rules).map((name) => `rules.${name}`),
    ];
    expect(members.filter((name) => !READS.includes(name)).sort()).toEqual(
      MUTATIONS.map(([name]) => name).sort(),
    );
  });

  it.each(MUTATIONS)(
    '%s emits exactly one event of its kind and moves the version by one',
    (_name, prepare) => {
      const f = fixture();
      const mutate = prepare(f);
      let expected: EngineEvent | undefined;
      const { heard, moved } = observe(f.engine, () => {
        expected = mutate();
      });
      expect(heard).toEqual([expected]);
      expect(moved).toBe(1);
      expect(f.engine.checkInvariants()).toEqual([]);
    },
  );

  it('tells the end of a rental, when its energy goes back to the pool, as one order event', () => {
    const f = fixture();
    f.setNow(f.rental.outcomeAt + RENTAL_MS);
    const { heard, moved } = observe(f.engine, () => f.engine.tick());
    expect(heard).toEqual([{ type: 'order', change: 'released', order: f.rental }]);
    expect(moved).toBe(1);
    expect(f.rental.reserved).toBe(false);
    expect(f.engine.supply()).toEqual({ energy: 1_000_000, delegated: 0 });
    expect(f.engine.checkInvariants()).toEqual([]);
  });

  it('tells one event per lifecycle step when several fall due at once, each after its change', () => {
    const f = fixture();
    const seen: string[] = [];
    const { order } = f.engine.createOrder(k(f.engine), { ...anOrder, outOrderNo: 'forced' });
    f.setNow(order.createdAt + 10_000);
    const { heard, moved } = observe(f.engine, () => {
      f.engine.subscribe((event) => {
        if (event.type === 'order') seen.push(`${event.change} ${event.order.status}`);
      });
      f.engine.tick();
    });
    expect(seen).toEqual(['step PROCESSING', 'step FAILED', 'step REFUNDED']);
    expect(moved).toBe(heard.length);
    expect(f.engine.checkInvariants()).toEqual([]);
  });

  it('tells nothing and keeps the version when nothing changes: an unknown rule, a known outOrderNo, nothing due', () => {
    const { engine } = fixture();
    engine.createOrder(k(engine), { ...anOrder, outOrderNo: 'once' });
    const { heard, moved } = observe(engine, () => {
      expect(engine.rules.remove('rule-99')).toBe(false);
      expect(engine.createOrder(k(engine), { ...anOrder, outOrderNo: 'once' }).duplicate).toBe(true);
      engine.tick();
    });
    expect(heard).toEqual([]);
    expect(moved).toBe(0);
  });
});
