import { describe, expect, it } from 'vitest';
import { encodeTronAddress } from '../../src/tron-address.ts';
import { createEngine, type Engine } from './index.ts';
import type { EngineEffect } from './effects.ts';
import { createManualClock } from './manual-clock.ts';
import type { EngineSnapshot } from './snapshot.ts';

const addressOf = (n: number): string => encodeTronAddress(new Uint8Array(20).fill(n));

const scenarioOf = (timing: 'fast' | 'realistic') => ({
  settings: { timing, failureRate: 0.3 },
  accounts: [{ apiKey: 'demo-key', trx: 900_000_000, usdt: 50_000_000 }],
});

/** An engine whose every effect is kept, with the snapshot taken after `snapshotAfter` steps of work. */
function workload(
  steps: number,
  snapshotAfter: number,
  options: { reset?: boolean; timing?: 'fast' | 'realistic' } = {},
) {
  const clock = createManualClock(1_700_000_000_000);
  const engine = createEngine({ clock, seed: 5, scenario: scenarioOf(options.timing ?? 'fast') });
  const effects: EngineEffect[] = [];
  engine.subscribeEffects((effect) => effects.push(JSON.parse(JSON.stringify(effect)) as EngineEffect));
  let snapshot: EngineSnapshot | undefined;
  let demo = engine.authenticate('demo-key')!;
  let second = engine.createAccount({ trx: 80_000_000 }).account;
  engine.rules.add({ match: { outOrderNo: 'o-3' }, outcome: 'FAILED', delayMs: 10 });
  engine.rules.add({ match: {}, outcome: 'COMPLETED', times: 2 });
  engine.setSupply(2_000_000);
  for (let i = 0; i < steps; i++) {
    if (i === snapshotAfter) snapshot = JSON.parse(JSON.stringify(engine.snapshot())) as EngineSnapshot;
    const account = i % 3 === 0 ? second : demo;
    try {
      engine.createOrder(account, {
        pledgeAddress: addressOf(1 + (i % 7)),
        rentalCount: 65_000 + i,
        period: i % 2 ? '10min' : '1h',
        outOrderNo: `o-${i}`,
      });
    } catch {
      // Out of money: nothing changed.
    }
    if (i % 5 === 0) engine.deposit(second, { trx: 3_000_000, usdt: i });
    if (i === 8) engine.updateSettings({ maxStoredOrders: 12 });
    if (i === 11) engine.setAddress(addressOf(30), true);
    if (i === 13) engine.rules.remove('rule-1');
    if (i === 14 && options.reset) {
      engine.reset();
      demo = engine.authenticate('demo-key')!;
      second = engine.createAccount({ trx: 80_000_000 }).account;
    }
    clock.advance(700);
  }
  return { engine, effects, snapshot: snapshot!, clock };
}

const restored = (
  snapshot: EngineSnapshot | undefined,
  effects: EngineEffect[],
  now: number,
  timing: 'fast' | 'realistic' = 'fast',
): Engine =>
  createEngine({
    clock: createManualClock(now),
    seed: 5,
    scenario: scenarioOf(timing),
    ...(snapshot ? { restore: snapshot } : {}),
    replay: effects,
  });

describe('a log of effects', () => {
  it('put on the snapshot it follows gives the very state of the engine that logged it', () => {
    const { engine, effects, snapshot, clock } = workload(30, 10);
    expect(effects.length).toBeGreaterThan(60);
    const again = restored(snapshot, effects, clock.now());
    expect(again.seq).toBe(engine.seq);
    expect(again.snapshot()).toEqual(engine.snapshot());
    expect(again.checkInvariants()).toEqual([]);
  });

  it('skips the effects a snapshot holds already, so a crash before the log was cut applies nothing twice', () => {
    const { engine, effects, clock } = workload(20, 0);
    const late = JSON.parse(JSON.stringify(engine.snapshot())) as EngineSnapshot;
    expect(late.logSeq).toBe(effects.at(-1)!.seq);
    expect(restored(late, effects, clock.now()).snapshot()).toEqual(engine.snapshot());
  });

  it('rebuilds the state from the scenario when no snapshot was saved, a reset included', () => {
    const { engine, effects, clock } = workload(20, 0, { reset: true });
    expect(restored(undefined, effects, clock.now()).snapshot()).toEqual(engine.snapshot());
  });

  it('refuses a log with a gap after its snapshot', () => {
    const { effects, snapshot, clock } = workload(20, 5);
    const gap = effects.filter((e) => e.seq !== snapshot.logSeq + 2);
    expect(() => restored(snapshot, gap, clock.now())).toThrow(/misses the changes/);
  });

  it('carries on counting after a restore, and resumes the lifecycles of the orders it logged', () => {
    const { engine, effects, snapshot, clock } = workload(20, 5, { timing: 'realistic' });
    const again = restored(snapshot, effects, clock.now(), 'realistic');
    const next: EngineEffect[] = [];
    again.subscribeEffects((effect) => next.push(effect));
    const start = again.seq;
    clock.advance(60_000);
    (again.clock as ReturnType<typeof createManualClock>).advance(60_000);
    expect(next.length).toBeGreaterThan(0);
    expect(next[0]!.seq).toBe(start + 1);
    expect(again.seq).toBe(engine.seq);
    expect(again.snapshot().orders).toEqual(engine.snapshot().orders);
  });
});

describe('an engine writing ahead', () => {
  it('hands a change to the writer whole before it counts, and puts back one the writer refuses', () => {
    const clock = createManualClock(1_700_000_000_000);
    const engine = createEngine({
      clock,
      seed: 5,
      scenario: { settings: { timing: 'instant' }, accounts: [{ apiKey: 'demo-key', trx: 900_000_000 }] },
    });
    const written: EngineEffect[][] = [];
    const told: EngineEffect[] = [];
    let refuse = false;
    engine.writeAhead({
      write: (effects) => {
        if (refuse) throw new Error('disk full');
        written.push(JSON.parse(JSON.stringify(effects)) as EngineEffect[]);
      },
      append: () => expect.unreachable('no step falls due outside a change here'),
      // What a restart would read: the scenario, and every change written.
      readBack: () => ({ saved: undefined, effects: written.flat() }),
    });
    engine.subscribeEffects((effect) => told.push(effect));
    const demo = engine.authenticate('demo-key')!;
    const order = (n: number) =>
      engine.createOrder(engine.authenticate('demo-key')!, {
        pledgeAddress: addressOf(n),
        rentalCount: 65_000,
        period: '1h',
        outOrderNo: `w-${n}`,
      });
    order(1);
    // The order and the steps it made due, instantly, in one write.
    expect(written.map((effects) => effects.map((e) => e.type))).toEqual([['order', 'order', 'order']]);
    expect(told).toEqual(written[0]);
    const rule = engine.rules.add({ match: { outOrderNo: 'kept' }, outcome: 'FAILED' });
    const before = engine.snapshot();

    refuse = true;
    expect(() => order(2)).toThrow('disk full');
    expect(() => engine.createAccount({ trx: 5_000_000 })).toThrow('disk full');
    expect(() => engine.deposit(demo, { trx: 1_000_000 })).toThrow('disk full');
    expect(() => engine.rules.add({ match: {}, outcome: 'FAILED' })).toThrow('disk full');
    expect(() => engine.setSupply(1)).toThrow('disk full');
    expect(() => engine.updateSettings({ timing: 'realistic' })).toThrow('disk full');
    expect(() => engine.setAddress(addressOf(9), true)).toThrow('disk full');
    expect(() => engine.rules.remove(rule.id)).toThrow('disk full');
    expect(() => engine.rules.clear()).toThrow('disk full');
    expect(engine.snapshot()).toEqual(before);
    // The order's three effects and the rule's: nothing while the writer refused.
    expect(told).toHaveLength(4);

    refuse = false;
    order(3);
    expect(written.at(-1)![0]!.seq).toBe(before.logSeq + 1);
    expect(engine.orders(engine.authenticate('demo-key')!).map((o) => o.outOrderNo)).toEqual(['w-3', 'w-1']);
  });
});
