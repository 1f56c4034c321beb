/**
 * One simulator per `--state` file: two real CLI processes on one file.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, linkSync, lstatSync, readlinkSync } from 'node:fs';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
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

  it(
    'shares one lock among the names of one file: a simulator on a symlink to a locked file is refused, and saves keep the symlink',
    { timeout: 60_000 },
    async () => {
      const real = await stateFileIn();
      const link = join(dirname(real), 'link.json');
      await symlink('sim.json', link);
      const first = await startCli(
        ['serve', '--port', '0', '--state', real, '--save-interval', '50'],
        cleanups,
        /listening on (http:\/\/\S+)[^]*control plane:/,
      );
      // A second simulator that is let in runs on: it is given 20 s to be refused.
      const second = await Promise.race([
        runCli(['serve', '--port', '0', '--state', link], cleanups),
        new Promise<{ code: string; stdout: string; stderr: string }>((resolve) =>
          setTimeout(() => resolve({ code: 'still running after 20 s', stdout: '', stderr: '' }), 20_000),
        ),
      ]);
      expect(second.code).toBe(2);
      expect(second.stderr).toMatch(/^energy-rental-kit: [^\n]+\n$/);
      expect(second.stderr).toContain(
        `energy-rental-kit: --state: '${link}' (the real file '${real}') is in use by process ${first.child.pid} (since `,
      );
      expect(second.stderr).toContain(`lock ${real}.lock)`);
      expect(second.stdout).not.toMatch(/listening/);
      expect(existsSync(`${link}.lock`)).toBe(false);

      const created = (await (
        await fetch(
          `${first.url}/v1/tron/order?pledgeAddress=TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3&rentalCount=65000&period=1h&outOrderNo=through-the-real-name`,
          { method: 'POST', headers: { 'API-KEY': 'demo-key' } },
        )
      ).json()) as { code: number; data: { id: string } };
      expect(created.code).toBe(0);
      const savedIds = async (): Promise<string[]> =>
        (JSON.parse(await readFile(real, 'utf8')) as { orders: { id: string }[] }).orders.map((o) => o.id);
      for (const deadline = Date.now() + 10_000; !(await savedIds()).includes(created.data.id);) {
        if (Date.now() > deadline) throw new Error('the order was not saved within 10 s');
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      // The save renamed its file onto the real path: the link is still a link to it.
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
      expect(readlinkSync(link)).toBe('sim.json');

      // Started on the link, a simulator restores that state, locks the real file and saves through it.
      first.child.kill('SIGTERM');
      expect((await exitOf(first.child)).code).toBe(0);
      const next = await startCli(
        ['serve', '--port', '0', '--state', link],
        cleanups,
        /listening on (http:\/\/\S+)[^]*control plane:/,
      );
      expect(next.output()).toMatch(/restored 1 order,/);
      expect(JSON.parse(await readFile(`${real}.lock`, 'utf8')).pid).toBe(next.child.pid);
      expect(existsSync(`${link}.lock`)).toBe(false);
      next.child.kill('SIGTERM');
      expect((await exitOf(next.child)).code).toBe(0);
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
      expect(await savedIds()).toEqual([created.data.id]);
    },
  );

  it('refuses a --state file with a second name (a hard link), which no lock can see', async () => {
    const file = await stateFileIn();
    await writeFile(file, '{}');
    const other = join(dirname(file), 'other-name.json');
    linkSync(file, other);
    const refusal = await serve(
      { port: 0, host: '127.0.0.1', state: other, quiet: true },
      () => undefined,
    ).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(CliError);
    expect((refusal as Error).message).toBe(
      `--state: '${other}' has 2 names (hard links); a save replaces it under this one only and a simulator on another name would not see the lock. Pass a file with one name (a symlink to it is fine).`,
    );
    expect(existsSync(`${file}.lock`) || existsSync(`${other}.lock`)).toBe(false);
  });

  it.each([
    ['its port is in use', 'port'],
    ['its --replay file is missing', 'replay'],
    ['its --state file is not JSON', 'state'],
  ] as const)(
    'lets go of the lock and its exit hook when a start fails after taking them because %s',
    async (_name, failing) => {
      const file = await stateFileIn();
      const blocker = createServer();
      await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
      cleanups.push(() => new Promise((resolve) => blocker.close(() => resolve(undefined))));
      if (failing === 'state') await writeFile(file, 'not json');
      const exitHooks = process.listenerCount('exit');
      const refusal = await serve(
        {
          port: failing === 'port' ? (blocker.address() as { port: number }).port : 0,
          host: '127.0.0.1',
          state: file,
          quiet: true,
          ...(failing === 'replay' ? { replay: join(dirname(file), 'missing.json') } : {}),
        },
        () => undefined,
      ).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(CliError);
      expect(existsSync(`${file}.lock`)).toBe(false);
      expect(process.listenerCount('exit')).toBe(exitHooks);
      if (failing === 'state') return;
      // The file is free: a simulator starts on it, and its close lets go of it again.
      const next = await serve({ port: 0, host: '127.0.0.1', state: file, quiet: true }, () => undefined);
      expect(existsSync(`${file}.lock`)).toBe(true);
      await next.close();
      expect(existsSync(`${file}.lock`)).toBe(false);
      expect(process.listenerCount('exit')).toBe(exitHooks);
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
