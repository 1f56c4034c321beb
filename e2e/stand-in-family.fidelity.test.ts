/**
 * The family of stand-ins beyond what the gate runs: every member read-only and spending
 * one order, and each member's planted breaks (the gate runs the member that combines
 * every choice, and the plain one spending).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { breaksFor, FAMILY_MEMBERS } from '../contract-tests/stand-ins/family.ts';
import { expectFailedNaming, expectPassed, runSelfTest, type SelfTestRun } from './contract-self-test-run.ts';
import {
  BREAK_EXPECTATIONS,
  expectationsOf,
  FAMILY_GATE_TARGETS,
  fidelityTargets,
} from './stand-in-family-targets.ts';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'stand-in-family-'));
const targets = fidelityTargets();
const expectations = expectationsOf(targets);
const passing = targets.filter((t) => !t.name.includes('+')).map((t) => t.name);
let selfTest: SelfTestRun;

beforeAll(async () => {
  selfTest = await runSelfTest(scratch, targets, 3);
}, 900_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the family of stand-ins', () => {
  it('knows what each planted break must trip', () => {
    const planted = new Set(FAMILY_MEMBERS.flatMap(breaksFor));
    expect([...planted].sort()).toEqual(Object.keys(BREAK_EXPECTATIONS).sort());
  });

  it('runs every member read-only and spending, here or in the gate', () => {
    const run = new Set([...passing, ...FAMILY_GATE_TARGETS.map((t) => t.name)]);
    const missing = FAMILY_MEMBERS.flatMap((m) => [`family-${m}-read-only`, `family-${m}-spend`]).filter(
      (n) => !run.has(n),
    );
    expect(missing).toEqual([]);
  });

  it.for(passing)('passes against %s', (name) => {
    const result = selfTest.outcome(name);
    expectPassed(result, selfTest.output);
    expect(result.report.target?.simulator).toBe(false);
    expect(result.report.spent.orders).toBe(name.endsWith('-spend') ? 1 : 0);
  });

  it.for(Object.keys(expectations))('fails %s, naming the documented fact it breaks', (name) => {
    expectFailedNaming(selfTest.outcome(name), name, expectations[name]!);
  });
});
