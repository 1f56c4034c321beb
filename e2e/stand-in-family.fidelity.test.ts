/**
 * The family of stand-ins beyond what the gate runs: each member's planted breaks (the
 * gate runs those of the member that combines every choice), and the rate-limited
 * member, read-only and spending one order, once its limiter module exists.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { breaksFor, FAMILY_MEMBERS, rateLimitAvailable } from '../contract-tests/stand-ins/family.ts';
import { expectFailedNaming, expectPassed, runSelfTest, type SelfTestRun } from './contract-self-test-run.ts';
import {
  BREAK_EXPECTATIONS,
  FIDELITY_ONLY_MEMBERS,
  fidelityExpectations,
  fidelityTargets,
} from './stand-in-family-targets.ts';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'stand-in-family-'));
const rateLimit = await rateLimitAvailable();
const targets = fidelityTargets({ rateLimit });
const expectations = fidelityExpectations(targets);
let selfTest: SelfTestRun;

beforeAll(async () => {
  selfTest = await runSelfTest(scratch, targets, 3);
}, 600_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the family of stand-ins', () => {
  it('knows what each planted break must trip', () => {
    const planted = new Set(FAMILY_MEMBERS.flatMap(breaksFor));
    expect([...planted].sort()).toEqual(Object.keys(BREAK_EXPECTATIONS).sort());
  });

  it.for(Object.keys(expectations))('fails %s, naming the documented fact it breaks', (name) => {
    expectFailedNaming(selfTest.outcome(name), name, expectations[name]!);
  });

  describe.skipIf(!rateLimit)(
    'the rate-limited member (skipped until contract-tests/stand-ins/rate-limit.ts provides rateLimited)',
    () => {
      it.for(FIDELITY_ONLY_MEMBERS.flatMap((m) => [`family-${m}-read-only`, `family-${m}-spend`]))(
        'passes against %s',
        (name) => {
          const result = selfTest.outcome(name);
          expectPassed(result, selfTest.output);
          expect(result.report.spent.orders).toBe(name.endsWith('-spend') ? 1 : 0);
        },
      );
    },
  );
});
