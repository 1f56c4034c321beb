/**
 * Property: a state file with one field changed to a wrong value is either refused with a
 * message naming where, or, when it is still a valid state, restores to one whose
 * invariants hold and whose money prints.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatUnits, RestoreError, SimulatorError, type EngineSnapshot } from '../mock/engine/index.ts';
import { createSimulator } from '../mock/simulator.ts';
import { stateFileProblems } from './state-file.ts';
import { richSnapshot } from './test-support.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Path = (string | number)[];

/** Every path to a value inside `value`, objects and arrays included. */
function pathsOf(value: Json, prefix: Path = []): Path[] {
  if (value === null || typeof value !== 'object') return [prefix];
  const inner = Array.isArray(value)
    ? value.flatMap((v, i) => pathsOf(v, [...prefix, i]))
    : Object.entries(value).flatMap(([k, v]) => pathsOf(v, [...prefix, k]));
  return [prefix, ...inner];
}

type Change = { path: Path; op: 'set' | 'delete' | 'duplicate' | 'nudge'; value: Json; by: number };

/** Applies one change to a copy of the snapshot. */
function tamper(base: Json, change: Change): Json {
  const copy = structuredClone(base);
  if (change.path.length === 0) return change.op === 'set' ? change.value : copy;
  const parent = change.path
    .slice(0, -1)
    .reduce<Json>((node, key) => (node as Record<string | number, Json>)[key]!, copy) as Record<
    string | number,
    Json
  >;
  const key = change.path.at(-1)!;
  const current = parent[key];
  if (change.op === 'delete') {
    if (Array.isArray(parent)) parent.splice(key as number, 1);
    else delete parent[key];
  } else if (change.op === 'duplicate') {
    if (Array.isArray(parent)) parent.push(structuredClone(current!));
    else parent[key] = change.value;
  } else if (change.op === 'nudge' && typeof current === 'number') {
    parent[key] = current + change.by;
  } else {
    parent[key] = change.value;
  }
  return copy;
}

const wrongValue: fc.Arbitrary<Json> = fc.oneof(
  fc.integer({ min: -1_000_000, max: 1_000_000 }),
  fc.constantFrom<Json>(
    -1,
    0,
    1,
    0.5,
    1e308,
    2 ** 53,
    Number.MAX_SAFE_INTEGER,
    null,
    '',
    true,
    false,
    [],
    {},
  ),
  fc.constantFrom<Json>(
    'EXPLODE',
    'COMPLETED',
    'FAILED',
    'REFUNDED',
    'PENDING',
    'PROCESSING',
    'TRX',
    'USDT',
    '1h',
    'rule-1',
    'demo-key',
  ),
  fc.string({ maxLength: 6 }),
);

describe('a state file with one field tampered with', () => {
  const base = richSnapshot() as unknown as Json;
  const paths = pathsOf(base);
  const change: fc.Arbitrary<Change> = fc.record({
    path: fc.constantFrom(...paths),
    op: fc.constantFrom<Change['op']>('set', 'set', 'delete', 'duplicate', 'nudge', 'nudge'),
    value: wrongValue,
    by: fc.oneof(fc.integer({ min: -100_000, max: 100_000 }), fc.constantFrom(-1, 1, 10_000, -10_000, 0.5)),
  });

  it('is refused with a message naming where, or restores to a state whose invariants hold and whose money prints', () => {
    let restored = 0;
    fc.assert(
      fc.property(change, (c) => {
        const tampered = tamper(base, c);
        const problems = stateFileProblems(tampered);
        if (problems.length > 0) {
          for (const problem of problems) expect(problem).toMatch(/^\/\S*: \S/);
          return;
        }
        let sim;
        try {
          sim = createSimulator({ clock: 'manual', restore: tampered as unknown as EngineSnapshot });
        } catch (error) {
          // Refused by the engine's own checks: a message by JSON path or order id, never a crash.
          expect(error instanceof RestoreError || error instanceof SimulatorError).toBe(true);
          expect((error as Error).message).toMatch(/^(\/|OR)\S*: \S/);
          return;
        }
        expect(sim.engine.checkInvariants()).toEqual([]);
        for (const account of sim.engine.accounts()) {
          for (const book of Object.values(account.ledger))
            for (const units of Object.values(book)) expect(formatUnits(units)).toMatch(/^\d+(\.\d+)?$/);
        }
        sim.advance(86_400_000);
        expect(sim.engine.checkInvariants()).toEqual([]);
        restored++;
      }),
      { numRuns: 400 },
    );
    // Harmless changes (a referralCount, a time) are among them: both branches ran.
    expect(restored).toBeGreaterThan(0);
  });
});
