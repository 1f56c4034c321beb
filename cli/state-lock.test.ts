/**
 * One simulator per `--state` file: two real CLI processes on one file.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CliError } from '../src/cli-error.ts';
import { serve } from './serve.ts';
import { exitOf, runCli, startCli, type Cleanups } from './test-support.ts';

const cleanups: Cleanups = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function stateFileIn(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'erk-lock-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return join(dir, 'sim.json');
}

const startServe = (file: string) =>
  startCli(
    ['serve', '--port', '0', '--state', file],
    cleanups,
    /listening on (http:\/\/\S+)[^]*control plane:/,
  );

describe('serve --state takes a lock on its file', () => {
  it(
    'refuses a second simulator on a file another live one writes, naming the file, the pid and the fix',
    { timeout: 60_000 },
    async () => {
      const file = await stateFileIn();
      const first = await startServe(file);
      const second = await runCli(['serve', '--port', '0', '--state', file], cleanups);
      expect(second.code).toBe(2);
      expect(second.stderr).toContain(
        `energy-rental-kit: --state: '${file}' is in use by process ${first.child.pid}`,
      );
      expect(second.stderr).toMatch(/Stop that simulator, or give this one another --state file/);
      expect(second.stderr).not.toMatch(/\n\s+at /);
      expect(second.stdout).not.toMatch(/listening/);
      // The first one still owns the file, and frees it on a clean shutdown.
      expect(JSON.parse(await readFile(`${file}.lock`, 'utf8')).pid).toBe(first.child.pid);
      first.child.kill('SIGTERM');
      expect((await exitOf(first.child)).code).toBe(0);
      expect(existsSync(`${file}.lock`)).toBe(false);
      const third = await startServe(file);
      third.child.kill('SIGTERM');
      expect((await exitOf(third.child)).code).toBe(0);
    },
  );

  it(
    'takes over the lock of a process that is gone (a crash or a SIGKILL)',
    { timeout: 60_000 },
    async () => {
      const file = await stateFileIn();
      // The pid of a process that has ended.
      const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
        encoding: 'utf8',
      }).stdout;
      await writeFile(
        `${file}.lock`,
        JSON.stringify({ pid: Number(gone), startedAt: '2026-01-01T00:00:00.000Z' }),
      );
      const running = await startServe(file);
      expect(JSON.parse(await readFile(`${file}.lock`, 'utf8')).pid).toBe(running.child.pid);
      running.child.kill('SIGKILL');
      await exitOf(running.child);
      // Its lock stays behind, stale, and the next start takes it over.
      expect(existsSync(`${file}.lock`)).toBe(true);
      const next = await startServe(file);
      expect(JSON.parse(await readFile(`${file}.lock`, 'utf8')).pid).toBe(next.child.pid);
    },
  );

  it('refuses a --state file whose directory does not exist, naming it, since no save could succeed', async () => {
    const file = join(tmpdir(), 'erk-no-such-dir', 'sim.json');
    const refusal = await serve(
      { port: 0, host: '127.0.0.1', state: file, quiet: true },
      () => undefined,
    ).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(CliError);
    expect((refusal as Error).message).toMatch(
      /^--state: cannot create the lock '.*sim\.json\.lock' \(ENOENT\); check that the directory of '.*sim\.json' exists/,
    );
  });
});
