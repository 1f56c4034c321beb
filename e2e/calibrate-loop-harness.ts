/** The calibration loop: record a service, calibrate, serve the scenario, record it, count breaking drift. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { serve } from '../cli/serve.ts';
import { runCalibrate } from '../drift/calibrate-command.ts';
import { runDrift } from '../drift/drift-command.ts';
import type { DriftReport, Finding } from '../drift/finding.ts';
import { runRecord } from '../drift/record-command.ts';

/** One spending order, as the suite spends on the real service; the kit's own runs keep no pace. */
const RECORD_FLAGS = ['--allow-spend', '--max-orders', '1'];

/** Records the suite against a variant (in-process) or a URL; resolves with the recording's path. */
async function recordTarget(
  dir: string,
  name: string,
  target: { variant: string } | { baseUrl: string },
): Promise<string> {
  const out = path.join(dir, `${name}.json`);
  let output = '';
  const targetArgs =
    'baseUrl' in target ? ['--base-url', target.baseUrl, '--api-key', 'demo-key', '--as-upstream'] : [];
  const env = 'variant' in target ? { CONTRACT_VARIANT: target.variant } : {};
  const code = await runRecord(
    ['--out', out, '--report', path.join(dir, `${name}-report.json`), ...RECORD_FLAGS, ...targetArgs],
    { ...process.env, ...env },
    { write: (text) => void (output += text), vitestArgs: ['--maxWorkers=1'], stdio: 'pipe' },
  );
  // A failing suite still writes a recording; only a missing one stops the loop.
  if (!output.includes('Recording written to'))
    throw new Error(`no recording of ${name} (exit ${code}): ${output.slice(-2000)}`);
  return out;
}

/** Serves a scenario (or the defaults) and records it as the real service is recorded. */
export async function recordServed(dir: string, name: string, config?: string): Promise<string> {
  const server = await serve(
    { port: 0, host: '127.0.0.1', quiet: true, ...(config ? { config } : {}) },
    () => {},
  );
  try {
    return await recordTarget(dir, name, { baseUrl: server.url });
  } finally {
    await server.close();
  }
}

/** The breaking findings of `drift OLD NEW`. */
export async function breakingDrift(dir: string, oldFile: string, newFile: string): Promise<Finding[]> {
  const json = path.join(dir, `drift-${path.basename(oldFile, '.json')}-${path.basename(newFile)}`);
  await runDrift([oldFile, newFile, '--json', json], { write: () => {} });
  const report = JSON.parse(readFileSync(json, 'utf8')) as DriftReport;
  return report.findings.filter((f) => f.severity === 'breaking');
}

/** What the loop came to on one service. */
export interface LoopResult {
  /** Breaking findings between the service and the simulator's defaults. */
  before: Finding[];
  /** Breaking findings between the service and the simulator calibrated from it. */
  after: Finding[];
  /** What calibrate printed: the settings it learnt and the evidence. */
  calibration: string;
}

/** Runs the loop on a variant against recorded defaults: `await calibrateLoop(dir, variant, defaults)`. */
export async function calibrateLoop(
  dir: string,
  variant: string,
  defaults: string,
  baseUrl?: string,
): Promise<LoopResult> {
  const upstream = await recordTarget(dir, variant, baseUrl ? { baseUrl } : { variant });
  const scenario = path.join(dir, `${variant}-calibrated.yaml`);
  let calibration = '';
  const write = (text: string): void => void (calibration += text);
  const code = await runCalibrate([upstream, '--out', scenario], { write });
  if (code !== 0) throw new Error(`calibrate failed on ${variant} (exit ${code}): ${calibration}`);
  const calibrated = await recordServed(dir, `${variant}-calibrated`, scenario);
  return {
    before: await breakingDrift(dir, upstream, defaults),
    after: await breakingDrift(dir, upstream, calibrated),
    calibration,
  };
}

/** One line per finding: kind, operation, path and the setting drift says would fix it. */
export function describeFindings(findings: Finding[]): string {
  return findings
    .map(
      (f) =>
        `  ${f.kind} ${f.operation} ${f.path}${f.calibration ? ` [${f.calibration}]` : ''}: ${f.message}`,
    )
    .join('\n');
}
