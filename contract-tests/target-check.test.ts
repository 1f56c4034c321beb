import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createSimulator } from '../mock/simulator.ts';
import { CliError } from '../src/cli-error.ts';
import { requireReachableTarget, runContract } from './contract-command.ts';

/** A loopback port nothing listens on: one that was just let go of. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** What requireReachableTarget stops a run with against `url` and `apiKey`; undefined when it lets it go on. */
async function problemWith(
  url: string,
  apiKey: string,
  fetchImpl?: typeof fetch,
): Promise<string | undefined> {
  const env = { CONTRACT_BASE_URL: url, CONTRACT_API_KEY: apiKey };
  return requireReachableTarget(env, fetchImpl).then(
    () => undefined,
    (error: unknown) => {
      expect(error).toBeInstanceOf(CliError);
      return (error as CliError).message;
    },
  );
}

describe('requireReachableTarget', () => {
  it('says in one line that a URL nobody listens on is not reachable, with the network error', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const problem = await problemWith(url, 'demo-key');
    expect(problem).toBe(
      `not reachable: ${url} (ECONNREFUSED); check --base-url (CONTRACT_BASE_URL) and that the server runs.`,
    );
    expect(problem).not.toMatch(/not a simulator|\n/);
  });

  it('says the key is rejected when the target answers 401, without repeating the key', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const problem = await problemWith('http://sim.test', 'wrong-key-123', sim.fetch);
    expect(problem).toMatch(
      /^key rejected: http:\/\/sim\.test answered 401, code \d+ to GET \/v1\/account with the key given; check --api-key \(CONTRACT_API_KEY\)\.$/,
    );
    expect(problem).not.toContain('wrong-key-123');
  });

  it('lets a run go on when the target answers the key', async () => {
    const sim = createSimulator({ clock: 'manual' });
    expect(await problemWith('http://sim.test/', 'demo-key', sim.fetch)).toBeUndefined();
  });
});

describe('contract against a URL', () => {
  it('stops before any case with one CliError (exit code 2) when the target is not reachable', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const error = await runContract(['--base-url', url, '--api-key', 'k', '--report', '/dev/null'], {}).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).message).toMatch(/^not reachable: http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
  });

  it('stops before any case when the key is refused', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const error = await runContract(
      ['--base-url', 'http://sim.test', '--api-key', 'nope'],
      {},
      { fetch: sim.fetch },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).message).toMatch(/^key rejected: /);
  });
});
