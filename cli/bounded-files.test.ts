/**
 * Files the CLI reads (states, recordings, scenarios) are read only when they are regular
 * files under the size limit: the real CLI as a child process, given a device, a named
 * pipe, a symlink to a device and a file over `--max-file-mb`, ends at once with exit code
 * 2 and one line naming the option, the path, the rule and the fix.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ROOT, runCli, type Cleanups } from './test-support.ts';

const cleanups: Cleanups = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const scratch = mkdtempSync(path.join(os.tmpdir(), 'erk-bounded-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const FIFO = path.join(scratch, 'pipe');
execFileSync('mkfifo', [FIFO]);
const ZERO_LINK = path.join(scratch, 'state-link.json');
symlinkSync('/dev/zero', ZERO_LINK);
// A real recording with 1.2 MB of padding: over a limit of 1 MB, far under the default.
const BIG = path.join(scratch, 'big.json');
writeFileSync(
  BIG,
  JSON.stringify({
    ...(JSON.parse(readFileSync(path.join(ROOT, 'fixtures/simulator-recording.json'), 'utf8')) as object),
    padding: 'x'.repeat(1.2 * 1024 * 1024),
  }),
);

const BIG_SIZE = statSync(BIG).size;
const OVER_THE_LIMIT = `'${BIG}' is ${(BIG_SIZE / 2 ** 20).toFixed(1)} MB (${BIG_SIZE} bytes), over the limit of 1 MB; pass a smaller file, or raise the limit with --max-file-mb (or ENERGY_SIM_MAX_FILE_MB).`;

async function timed(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ ms: number } & Awaited<ReturnType<typeof runCli>>> {
  const started = Date.now();
  const result = await runCli(args, cleanups, env);
  return { ...result, ms: Date.now() - started };
}

/**
 * Runs the CLI and checks that it refused at once: exit 2, one line on stderr, no stack,
 * in under 2 s. The 2 s are counted beyond the time the same command takes to print its
 * help, run beside it under the same load: calibrate and drift start through tsx, which
 * alone took 1 to 2.7 s on this two-core machine while other suites ran.
 */
async function refused(args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  const [run, help] = await Promise.all([timed(args, env), timed([args[0]!, '--help'], env)]);
  expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 2, stdout: '' });
  expect(run.stderr).toMatch(/^energy-rental-kit: [^\n]+\n$/);
  expect(run.stderr).not.toMatch(/\bat .*:\d+:\d+/);
  expect(help.code).toBe(0);
  expect(run.ms - help.ms, `ended after ${run.ms} ms, its help after ${help.ms} ms`).toBeLessThan(2000);
  return run.stderr.slice('energy-rental-kit: '.length, -1);
}

describe('a file that is no regular file is refused at once', () => {
  it.each([
    [
      'serve --replay /dev/zero',
      ['serve', '--port', '0', '--replay', '/dev/zero'],
      "--replay: '/dev/zero' is not a regular file (a character device); pass the path of a recording file.",
    ],
    [
      'serve --replay a named pipe',
      ['serve', '--port', '0', '--replay', FIFO],
      `--replay: '${FIFO}' is not a regular file (a named pipe); pass the path of a recording file.`,
    ],
    [
      'serve --state a symlink to /dev/zero',
      ['serve', '--port', '0', '--state', ZERO_LINK],
      `--state: '${ZERO_LINK}' is not a regular file (a character device); pass the path of a state file, or of one to create.`,
    ],
    [
      'serve --config a named pipe',
      ['serve', '--port', '0', '--config', FIFO],
      `--config: '${FIFO}' is not a regular file (a named pipe); pass the path of a JSON or YAML scenario (such as examples/scenario.yaml in the package), or leave out --config for the default scenario.`,
    ],
    [
      'calibrate /dev/zero',
      ['calibrate', '/dev/zero', '--out', path.join(scratch, 'never.yaml')],
      "RECORDING: '/dev/zero' is not a regular file (a character device); pass the path of a recording file.",
    ],
    [
      'calibrate --base a named pipe',
      [
        'calibrate',
        'fixtures/simulator-recording.json',
        '--base',
        FIFO,
        '--out',
        path.join(scratch, 'n.yaml'),
      ],
      `--base: '${FIFO}' is not a regular file (a named pipe); pass a JSON or YAML scenario, or leave --base out for the embedded one.`,
    ],
    [
      'drift /dev/zero x.json',
      ['drift', '/dev/zero', 'x.json'],
      "OLD: '/dev/zero' is not a regular file (a character device); pass the path of a recording file.",
    ],
  ])(
    '%s exits 2 in under 2 s with one line naming the option, the path and the rule',
    async (_, args, line) => {
      expect(await refused(args)).toBe(line);
    },
  );
});

describe('a file over --max-file-mb is refused at once', () => {
  it.each([
    ['serve --replay', ['serve', '--port', '0', '--max-file-mb', '1', '--replay', BIG], '--replay'],
    [
      'calibrate',
      ['calibrate', BIG, '--max-file-mb', '1', '--out', path.join(scratch, 'n.yaml')],
      'RECORDING',
    ],
    ['drift', ['drift', BIG, BIG, '--max-file-mb', '1'], 'OLD'],
  ])(
    '%s exits 2 in under 2 s naming the file, its size and how to raise the limit',
    async (_, args, source) => {
      expect(await refused(args)).toBe(`${source}: ${OVER_THE_LIMIT}`);
    },
  );

  it('takes the limit from ENERGY_SIM_MAX_FILE_MB, and reads the same file under the default', async () => {
    expect(await refused(['drift', BIG, BIG], { ENERGY_SIM_MAX_FILE_MB: '1' })).toBe(
      `OLD: ${OVER_THE_LIMIT}`,
    );
    const read = await runCli(['drift', BIG, BIG], cleanups);
    expect(read.stderr).toBe('');
    expect([read.code, read.stdout]).toEqual([0, expect.stringContaining('no drift')]);
  });

  it('refuses a bad --max-file-mb or ENERGY_SIM_MAX_FILE_MB with one line naming it and the rule', async () => {
    expect(await refused(['serve', '--port', '0', '--max-file-mb', '0'])).toBe(
      "--max-file-mb must be a whole number of megabytes from 1 to 511 (got '0').",
    );
    expect(await refused(['calibrate', BIG], { ENERGY_SIM_MAX_FILE_MB: 'lots' })).toBe(
      "ENERGY_SIM_MAX_FILE_MB (the environment variable of --max-file-mb) must be a whole number of megabytes from 1 to 511 (got 'lots').",
    );
  });
});
