/**
 * The CI example users copy (examples/ci/upstream-check.yml) must run: it parses as a
 * GitHub Actions workflow on a schedule and on demand, and every energy-rental-kit
 * command in it exists and takes the flags it is given (checked by the commands' own
 * argument parsers, so a renamed flag breaks this test).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseCoverageArgs } from '../../cli/coverage-command.ts';
import { parseServeArgs } from '../../cli/serve.ts';
import { contractEnv } from '../../contract-tests/contract-command.ts';
import { parseDriftArgs } from '../../drift/drift-command.ts';
import { parseRecordArgs } from '../../drift/record-command.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const text = readFileSync(path.join(here, 'upstream-check.yml'), 'utf8');
const workflow = parse(text) as {
  on: Record<string, unknown>;
  jobs: Record<string, { steps: Array<{ run?: string; uses?: string; env?: Record<string, string> }> }>;
};

/** Each `npx energy-rental-kit …` of the run steps, as an argv (quotes removed, shell tails cut). */
function kitCommands(): string[][] {
  const out: string[][] = [];
  for (const job of Object.values(workflow.jobs)) {
    for (const step of job.steps) {
      for (const line of (step.run ?? '').split('\n')) {
        const at = line.indexOf('npx energy-rental-kit ');
        if (at === -1) continue;
        const command = line.slice(at + 'npx energy-rental-kit '.length).split(/\s+(\|\||&&|;)\s+/)[0]!;
        out.push(
          command
            .trim()
            .split(/\s+/)
            .map((word) => word.replace(/^"(.*)"$/, '$1')),
        );
      }
    }
  }
  return out;
}

const PARSERS: Record<string, (argv: string[]) => unknown> = {
  record: (argv) => parseRecordArgs(argv, {}),
  drift: (argv) => parseDriftArgs(argv),
  serve: (argv) => parseServeArgs(argv, {}),
  contract: (argv) => contractEnv(argv, {}),
  coverage: (argv) => parseCoverageArgs(argv, {}),
};

describe('examples/ci/upstream-check.yml', () => {
  it('is a workflow that runs on a schedule and on demand', () => {
    expect(Object.keys(workflow.on).sort()).toEqual(['schedule', 'workflow_dispatch']);
    expect(Object.keys(workflow.jobs).length).toBeGreaterThan(0);
  });

  it('records read-only with the key from a repository secret, compares, and uploads both reports', () => {
    const commands = kitCommands();
    expect(commands.map((c) => c[0])).toEqual(['coverage', 'record', 'drift']);
    const record = commands[1]!;
    expect(record).not.toContain('--allow-spend');
    expect(text).toMatch(/\$\{\{ secrets\.[A-Z_]+ \}\}/);
    const drift = commands[2]!;
    expect(drift).toEqual(
      expect.arrayContaining(['--markdown', '--json', '--usage', 'reports/energy-coverage.json']),
    );
    const upload = Object.values(workflow.jobs)
      .flatMap((j) => j.steps)
      .find((s) => s.uses?.startsWith('actions/upload-artifact@'));
    expect(upload, 'an upload-artifact step').toBeDefined();
  });

  it.each(kitCommands().map((argv) => [argv.join(' '), argv] as const))(
    'runs %s with a command and flags the kit takes',
    (_line, argv) => {
      const [command, ...args] = argv;
      expect(Object.keys(PARSERS), `energy-rental-kit has no command '${command}'`).toContain(command);
      // Shell variables stand for values the parsers only see as text.
      const values = args.map((a) => (a.startsWith('$') ? 'value-from-the-environment' : a));
      expect(() => PARSERS[command!]!(values)).not.toThrow();
    },
  );

  it('tolerates exit code 1 of record (cases failed, recording written) and nothing else', () => {
    const recordLine = text
      .split('\n')
      .find(
        (line) => line.includes('npx energy-rental-kit record --base-url') && !line.trim().startsWith('#'),
      );
    expect(recordLine).toBeDefined();
    expect(recordLine).toMatch(/\|\| \[ \$\? -eq 1 \]$/);
    expect(text).not.toMatch(/\|\| true/);
  });

  it('writes every file it makes, the report of the baseline included, under reports/', () => {
    const written = (argv: string[]): string[] =>
      ['--out', '--report', '--markdown', '--json'].flatMap((flag) => {
        const at = argv.indexOf(flag);
        return at === -1 ? [] : [argv[at + 1]!];
      });
    const files = kitCommands().flatMap(written);
    expect(files.length).toBeGreaterThanOrEqual(4);
    for (const file of files) expect(file).toMatch(/^reports\//);
    // The baseline command of the header comment: its report must not land in the repository root.
    const baseline = /#\s+npx energy-rental-kit (record .*)$/m.exec(text)?.[1]?.split(/\s+/);
    expect(baseline).toBeDefined();
    expect(written(baseline!)).toEqual(['recordings/upstream.json', 'reports/baseline-contract-report.json']);
  });
});
