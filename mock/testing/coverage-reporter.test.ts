import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import EnergyCoverageReporter, { COVERAGE_DIR_ENV } from './coverage-reporter.ts';
import { startSimulator } from './start-simulator.ts';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const PRICE = '/v1/tron/price?rentalCount=65000&period=1h';

describe('the coverage reporter', () => {
  it('merges the coverage of a running simulator and of each stopped startSimulator into one file', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'coverage-reporter-'));
    const outputFile = path.join(dir, 'energy-coverage.json');
    const lines: string[] = [];
    const saved = process.env[COVERAGE_DIR_ENV];
    delete process.env[COVERAGE_DIR_ENV];
    const served = await startSimulator();
    try {
      const reporter = new EnergyCoverageReporter({
        simulators: [served.url],
        outputFile,
        log: (l) => lines.push(l),
      });
      reporter.onInit();
      await fetch(`${served.url}${PRICE}`, { headers: { 'API-KEY': 'demo-key' } });
      // A test's own simulator, stopped before the run ends.
      const own = await startSimulator({ listen: false });
      await own.fetch(`http://simulator${PRICE}`, { headers: { 'API-KEY': 'demo-key' } });
      await own.fetch('http://simulator/v1/account', { headers: { 'API-KEY': 'demo-key' } });
      await own.stop();
      const merged = await reporter.onTestRunEnd();
      expect(merged?.exercised).toEqual({ 'op:getPrice': 2, 'op:getAccount': 1 });
      expect(JSON.parse(readFileSync(outputFile, 'utf8'))).toEqual(merged);
      expect(merged?.sources).toEqual([served.url, 'startSimulator']);
      expect(process.env[COVERAGE_DIR_ENV]).toBeUndefined();
    } finally {
      await served.stop();
      if (saved !== undefined) process.env[COVERAGE_DIR_ENV] = saved;
    }
  });

  it('says which simulator it could not read, and writes what it could', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'coverage-reporter-'));
    const lines: string[] = [];
    const reporter = new EnergyCoverageReporter({
      simulators: ['http://127.0.0.1:9'],
      outputFile: path.join(dir, 'energy-coverage.json'),
      log: (l) => lines.push(l),
    });
    reporter.onInit();
    expect(await reporter.onTestRunEnd()).toBeUndefined();
    expect(lines[0]).toMatch(/could not read http:\/\/127\.0\.0\.1:9\/_sim\/coverage .*it is left out/);
    expect(lines[1]).toMatch(/no simulator to read/);
  });
});
