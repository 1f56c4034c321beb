/**
 * The command dispatcher of the CLI, called in-process.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CliError } from '../src/cli-error.ts';
import { MAIN_HELP, main } from './main.ts';
import { SERVE_HELP } from './serve.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

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
    'lists every command with its flags and answers 0 for %s',
    async (flag) => {
      const stdout = captureStdout();
      expect(await main([flag], {})).toBe(0);
      const help = stdout();
      expect(help.startsWith(MAIN_HELP)).toBe(true);
      expect(help).toContain(SERVE_HELP);
      for (const command of ['serve', 'contract', 'record', 'drift'])
        expect(help).toContain(`Usage: energy-rental-kit ${command}`);
      for (const flag of [
        '--port',
        '--state',
        '--log',
        '--base-url',
        '--allow-spend',
        '--replay',
        '--out',
        '--spec',
        '--timing-threshold',
      ])
        expect(help).toContain(flag);
    },
  );

  it('tells a package user to run commands with npx, never with npm start or npm run', async () => {
    const stdout = captureStdout();
    expect(await main(['--help'], {})).toBe(0);
    const help = stdout();
    expect(help).not.toMatch(/npm start|npm run /);
    expect(help).toContain("Run 'npx energy-rental-kit <command> --help'");
    expect(help).toContain("started with 'npx energy-rental-kit serve'");
  });

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
