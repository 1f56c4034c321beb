/**
 * `serve --allowed-hosts` (ENERGY_SIM_ALLOWED_HOSTS): which Host names the simulator
 * answers besides localhost and IP addresses, read, validated and applied.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { rawRequest } from '../mock/test-support/socket-test-support.ts';
import { CliError } from '../src/cli-error.ts';
import { parseServeArgs, serve, SERVE_HELP, type ServeOptions } from './serve.ts';
import { runCli, type Cleanups } from './test-support.ts';

const cleanups: Cleanups = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function started(options: Partial<ServeOptions>): Promise<number> {
  const running = await serve({ port: 0, host: '127.0.0.1', quiet: true, ...options }, () => {});
  cleanups.push(running.close);
  return Number(new URL(running.url).port);
}

describe('parseServeArgs --allowed-hosts', () => {
  it('reads the flag and the environment, the flag winning, and treats empty as unset', () => {
    expect(parseServeArgs(['--allowed-hosts', 'energy-sim,.example.com'], {})).toMatchObject({
      allowedHosts: ['energy-sim', '.example.com'],
    });
    expect(parseServeArgs([], { ENERGY_SIM_ALLOWED_HOSTS: 'all' })).toMatchObject({ allowedHosts: 'all' });
    expect(parseServeArgs(['--allowed-hosts=other'], { ENERGY_SIM_ALLOWED_HOSTS: 'all' })).toMatchObject({
      allowedHosts: ['other'],
    });
    expect(parseServeArgs([], { ENERGY_SIM_ALLOWED_HOSTS: '' })).toMatchObject({ allowedHosts: undefined });
  });

  it.each([
    [['--allowed-hosts', 'http://energy-sim'], {}, '--allowed-hosts'],
    // A bad variable is named as such, not as the flag.
    [
      [],
      { ENERGY_SIM_ALLOWED_HOSTS: 'energy-sim:8787' },
      'ENERGY_SIM_ALLOWED_HOSTS (the environment variable of --allowed-hosts)',
    ],
  ])('refuses %j %j with a CliError naming where the value came from and the fix', (args, env, source) => {
    let error: unknown;
    try {
      parseServeArgs(args, env);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CliError);
    expect((error as Error).message.startsWith(`${source}: '`)).toBe(true);
    expect((error as Error).message).toMatch(
      /: '.*' is not a host name: give names without scheme, port or path/,
    );
  });

  it('is in the help', () => {
    expect(SERVE_HELP).toMatch(
      /--allowed-hosts A,B [^]*'\.example\.com'[^]*'all'[^]*\(ENERGY_SIM_ALLOWED_HOSTS\)/,
    );
  });
});

describe('serve() with --allowed-hosts', () => {
  it('answers localhost and its IP by default, and refuses another name with a message naming the flag', async () => {
    const port = await started({});
    expect((await rawRequest(port, 'GET', '/_sim/health', { host: `localhost:${port}` })).status).toBe(200);
    const refused = await rawRequest(port, 'GET', '/_sim/health', { host: `energy-sim:${port}` });
    expect(refused.status).toBe(403);
    expect(refused.body.msg).toMatch(/--allowed-hosts energy-sim/);
  });

  it('answers the names it was given, and every name with all', async () => {
    const named = await started({ allowedHosts: ['energy-sim'] });
    expect((await rawRequest(named, 'GET', '/_sim/health', { host: 'energy-sim:8787' })).status).toBe(200);
    expect((await rawRequest(named, 'GET', '/_sim/health', { host: 'evil.example' })).status).toBe(403);
    const open = await started({ allowedHosts: 'all' });
    expect((await rawRequest(open, 'GET', '/_sim/health', { host: 'evil.example' })).status).toBe(200);
  });

  it('exits with status 2 and the message when the CLI is given a wrong name', async () => {
    const { code, stderr } = await runCli(
      ['serve', '--port', '0', '--allowed-hosts', 'energy-sim:8787'],
      cleanups,
    );
    expect(code).toBe(2);
    expect(stderr).toMatch(/--allowed-hosts: 'energy-sim:8787' is not a host name.*any port is allowed/);
  }, 40_000);
});
