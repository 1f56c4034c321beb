/**
 * Proof that the contract suite can fail: it runs against deliberately broken
 * simulators and must fail each one, naming the broken field or rule. It also proves
 * the spending guard against a simulator that hides its control plane.
 *
 * Every target runs in one child vitest (contract-self-test.vitest.config.ts): for each
 * target and contract file a test file that imports the contract file afresh under the
 * target's environment, and a reporter that judges each target as if it had run alone:
 * its own report, and the exit code a run of it alone would have had. A child process
 * rather than this worker, because the suite reads its settings from the environment
 * and runs under its own vitest config (threads, not isolated).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROKEN_VARIANTS } from '../contract-tests/broken-variants.ts';
import { IN_PROCESS_BASE } from '../contract-tests/contract-target.ts';
import type { SelfTestOutcome, SelfTestTarget } from './contract-self-test-reporter.ts';
import {
  expectFailedNaming,
  expectPassed as passed,
  runSelfTest,
  type SelfTestRun,
} from './contract-self-test-run.ts';
import { FAMILY_GATE_TARGETS, FAMILY_GATE_EXPECTATIONS } from './stand-in-family-targets.ts';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'contract-self-test-'));

/** What each variant's failure must name: a case and a phrase of its error. */
const EXPECTED: Record<string, { test: RegExp; error: RegExp }> = {
  'field-removed': { test: /getPrice/, error: /\/data\/trxPrice: must have required property/ },
  'type-changed': { test: /history/, error: /\/data\/createdAt: must be number/ },
  'number-as-string': {
    test: /getPrice/,
    error: /\/data\/rentalCount: must be integer[\s\S]*actual value: "64000"/,
  },
  'status-skipped': {
    test: /follows an order to its outcome/,
    error: /COMPLETED order carries the delegation txId/,
  },
  'status-reversed': {
    test: /follows an order to its outcome/,
    error: /status moved from COMPLETED back to PROCESSING/,
  },
  'wrong-rounding': {
    test: /rounded half up/,
    error: /trxPrice for 65000 × 65 sun; fact price-rounding/,
  },
  'missing-refund': { test: /forced failure/, error: /the refund restores the balance/ },
  'wrong-echo': { test: /echoes outOrderNo/, error: /outOrderNo is echoed back/ },
  'auth-dropped': {
    test: /refuses getPrice without an API key/,
    error: /must be refused; fact api-key-required/,
  },
  'no-delegation': {
    test: /delivers the energy on chain/,
    error: /within 90 s of its creation.*fact energy-delivery/,
  },
};

/** The node `--tron-node` names: the in-process simulator's own, reached through its fetch. */
const TRON_NODE = { CONTRACT_TRON_NODE: IN_PROCESS_BASE };

const IN_PROCESS = (['realistic', 'fast', 'instant'] as const).flatMap((timing) =>
  (['manual', 'real'] as const).map((clock) => ({ timing, clock })),
);
const OVER_HTTP = [
  { timing: 'fast', clock: 'real' },
  { timing: 'instant', clock: 'manual' },
] as const;

/** Every target, by project name; the servers' URLs are filled in once they listen. */
function plannedTargets(urls: Record<string, string>): SelfTestTarget[] {
  return [
    ...Object.keys(EXPECTED).map((variant) => ({
      name: variant,
      env: { CONTRACT_VARIANT: variant, ...(variant === 'no-delegation' ? TRON_NODE : {}) },
    })),
    { name: 'opaque-read-only', env: { CONTRACT_VARIANT: 'opaque' } },
    {
      name: 'opaque-spend',
      env: { CONTRACT_VARIANT: 'opaque', CONTRACT_ALLOW_SPEND: '1', CONTRACT_MAX_ORDERS: '1', ...TRON_NODE },
    },
    ...IN_PROCESS.map(({ timing, clock }) => ({
      name: `in-process-${timing}-${clock}`,
      env: { CONTRACT_SIM_TIMING: timing, CONTRACT_SIM_CLOCK: clock },
    })),
    ...OVER_HTTP.map(({ timing, clock }) => ({
      name: `http-${timing}-${clock}`,
      env: { CONTRACT_BASE_URL: urls[`${timing}-${clock}`]!, CONTRACT_API_KEY: 'demo-key' },
    })),
  ];
}

const servers: Array<{ close(): Promise<void> }> = [];
let selfTest: SelfTestRun;

beforeAll(async () => {
  const { serve } = await import('../cli/serve.ts');
  const urls: Record<string, string> = {};
  for (const { timing, clock } of OVER_HTTP) {
    const server = await serve({ port: 0, host: '127.0.0.1', timing, clock, quiet: true }, () => {});
    servers.push(server);
    urls[`${timing}-${clock}`] = server.url;
  }
  // Three workers on two cores: the real-clock targets mostly wait, and their waits
  // overlap the others' work.
  selfTest = await runSelfTest(scratch, [...plannedTargets(urls), ...FAMILY_GATE_TARGETS], 3);
  // Broken variants are among the targets, so the run as a whole must fail.
  expect(selfTest.code, 'the run of every target exits non-zero').toBe(1);
}, 300_000);

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  rmSync(scratch, { recursive: true, force: true });
});

/** A target's outcome, as if the suite had run against it alone. */
function outcome(name: string): SelfTestOutcome {
  return selfTest.outcome(name);
}

/** A passing target: exit 0 alone, no failed case, and nothing failed outside a case. */
function expectPassed(outcome: SelfTestOutcome): void {
  passed(outcome, selfTest.output);
}

describe('the contract suite against broken simulators', () => {
  it('knows what each broken variant must trip', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual(Object.keys(BROKEN_VARIANTS).sort());
  });

  it.for(Object.keys(EXPECTED))('fails the variant %s, naming the broken field or rule', (variant) => {
    expectFailedNaming(outcome(variant), variant, EXPECTED[variant]!);
  });
});

describe('the spending guard against a target that is not a simulator', () => {
  it('runs only read-only cases without CONTRACT_ALLOW_SPEND, saying why the rest were skipped', () => {
    const run = outcome('opaque-read-only');
    expectPassed(run);
    const { report } = run;
    expect(report.target?.simulator).toBe(false);
    expect(report.spent.orders).toBe(0);
    const createCalls = report.cases
      .flatMap((c) => c.interactions)
      .filter((i) => i.operationId === 'createOrder');
    expect(createCalls).toEqual([]);
    expect(report.cases.filter((c) => c.reason?.includes('CONTRACT_ALLOW_SPEND=1')).length).toBeGreaterThan(
      0,
    );
  });

  it('creates at most CONTRACT_MAX_ORDERS cheapest orders with CONTRACT_ALLOW_SPEND=1, and reports the spend', () => {
    const run = outcome('opaque-spend');
    expectPassed(run);
    const { report } = run;
    const accepted = report.cases
      .flatMap((c) => c.interactions)
      .filter((i) => i.operationId === 'createOrder' && i.response?.status === 200);
    expect(accepted).toHaveLength(1);
    // In the query string, as upstream's usage example sends an order.
    expect(accepted[0]!.request.url).toContain('rentalCount=64000');
    expect(accepted[0]!.request.url).toContain('period=10min');
    expect(report.spent).toEqual({ orders: 1, byCurrency: { TRX: '3.84' } });
    expect(run.summary).toMatch(/spent: 1 order \(3\.84 TRX\)/);
    expect(JSON.stringify(report)).not.toContain('demo-key');
    // --tron-node: the order's energy read on chain, against the documented facts.
    const chain = report.cases.find((c) => c.name.includes('delivers the energy on chain'));
    expect(chain).toMatchObject({ verdict: 'passed', facts: ['energy-delivery', 'delegation-end'] });
    expect(chain?.notes?.join('\n')).toMatch(/its energy was on chain [\d.]+ s after creation/);
  });
});

describe('the contract suite against the simulator under every timing profile and clock', () => {
  it.for(IN_PROCESS)('passes in-process with $timing timing and a $clock clock', ({ timing, clock }) => {
    const run = outcome(`in-process-${timing}-${clock}`);
    expectPassed(run);
    expect(run.report.target).toMatchObject({ simulator: true, timing, clock });
  });

  it.for(OVER_HTTP)('passes over HTTP against serve --timing $timing --clock $clock', ({ timing, clock }) => {
    const run = outcome(`http-${timing}-${clock}`);
    expectPassed(run);
    expect(run.report.target).toMatchObject({ kind: 'url', simulator: true, timing, clock });
  });
});

describe('the contract suite against the family of stand-ins', () => {
  it.for(FAMILY_GATE_TARGETS.filter((t) => !t.name.includes('+')).map((t) => t.name))(
    'passes against %s',
    (name) => {
      const result = outcome(name);
      expectPassed(result);
      expect(result.report.target?.simulator).toBe(false);
      expect(result.report.spent.orders, 'one order spent, or none read-only').toBe(
        name.endsWith('-spend') ? 1 : 0,
      );
    },
  );

  it.for(Object.keys(FAMILY_GATE_EXPECTATIONS))('fails %s, naming the documented fact it breaks', (name) => {
    expectFailedNaming(outcome(name), name, FAMILY_GATE_EXPECTATIONS[name]!);
  });
});
