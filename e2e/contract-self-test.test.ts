/**
 * Proof that the contract suite can fail: it runs against deliberately broken
 * simulators and must fail each one, naming the broken field or rule. It also proves
 * the spending guard against a simulator that hides its control plane.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BROKEN_VARIANTS } from '../contract-tests/broken-variants.ts';
import type { ContractReport } from '../contract-tests/contract-report.ts';
import { createSlots } from '../contract-tests/test-support.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const vitestCli = path.join(
  path.dirname(createRequire(import.meta.url).resolve('vitest/package.json')),
  'vitest.mjs',
);
const scratch = mkdtempSync(path.join(os.tmpdir(), 'contract-self-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const withSlot = createSlots(2);

/** Runs the contract suite with extra environment; resolves with its exit code and report. */
function runSuite(
  name: string,
  env: Record<string, string>,
): Promise<{ code: number; report: ContractReport; output: string }> {
  return withSlot(() => spawnSuite(name, env));
}

function spawnSuite(
  name: string,
  env: Record<string, string>,
): Promise<{ code: number; report: ContractReport; output: string }> {
  const reportPath = path.join(scratch, `${name}.json`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [vitestCli, 'run', '--project', 'contract', '--maxWorkers=1'], {
      cwd: root,
      env: {
        ...process.env,
        CONTRACT_REPORT: reportPath,
        CONTRACT_RUN_DIR: path.join(scratch, `${name}-run`),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      try {
        resolve({
          code: code ?? 1,
          report: JSON.parse(readFileSync(reportPath, 'utf8')) as ContractReport,
          output,
        });
      } catch (error) {
        reject(
          new Error(`no report from the ${name} run (exit ${code}): ${output.slice(-2000)}`, {
            cause: error,
          }),
        );
      }
    });
  });
}

/** What each variant's failure must name: a case and a phrase of its error. */
const EXPECTED: Record<string, { test: RegExp; error: RegExp }> = {
  'field-removed': { test: /getPrice/, error: /\/data\/trxPrice: must have required property/ },
  'type-changed': { test: /history/, error: /\/data\/createdAt: must be integer/ },
  'number-as-string': {
    test: /getPrice/,
    error: /\/data\/rentalCount: must be integer[\s\S]*actual value: "64000"/,
  },
  'status-skipped': { test: /terminal status/, error: /COMPLETED order carries the delegation txId/ },
  'status-reversed': { test: /terminal status/, error: /status moved from COMPLETED back to PROCESSING/ },
  'wrong-rounding': {
    test: /rounded half up/,
    error: /trxPrice for 65000 × 65 sun: expected '4\.22' to be '4\.23'/,
  },
  'missing-refund': { test: /forced failure/, error: /the refund restores the balance/ },
  'wrong-echo': { test: /echoes outOrderNo/, error: /outOrderNo is echoed back/ },
  'auth-dropped': { test: /without an API key/, error: /the call must be rejected/ },
};

describe('the contract suite against broken simulators', () => {
  it('knows what each broken variant must trip', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual(Object.keys(BROKEN_VARIANTS).sort());
  });

  it.concurrent.for(Object.keys(EXPECTED))(
    'fails the variant %s, naming the broken field or rule',
    { timeout: 120_000 },
    async (variant) => {
      const { code, report } = await runSuite(variant, { CONTRACT_VARIANT: variant });
      expect(code, `the suite must exit non-zero against ${variant}`).not.toBe(0);
      const failed = report.cases.filter((c) => c.verdict === 'failed');
      const named = failed.find(
        (c) =>
          EXPECTED[variant]!.test.test(c.name) && c.errors?.some((e) => EXPECTED[variant]!.error.test(e)),
      );
      expect(
        named,
        `no failure names the break; failures: ${JSON.stringify(
          failed.map((c) => ({ name: c.name, errors: c.errors })),
          null,
          1,
        )}`,
      ).toBeDefined();
    },
  );
});

describe('the spending guard against a target that is not a simulator', () => {
  it.concurrent(
    'runs only read-only cases without CONTRACT_ALLOW_SPEND, saying why the rest were skipped',
    async () => {
      const { code, report } = await runSuite('opaque-read-only', { CONTRACT_VARIANT: 'opaque' });
      expect(code).toBe(0);
      expect(report.target?.simulator).toBe(false);
      expect(report.spent.orders).toBe(0);
      const createCalls = report.cases
        .flatMap((c) => c.interactions)
        .filter((i) => i.operationId === 'createOrder');
      expect(createCalls).toEqual([]);
      expect(report.cases.filter((c) => c.reason?.includes('CONTRACT_ALLOW_SPEND=1')).length).toBeGreaterThan(
        0,
      );
    },
    120_000,
  );

  it.concurrent(
    'creates at most CONTRACT_MAX_ORDERS cheapest orders with CONTRACT_ALLOW_SPEND=1, and reports the spend',
    async () => {
      const { code, report, output } = await runSuite('opaque-spend', {
        CONTRACT_VARIANT: 'opaque',
        CONTRACT_ALLOW_SPEND: '1',
        CONTRACT_MAX_ORDERS: '1',
      });
      expect(code, output.slice(-1500)).toBe(0);
      const accepted = report.cases
        .flatMap((c) => c.interactions)
        .filter((i) => i.operationId === 'createOrder' && i.response?.status === 200);
      expect(accepted).toHaveLength(1);
      expect(accepted[0]!.request.body).toContain('rentalCount=64000');
      expect(accepted[0]!.request.body).toContain('period=10min');
      expect(report.spent).toEqual({ orders: 1, byCurrency: { TRX: '3.84' } });
      expect(output).toMatch(/spent: 1 order \(3\.84 TRX\)/);
      expect(JSON.stringify(report)).not.toContain('demo-key');
    },
    120_000,
  );
});

describe('the contract suite against the simulator under every timing profile and clock', () => {
  const inProcess = (['realistic', 'fast', 'instant'] as const).flatMap((timing) =>
    (['manual', 'real'] as const).map((clock) => ({ timing, clock })),
  );

  it.concurrent.for(inProcess)(
    'passes in-process with $timing timing and a $clock clock',
    { timeout: 180_000 },
    async ({ timing, clock }) => {
      const { code, report, output } = await runSuite(`in-process-${timing}-${clock}`, {
        CONTRACT_SIM_TIMING: timing,
        CONTRACT_SIM_CLOCK: clock,
      });
      expect(code, output.slice(-3000)).toBe(0);
      expect(report.cases.filter((c) => c.verdict === 'failed')).toEqual([]);
      expect(report.target).toMatchObject({ simulator: true, timing, clock });
    },
  );

  it.concurrent.for([
    { timing: 'fast', clock: 'real' },
    { timing: 'instant', clock: 'manual' },
  ] as const)(
    'passes over HTTP against serve --timing $timing --clock $clock',
    { timeout: 180_000 },
    async ({ timing, clock }) => {
      const { serve } = await import('../cli/serve.ts');
      const server = await serve({ port: 0, host: '127.0.0.1', timing, clock, quiet: true }, () => {});
      try {
        const { code, report, output } = await runSuite(`http-${timing}-${clock}`, {
          CONTRACT_BASE_URL: server.url,
          CONTRACT_API_KEY: 'demo-key',
        });
        expect(code, output.slice(-3000)).toBe(0);
        expect(report.cases.filter((c) => c.verdict === 'failed')).toEqual([]);
        expect(report.target).toMatchObject({ kind: 'url', simulator: true, timing, clock });
      } finally {
        await server.close();
      }
    },
  );
});

describe('the contract suite against a stand-in that chooses differently where upstream is silent', () => {
  const SPEND = { CONTRACT_ALLOW_SPEND: '1', CONTRACT_MAX_ORDERS: '2' };

  it.concurrent.for(['stand-in', 'stand-in-failing'])(
    'passes against %s: errors as HTTP 200, account code 1, createdAt in seconds, HTML 404, duplicates refused, instant refunds, its own prices',
    { timeout: 120_000 },
    async (variant) => {
      const { code, report, output } = await runSuite(variant, { CONTRACT_VARIANT: variant, ...SPEND });
      expect(code, output.slice(-3000)).toBe(0);
      expect(report.target?.simulator).toBe(false);
      expect(report.cases.filter((c) => c.verdict === 'failed')).toEqual([]);
      expect(report.spent.orders, 'the order cases ran').toBeGreaterThan(0);
    },
  );

  const BREAKS: Record<string, { test: RegExp; error: RegExp }> = {
    'stand-in+wrong-rounding': {
      test: /half cent up/,
      error: /trxPrice for \d+ × 71 sun: expected '[\d.]+' to be '[\d.]+'/,
    },
    'stand-in+number-as-string': { test: /getPrice|prices/, error: /\/data\/rentalCount: must be integer/ },
    'stand-in+type-changed': { test: /history/, error: /\/data\/createdAt: must be integer/ },
    'stand-in+wrong-echo': { test: /echoes outOrderNo/, error: /outOrderNo is echoed back/ },
    'stand-in+status-reversed': {
      test: /terminal status/,
      error: /status moved from COMPLETED back to PROCESSING/,
    },
    'stand-in+txid-missing': {
      test: /terminal status/,
      error: /COMPLETED order carries the delegation txId/,
    },
  };

  it.concurrent.for(Object.keys(BREAKS))(
    'fails %s, naming the documented fact it breaks',
    { timeout: 120_000 },
    async (variant) => {
      const { code, report } = await runSuite(variant, { CONTRACT_VARIANT: variant, ...SPEND });
      expect(code).not.toBe(0);
      const failed = report.cases.filter((c) => c.verdict === 'failed');
      const named = failed.find(
        (c) => BREAKS[variant]!.test.test(c.name) && c.errors?.some((e) => BREAKS[variant]!.error.test(e)),
      );
      expect(
        named,
        `no failure names the break; failures: ${JSON.stringify(
          failed.map((c) => ({ name: c.name, errors: c.errors })),
          null,
          1,
        )}`,
      ).toBeDefined();
    },
  );
});
