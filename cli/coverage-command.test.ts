import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CliError } from '../src/cli-error.ts';
import { coverageFileOf } from '../src/behaviour/coverage-file.ts';
import { createSimulator } from '../mock/simulator.ts';
import { runCoverage } from './coverage-command.ts';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A coverage file of a simulator that answered `paths` for the demo account. */
async function coverageFile(name: string, paths: string[]): Promise<string> {
  dir ??= mkdtempSync(path.join(tmpdir(), 'coverage-command-'));
  const sim = createSimulator({ clock: 'manual' });
  for (const p of paths) await sim.fetch(`http://sim${p}`, { headers: { 'API-KEY': 'demo-key' } });
  const file = path.join(dir, name);
  writeFileSync(file, JSON.stringify(coverageFileOf(sim.calls.coverage(), [name])));
  return file;
}

async function run(argv: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const code = await runCoverage(argv, { write: (text) => void (out += text), env: {} });
  return { code, out };
}

const PRICE = '/v1/tron/price?rentalCount=65000&period=1h';

describe('energy-rental-kit coverage', () => {
  it('merges files and prints each behaviour exercised, how often, and those never', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'coverage-command-'));
    const a = await coverageFile('energy-coverage-a.json', [PRICE, PRICE]);
    const b = await coverageFile('energy-coverage-b.json', [PRICE, '/v1/account']);
    const { code, out } = await run([a, b]);
    expect(code).toBe(0);
    expect(out).toMatch(/^op:getPrice\s+3\s+exercised$/m);
    expect(out).toMatch(/^op:getAccount\s+1\s+exercised$/m);
    expect(out).toMatch(/^status:REFUNDED\s+0\s+never$/m);
    expect(out).toMatch(
      /^rejection:duplicateOutOrderNo\s+—\s+impossible: duplicateOutOrderNo is return-existing/m,
    );
  });

  it('fails a --require that is not met, naming what is missing, and passes once it is', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'coverage-command-'));
    const file = await coverageFile('energy-coverage.json', [PRICE]);
    const failed = await run([file, '--require', 'op:getPrice,REFUNDED', '--require', 'createOrder']);
    expect(failed.code).toBe(1);
    expect(failed.out).toContain('Required but never exercised: status:REFUNDED, op:createOrder.');
    expect((await run([file, '--require', 'getPrice'])).code).toBe(0);
  });

  it('refuses an unknown or an ambiguous --require name, naming it', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'coverage-command-'));
    const file = await coverageFile('energy-coverage.json', [PRICE]);
    await expect(run([file, '--require', 'REFUND'])).rejects.toThrow(
      new CliError(
        "--require: 'REFUND' is no behaviour id (ids look like op:createOrder, status:REFUNDED, transition:FAILED>REFUNDED).",
      ),
    );
    await expect(run([file, '--require', 'status'])).rejects.toThrow(
      /'status' is ambiguous \(status:COMPLETED, status:PENDING/,
    );
  });

  it('writes the merged coverage as JSON and the table as markdown', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'coverage-command-'));
    const file = await coverageFile('energy-coverage.json', [PRICE]);
    const json = path.join(dir, 'out', 'merged.json');
    const markdown = path.join(dir, 'out', 'coverage.md');
    await run([file, '--json', json, '--markdown', markdown]);
    const merged = JSON.parse(readFileSync(json, 'utf8')) as {
      exercised: Record<string, number>;
      parameters: unknown;
    };
    expect(merged.exercised).toEqual({ 'op:getPrice': 1 });
    expect(merged.parameters).toEqual({ getPrice: ['period', 'rentalCount'] });
    expect(readFileSync(json, 'utf8')).not.toContain('65000');
    expect(readFileSync(markdown, 'utf8')).toContain('| `op:getPrice` | 1 | exercised |');
  });

  it('reads what GET /_sim/coverage answered, saved as it came, as it reads a coverage file', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'coverage-command-'));
    const sim = createSimulator({ clock: 'manual' });
    await sim.fetch(`http://sim${PRICE}`, { headers: { 'API-KEY': 'demo-key' } });
    // What `curl …/_sim/coverage > energy-coverage.json` leaves.
    const saved = path.join(dir, 'energy-coverage.json');
    writeFileSync(saved, await (await sim.fetch('http://sim/_sim/coverage')).text());
    expect(JSON.parse(readFileSync(saved, 'utf8'))).not.toHaveProperty('format');
    const missing = await run([saved, '--require', 'insufficientBalance']);
    expect(missing.code).toBe(1);
    expect(missing.out).toContain('Required but never exercised: rejection:insufficientBalance.');
    expect((await run([saved, '--require', 'getPrice'])).code).toBe(0);
  });

  it('names a file that is no coverage file, and the rule it breaks', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'coverage-command-'));
    const bad = path.join(dir, 'energy-coverage.json');
    writeFileSync(
      bad,
      JSON.stringify({ format: 'energy-rental-kit/coverage@1', exercised: { x: 0 }, never: [] }),
    );
    await expect(run([bad])).rejects.toThrow(/energy-coverage\.json: \/exercised\/x: must be >= 1 \(got 0\)/);
    await expect(run([path.join(dir, 'missing.json')])).rejects.toThrow(CliError);
    await expect(run([])).rejects.toThrow(/at least one coverage file/);
  });
});
