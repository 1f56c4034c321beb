/**
 * The family of stand-ins beyond what the gate runs: every member read-only and spending
 * one order, and each member's planted breaks (the gate runs the member that combines
 * every choice, and the plain one spending). The gateway's members are served over HTTP.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BREAKS } from '../contract-tests/stand-ins/breaks.ts';
import { breaksFor, FAMILY_MEMBERS } from '../contract-tests/stand-ins/family.ts';
import { expectFailedNaming, expectPassed, runSelfTest, type SelfTestRun } from './contract-self-test-run.ts';
import {
  expectationsOf,
  FAMILY_GATE_TARGETS,
  fidelityTargets,
  FRESH_ADDRESS,
  serveFamily,
} from './stand-in-family-targets.ts';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'stand-in-family-'));
// Named before the family is served: the names do not depend on where it is.
const targets = fidelityTargets('http://family.invalid');
const expectations = expectationsOf(targets);
const passing = targets.filter((t) => !t.name.includes('+')).map((t) => t.name);
let selfTest: SelfTestRun;
let family: Awaited<ReturnType<typeof serveFamily>>;

beforeAll(async () => {
  family = await serveFamily();
  selfTest = await runSelfTest(scratch, fidelityTargets(family.url), 3);
}, 1_800_000);
afterAll(async () => {
  await family?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('the family of stand-ins', () => {
  it('plants every break on some member', () => {
    const planted = new Set(FAMILY_MEMBERS.flatMap(breaksFor));
    expect([...planted].sort()).toEqual(Object.keys(BREAKS).sort());
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

  it('notes the fee of an order to an address the service had to activate, and does not fail it', () => {
    const notes = selfTest
      .outcome('family-gateway-activation-fee-fresh-address-spend')
      .report.cases.flatMap((c) => c.notes ?? []);
    expect(notes).toContainEqual(
      expect.stringMatching(new RegExp(`vs price estimate .* on ${FRESH_ADDRESS}`)),
    );
  });

  it.for(Object.keys(expectations))('fails %s, naming the documented fact it breaks', (name) => {
    expectFailedNaming(selfTest.outcome(name), name, expectations[name]!);
  });
});
