/**
 * The command dispatcher of the CLI, called in-process.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { DRIFT_HELP } from '../drift/drift-command.ts';
import { RECORD_HELP } from '../drift/record-command.ts';
import { recordingText } from '../recording/recording-lines.ts';
import type { Recording } from '../recording/recording.ts';
import { baseline, dataOf, VALUES_B } from '../recording/test-support.ts';
import { CliError } from '../src/cli-error.ts';
import { kitVersion, MAIN_HELP, main } from './main.ts';
import { SERVE_HELP } from './serve.ts';
import { commandHelp, type CliOption } from '../src/cli-help.ts';
import { CLI_COMMANDS } from '../src/generated/cli.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

const scratch = mkdtempSync(path.join(os.tmpdir(), 'cli-main-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const file = (name: string, content: Recording): string => {
  const target = path.join(scratch, name);
  writeFileSync(target, recordingText(content));
  return target;
};

/** Captures what main() writes to stdout. */
function captureStdout(): () => string {
  const chunks: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    chunks.push(String(chunk));
    return true;
  });
  return () => chunks.join('');
}

describe('main', () => {
  it('prints the commands on stderr and answers exit code 2 when given none', async () => {
    const stderr: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      stderr.push(String(chunk));
      return true;
    });
    expect(await main([], {})).toBe(2);
    expect(stderr.join('')).toBe(MAIN_HELP);
    expect(MAIN_HELP).toMatch(/serve/);
  });

  it.each([['--help'], ['-h'], ['help']])(
    'lists the commands, one line each, and answers 0 for %s',
    async (flag) => {
      const stdout = captureStdout();
      expect(await main([flag], {})).toBe(0);
      const help = stdout();
      expect(help).toBe(MAIN_HELP);
      const listed = help.split('\n').filter((line) => /^ {2}\w/.test(line));
      expect(listed.map((line) => line.trim().split(' ')[0])).toEqual(Object.keys(CLI_COMMANDS));
      for (const line of help.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
      expect(help).not.toMatch(/npm start|npm run /);
      expect(help).toContain("Run 'npx energy-rental-kit <command> --help'");
    },
  );

  it.each(Object.keys(CLI_COMMANDS))(
    "prints %s's flags, each with its variable, from its table, and answers 0",
    async (command) => {
      const stdout = captureStdout();
      expect(await main([command, '--help'], {})).toBe(0);
      const help = stdout();
      expect(help).toBe(commandHelp(CLI_COMMANDS[command as keyof typeof CLI_COMMANDS]));
      expect(help).toMatch(new RegExp(`^Usage: energy-rental-kit ${command}`));
      for (const [name, option] of Object.entries(
        CLI_COMMANDS[command as keyof typeof CLI_COMMANDS].options as Record<string, CliOption>,
      )) {
        expect(help).toContain(`--${name}${option.value ? ` ${option.value}` : ''}`);
        if (option.env) expect(help).toContain(option.env);
      }
      expect(help).not.toMatch(/npm start|npm run /);
    },
  );

  it('prints the options of serve and answers 0 for serve --help', async () => {
    const stdout = captureStdout();
    expect(await main(['serve', '--help'], {})).toBe(0);
    expect(stdout()).toBe(SERVE_HELP);
    for (const variable of [
      'ENERGY_SIM_PORT',
      'ENERGY_SIM_HOST',
      'ENERGY_SIM_CONFIG',
      'ENERGY_SIM_SEED',
      'ENERGY_SIM_CLOCK',
      'ENERGY_SIM_TIMING',
      'ENERGY_SIM_TOKEN',
    ]) {
      expect(SERVE_HELP).toContain(variable);
    }
  });

  it('prints the package version and answers 0 for --version', async () => {
    const stdout = captureStdout();
    expect(await main(['--version'], {})).toBe(0);
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(stdout()).toBe(`${manifest.version}\n`);
    expect(kitVersion()).toBe(manifest.version);
  });

  it('suggests the command nearest to a misspelt one', async () => {
    const error = await main(['serv'], {}).catch((e: unknown) => e);
    expect((error as CliError).message).toMatch(/^Unknown command 'serv' \(did you mean serve\?\)/);
  });

  it.each([
    [['serve', '--host', '999.1.1.1'], {}, /^--host must be an IP address/],
    [['serve', '--port', '-1'], {}, /^--port must be a whole number from 0 to 65535 \(got '-1'\)\.$/],
    [['serve', '--prot', '8787'], {}, /did you mean --port\?/],
    [['serve'], { ENERGY_SIM_QUIET: 'maybe' }, /^ENERGY_SIM_QUIET must be one of 1, true, yes/],
    [['contract'], { CONTRACT_ALLOW_SPEND: 'sure' }, /^CONTRACT_ALLOW_SPEND must be one of 1, true, yes/],
  ])('answers %j with one line and exit code 2 through run', async (argv, env, message) => {
    const error = await main(argv, env).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).message).toMatch(message);
    expect((error as CliError).message).not.toMatch(/\n|\.\./);
  });

  it('rejects an unknown command with a CliError naming it', async () => {
    const error = await main(['srve'], {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).message).toMatch(/Unknown command 'srve'.*--help/);
  });

  it('rejects a bad serve option before it starts anything', async () => {
    const error = await main(['serve', '--port', '99999'], {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).message).toMatch(/--port/);
  });

  it('reads serve options from the environment it is given', async () => {
    const error = await main(['serve'], { ENERGY_SIM_TIMING: 'slow' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).message).toMatch(/--timing.*'slow'/);
  });
});

describe('main dispatches record and drift', () => {
  const OLD = file('old.json', baseline());
  const SAME_SHAPES = file('same-shapes.json', baseline(VALUES_B));
  const REMOVED = file(
    'removed.json',
    baseline(VALUES_B, (i) => void delete dataOf(i, 'getPrice').sun),
  );

  it('lists record and drift among the commands', () => {
    expect(MAIN_HELP).toMatch(/\n {2}record {5}.*--out FILE/);
    expect(MAIN_HELP).toMatch(/\n {2}drift {6}.*OLD NEW/);
    expect(MAIN_HELP).toMatch(/\n {2}coverage {3}.*FILES… --require IDS/);
  });

  it('dispatches drift and record, each with --help', async () => {
    const stdout = captureStdout();
    expect(await main(['drift', '--help'], {})).toBe(0);
    expect(await main(['record', '--help'], {})).toBe(0);
    expect(stdout()).toBe(DRIFT_HELP + RECORD_HELP);
    expect(DRIFT_HELP).toMatch(
      /--spec[\s\S]*--format FORMAT[\s\S]*--markdown FILE[\s\S]*--json FILE[\s\S]*--timing-threshold S[\s\S]*Exit code 1 on breaking drift, 0 otherwise, 2 on a usage error/,
    );
  });

  it('exits with the drift verdict through main', async () => {
    captureStdout();
    expect(await main(['drift', OLD, SAME_SHAPES], {})).toBe(0);
    expect(await main(['drift', OLD, REMOVED], {})).toBe(1);
  });
});
