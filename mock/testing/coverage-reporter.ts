/**
 * The vitest reporter of behaviour coverage: merges each simulator's `GET /_sim/coverage` and what
 * each `startSimulator()` left when stopped into `energy-coverage.json`. In vitest.config.ts:
 *   reporters: ['default', ['energy-rental-kit/coverage-reporter', { simulators: ['http://127.0.0.1:8080'] }]]
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  coverageFileOf,
  mergeCoverage,
  readCoverageFile,
  type Coverage,
  type CoverageFile,
} from '../../src/behaviour/coverage-file.ts';

/** Where `startSimulator()` leaves its coverage when stopped; the reporter sets it for the run. */
export const COVERAGE_DIR_ENV = 'ENERGY_COVERAGE_DIR';

export interface CoverageReporterOptions {
  /** Base URLs of running simulators; default ENERGY_SIM_URL when set. */
  simulators?: string[];
  /** The control plane's token, when the simulators have one; default ENERGY_SIM_TOKEN. */
  token?: string;
  /** The file written; default energy-coverage.json. Its name should match energy-coverage*.json. */
  outputFile?: string;
  /** Where messages go; default stderr. */
  log?: (line: string) => void;
}

/**
 * The reporter. Vitest calls `onInit` before the tests and `onTestRunEnd` after them.
 * @example
 *   const reporter = new EnergyCoverageReporter({ simulators: ['http://127.0.0.1:8080'] });
 */
export default class EnergyCoverageReporter {
  private dir: string | undefined;
  private ownDir = false;

  constructor(private readonly options: CoverageReporterOptions = {}) {}

  /** Before the run: gives the run's simulators a place to leave their coverage. */
  onInit(): void {
    this.dir = process.env[COVERAGE_DIR_ENV];
    if (this.dir === undefined) {
      this.dir = mkdtempSync(path.join(tmpdir(), 'energy-coverage-'));
      this.ownDir = true;
      process.env[COVERAGE_DIR_ENV] = this.dir;
    }
  }

  /** After the run: reads every simulator, merges, writes the file; resolves with what it wrote. */
  async onTestRunEnd(): Promise<CoverageFile | undefined> {
    const log = this.options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
    const files: CoverageFile[] = [];
    const env = process.env;
    const urls = this.options.simulators ?? (env.ENERGY_SIM_URL ? [env.ENERGY_SIM_URL] : []);
    const token = this.options.token ?? env.ENERGY_SIM_TOKEN;
    for (const url of urls) {
      const base = url.replace(/\/+$/, '');
      try {
        const response = await fetch(`${base}/_sim/coverage`, {
          headers: token ? { authorization: `Bearer ${token}` } : {},
          signal: AbortSignal.timeout(5000),
        });
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        files.push(coverageFileOf((await response.json()) as Coverage, [base]));
      } catch (error) {
        log(
          `energy-rental-kit coverage: could not read ${base}/_sim/coverage (${(error as Error).message}); it is left out.`,
        );
      }
    }
    if (this.dir !== undefined) {
      const names = existsSync(this.dir) ? readdirSync(this.dir).filter((n) => n.endsWith('.json')) : [];
      for (const name of names.sort()) {
        try {
          files.push(readCoverageFile(JSON.parse(readFileSync(path.join(this.dir, name), 'utf8')), name));
        } catch (error) {
          log(`energy-rental-kit coverage: ${(error as Error).message}; it is left out.`);
        }
      }
      if (this.ownDir) {
        rmSync(this.dir, { recursive: true, force: true });
        delete process.env[COVERAGE_DIR_ENV];
      }
    }
    if (files.length === 0) {
      log(
        'energy-rental-kit coverage: no simulator to read (pass simulators, or start them with startSimulator()).',
      );
      return undefined;
    }
    const merged = mergeCoverage(files);
    const out = this.options.outputFile ?? 'energy-coverage.json';
    mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
    writeFileSync(out, `${JSON.stringify(merged, null, 2)}\n`);
    log(
      `energy-rental-kit coverage: wrote ${out} (run 'npx energy-rental-kit coverage ${out}' for the table).`,
    );
    return merged;
  }
}

/** Leaves a simulator's coverage for this run's reporter, if one runs: `leaveCoverage(sim.calls.coverage())`. */
export function leaveCoverage(coverage: Coverage): void {
  const dir = process.env[COVERAGE_DIR_ENV];
  if (!dir) return;
  try {
    mkdirSync(dir, { recursive: true });
    const name = `energy-coverage-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}.json`;
    writeFileSync(path.join(dir, name), JSON.stringify(coverageFileOf(coverage, ['startSimulator'])));
  } catch {
    // Coverage is a report on the tests; a test must never fail for it.
  }
}
