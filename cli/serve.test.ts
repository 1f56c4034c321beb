/**
 * `energy-rental-kit serve`: its flags and environment, serve() over a real socket, and
 * the real CLI as a child process.
 */
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve as serveFetch } from '@hono/node-server';
import { afterEach, describe, expect, it } from 'vitest';
import { createSimulator } from '../mock/simulator.ts';
import { CliError } from '../src/cli-error.ts';
import { CLI_COMMANDS } from '../src/generated/cli.ts';
import { parseServeArgs, serve, SERVE_HELP, type ServeOptions } from './serve.ts';
import { exitOf, runCli, startCli } from './test-support.ts';
import { ADDRESS } from '../mock/test-support/fixtures.ts';

const demo = { 'API-KEY': 'demo-key' };

function cliError(run: () => unknown): CliError {
  let error: unknown;
  try {
    run();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(CliError);
  return error as CliError;
}

async function rejection(promise: Promise<unknown>): Promise<CliError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CliError);
  return error as CliError;
}

// Temporary files, servers and child processes of one test, cleaned up after it.
const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function tempFile(name: string, text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'erk-serve-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, name);
  await writeFile(file, text);
  return file;
}

async function started(
  options: Partial<ServeOptions>,
): Promise<{ url: string; lines: string[]; close: () => Promise<void> }> {
  const lines: string[] = [];
  const running = await serve({ port: 0, host: '127.0.0.1', ...options }, (line) => lines.push(line));
  let closed = false;
  const close = async () => {
    if (!closed) await running.close();
    closed = true;
  };
  cleanups.push(close);
  return { url: running.url, lines, close };
}

describe('parseServeArgs', () => {
  it('defaults to port 8787 on 127.0.0.1 and leaves the rest to the simulator', () => {
    expect(parseServeArgs([], {})).toEqual({
      port: 8787,
      host: '127.0.0.1',
      config: undefined,
      seed: undefined,
      clock: undefined,
      timing: undefined,
      token: undefined,
      state: undefined,
      saveIntervalMs: 1000,
      fsync: 'everysec',
      logMaxMb: 64,
      log: 'pretty',
      quiet: false,
      sources: {},
    });
  });

  it('reads every flag', () => {
    const args = [
      '--port',
      '0',
      '--host',
      '0.0.0.0',
      '--config',
      'sim.yaml',
      '--seed',
      '42',
      '--clock',
      'manual',
      '--timing',
      'fast',
      '--token',
      's3cret',
    ];
    expect(
      parseServeArgs(
        [
          ...args,
          '--state',
          'sim.state.json',
          '--save-interval',
          '250',
          '--fsync',
          'always',
          '--log-max-mb',
          '8',
          '--log',
          'json',
          '--quiet',
        ],
        {},
      ),
    ).toEqual({
      port: 0,
      host: '0.0.0.0',
      config: 'sim.yaml',
      seed: 42,
      clock: 'manual',
      timing: 'fast',
      token: 's3cret',
      state: 'sim.state.json',
      saveIntervalMs: 250,
      fsync: 'always',
      logMaxMb: 8,
      log: 'json',
      quiet: true,
      sources: Object.fromEntries(
        [
          'port',
          'host',
          'config',
          'seed',
          'clock',
          'timing',
          'token',
          'state',
          'save-interval',
          'fsync',
          'log-max-mb',
          'log',
        ].map((name) => [name, `--${name}`]),
      ),
    });
  });

  it('refuses an --fsync policy or a --log-max-mb it does not know, naming the flag', () => {
    expect(() => parseServeArgs(['--fsync', 'sometimes'], {})).toThrow(/--fsync/);
    expect(() => parseServeArgs(['--log-max-mb', '0'], {})).toThrow(/--log-max-mb/);
  });

  it('accepts --flag=value', () => {
    expect(parseServeArgs(['--port=9000', '--clock=real'], {})).toMatchObject({ port: 9000, clock: 'real' });
  });

  it.each([
    ['ENERGY_SIM_QUIET', 'quiet'],
    ['ENERGY_SIM_ALLOW_SPEND', 'allowSpend'],
    ['ENERGY_SIM_FORWARD_UNKNOWN', 'forwardUnknown'],
  ] as const)('reads %s as on for true and yes, and off for no and empty', (variable, option) => {
    const env = (value: string): NodeJS.ProcessEnv => ({
      ENERGY_SIM_UPSTREAM: 'http://x',
      [variable]: value,
    });
    for (const on of ['true', 'YES', '1'])
      expect((parseServeArgs([], env(on)) as ServeOptions)[option]).toBe(true);
    for (const off of ['no', 'False', '0', ''])
      expect((parseServeArgs([], env(off)) as ServeOptions)[option]).toBe(false);
  });

  it.each([
    'ENERGY_SIM_QUIET',
    'ENERGY_SIM_ALLOW_SPEND',
    'ENERGY_SIM_RECORD_APPEND',
    'ENERGY_SIM_RECORD_OVERWRITE',
  ])('refuses %s=maybe, naming the variable and the values it takes', (variable) => {
    const error = cliError(() =>
      parseServeArgs([], {
        ENERGY_SIM_UPSTREAM: 'http://x',
        ENERGY_SIM_RECORD: 'r.json',
        [variable]: 'maybe',
      }),
    );
    expect(error.message).toBe(
      `${variable} must be one of 1, true, yes (on) or 0, false, no, empty (off) (got 'maybe').`,
    );
  });

  it('continues a recording when ENERGY_SIM_RECORD_APPEND is true', () => {
    expect(
      parseServeArgs([], {
        ENERGY_SIM_UPSTREAM: 'http://x',
        ENERGY_SIM_RECORD: 'r.json',
        ENERGY_SIM_RECORD_APPEND: 'true',
      }),
    ).toMatchObject({ recordMode: 'append' });
  });

  it('honours the environment variables', () => {
    const env = {
      ENERGY_SIM_PORT: '9100',
      ENERGY_SIM_HOST: '::1',
      ENERGY_SIM_CONFIG: 'env.json',
      ENERGY_SIM_SEED: '5',
      ENERGY_SIM_CLOCK: 'manual',
      ENERGY_SIM_TIMING: 'instant',
      ENERGY_SIM_TOKEN: 'env-token',
      ENERGY_SIM_STATE: 'env.state.json',
      ENERGY_SIM_SAVE_INTERVAL: '500',
      ENERGY_SIM_FSYNC: 'no',
      ENERGY_SIM_LOG_MAX_MB: '2',
      ENERGY_SIM_LOG: 'json',
      ENERGY_SIM_QUIET: '1',
    };
    expect(parseServeArgs([], env)).toEqual({
      port: 9100,
      host: '::1',
      config: 'env.json',
      seed: 5,
      clock: 'manual',
      timing: 'instant',
      token: 'env-token',
      state: 'env.state.json',
      saveIntervalMs: 500,
      fsync: 'no',
      logMaxMb: 2,
      log: 'json',
      quiet: true,
      // A value's source is kept for its messages; a switch needs none.
      sources: Object.fromEntries(
        Object.entries(CLI_COMMANDS.serve.options)
          .filter(([, o]) => 'value' in o && 'env' in o && o.env in env)
          .map(([name, o]) => [name, `${'env' in o ? o.env : ''} (the environment variable of --${name})`]),
      ),
    });
  });

  it('lets the flags win over the environment', () => {
    const env = {
      ENERGY_SIM_PORT: '9100',
      ENERGY_SIM_CLOCK: 'manual',
      ENERGY_SIM_SEED: '5',
      ENERGY_SIM_TOKEN: 'env-token',
      ENERGY_SIM_TIMING: 'instant',
    };
    const options = parseServeArgs(
      ['--port', '9200', '--clock', 'real', '--seed', '6', '--token', 'flag-token', '--timing', 'fast'],
      env,
    );
    expect(options).toMatchObject({
      port: 9200,
      clock: 'real',
      seed: 6,
      token: 'flag-token',
      timing: 'fast',
    });
  });

  it('treats empty environment variables as unset', () => {
    expect(
      parseServeArgs([], { ENERGY_SIM_PORT: '', ENERGY_SIM_TOKEN: '', ENERGY_SIM_CLOCK: '' }),
    ).toMatchObject({ port: 8787, token: undefined, clock: undefined });
  });

  it.each([['--help'], ['-h'], ['--port', '1', '--help']])('answers help for %j', (...args) => {
    expect(parseServeArgs(args, {})).toBe('help');
  });

  it.each([
    [['--port', '99999'], /--port.*0 to 65535.*'99999'/],
    [['--port', '-1'], /^--port must be a whole number from 0 to 65535 \(got '-1'\)\.$/],
    [['--port', 'http'], /--port.*'http'/],
    [['--port', '80.5'], /--port.*'80.5'/],
    [['--seed', '1.5'], /--seed.*'1.5'/],
    [['--seed', '4294967296'], /--seed/],
    [['--clock', 'bogus'], /--clock must be one of real, manual \(got 'bogus'\)/],
    [['--timing', 'slow'], /--timing must be one of realistic, fast, instant \(got 'slow'\)/],
    [['--bogus'], /'--bogus'.*--help/],
    [['--verbose', '1'], /'--verbose'/],
    [['extra'], /'extra'/],
    [
      ['--port'],
      /^serve: --port needs a value, as in --port VALUE\. Run 'npx energy-rental-kit serve --help' for the options\.$/,
    ],
    [['--prot', '8787'], /^serve: unknown option '--prot' \(did you mean --port\?\)\. Run/],
    [['--quiet=yes'], /^serve: --quiet is a switch and takes no value/],
    [
      ['--host', '999.1.1.1'],
      /^--host must be an IP address or a host name of this machine.*\(got '999\.1\.1\.1'\)\.$/,
    ],
  ])('refuses %j with a CliError naming the option', (args, message) => {
    expect(cliError(() => parseServeArgs(args, {})).message).toMatch(message);
  });

  it.each([
    [{ ENERGY_SIM_PORT: '99999' }, /--port.*'99999'/],
    [{ ENERGY_SIM_CLOCK: 'bogus' }, /--clock.*'bogus'/],
    [{ ENERGY_SIM_SEED: 'x' }, /--seed.*'x'/],
  ])('refuses the environment %j with a CliError naming the option', (env, message) => {
    expect(cliError(() => parseServeArgs([], env)).message).toMatch(message);
  });

  it.each([
    [
      { ENERGY_SIM_CLOCK: 'bogus' },
      "ENERGY_SIM_CLOCK (the environment variable of --clock) must be one of real, manual (got 'bogus').",
    ],
    [
      { ENERGY_SIM_TIMING: 'slow' },
      "ENERGY_SIM_TIMING (the environment variable of --timing) must be one of realistic, fast, instant (got 'slow').",
    ],
    [
      { ENERGY_SIM_PORT: '99999' },
      "ENERGY_SIM_PORT (the environment variable of --port) must be a whole number from 0 to 65535 (got '99999').",
    ],
    [
      { ENERGY_SIM_LOG: 'xml' },
      "ENERGY_SIM_LOG (the environment variable of --log) must be one of pretty, json (got 'xml').",
    ],
  ])('names the environment variable a bad value came from, not the flag: %j', (env, message) => {
    expect(cliError(() => parseServeArgs([], env)).message).toBe(message);
  });

  it('reads --max-file-mb and ENERGY_SIM_MAX_FILE_MB, the flag winning, and names where a bad one came from', () => {
    expect(parseServeArgs([], {})).not.toHaveProperty('maxFileMb');
    expect(parseServeArgs(['--max-file-mb', '64'], {})).toMatchObject({
      maxFileMb: 64,
      sources: { 'max-file-mb': '--max-file-mb' },
    });
    expect(parseServeArgs([], { ENERGY_SIM_MAX_FILE_MB: '8' })).toMatchObject({ maxFileMb: 8 });
    expect(parseServeArgs(['--max-file-mb=2'], { ENERGY_SIM_MAX_FILE_MB: '8' })).toMatchObject({
      maxFileMb: 2,
    });
    expect(cliError(() => parseServeArgs(['--max-file-mb', '0'], {})).message).toBe(
      "--max-file-mb must be a whole number of megabytes from 1 to 511 (got '0').",
    );
    expect(cliError(() => parseServeArgs([], { ENERGY_SIM_MAX_FILE_MB: '1e3' })).message).toBe(
      "ENERGY_SIM_MAX_FILE_MB (the environment variable of --max-file-mb) must be a whole number of megabytes from 1 to 511 (got '1e3').",
    );
  });

  it('names the flag when the flag set the value, even with the variable set too', () => {
    expect(cliError(() => parseServeArgs(['--clock', 'bogus'], { ENERGY_SIM_CLOCK: 'real' })).message).toBe(
      "--clock must be one of real, manual (got 'bogus').",
    );
    expect(parseServeArgs(['--clock', 'manual'], { ENERGY_SIM_CLOCK: 'bogus' })).toMatchObject({
      clock: 'manual',
      sources: { clock: '--clock' },
    });
  });
});

describe('serve()', () => {
  it('serves the simulated API and the control plane on the printed URL', async () => {
    const { url, lines } = await started({ clock: 'manual' });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(lines[0]).toBe(`energy-rental-kit simulator listening on ${url}`);
    expect(lines.join('\n')).toMatch(/clock manual, timing realistic, seed 1/);
    expect(lines.join('\n')).toContain(`control plane: ${url}/_sim`);
    const price = await fetch(`${url}/v1/tron/price?rentalCount=65000&period=1h`, { headers: demo });
    expect(((await price.json()) as { data: { trxPrice: string } }).data.trxPrice).toBe('4.23');
    expect((await fetch(`${url}/_sim/rules`)).status).toBe(200);
  });

  it('stops listening once closed', async () => {
    const { url, close } = await started({});
    await fetch(`${url}/_sim/health`);
    await close();
    await expect(fetch(`${url}/_sim/health`)).rejects.toThrow();
  });

  it('serves the accounts and settings of a YAML --config file, with the flags winning over it', async () => {
    const file = await tempFile(
      'sim.yaml',
      [
        'seed: 9',
        'clock: real',
        'timing: instant',
        'settings:',
        "  prices: { 1h: '70' }",
        'accounts:',
        '  - apiKey: yaml-key-1',
        "    balance: { trx: '12' }",
        '',
      ].join('\n'),
    );
    const { url, lines } = await started({ config: file, clock: 'manual', seed: 4 });
    expect(lines.join('\n')).toMatch(/clock manual, timing instant, seed 4/);
    expect(lines.join('\n')).not.toContain('<API_KEY>');
    expect(lines.join('\n')).toContain(
      `API key: the apiKey of an account of ${file} (1 account, none with demo-key), or a new one: curl -s -X POST '${url}/_sim/accounts'`,
    );
    expect(lines.join('\n')).toContain(`-H "API-KEY: $API_KEY"`);
    const account = (await (
      await fetch(`${url}/v1/account`, { headers: { 'API-KEY': 'yaml-key-1' } })
    ).json()) as any;
    expect(account.data.balance.available.trx).toBe('12');
    const price = (await (
      await fetch(`${url}/v1/tron/price?rentalCount=65000&period=1h`, {
        headers: { 'API-KEY': 'yaml-key-1' },
      })
    ).json()) as any;
    expect(price.data.sun).toBe('70');
    expect((await fetch(`${url}/v1/account`, { headers: demo })).status).toBe(401);
  });

  it('refuses an address this machine does not have with one line naming --host and the code', async () => {
    const error = await rejection(serve({ port: 0, host: '192.0.2.1' }, () => {}));
    expect(error).toBeInstanceOf(CliError);
    expect(error.message).toBe(
      "--host: cannot listen on '192.0.2.1' (EADDRNOTAVAIL); pass an address of this machine, such as 127.0.0.1 or 0.0.0.0.",
    );
  });

  it('says how to make an account when the scenario has none, instead of a placeholder key', async () => {
    const file = await tempFile('empty.json', JSON.stringify({ accounts: [] }));
    const { url, lines } = await started({ config: file });
    const banner = lines.join('\n');
    expect(banner).not.toContain('<API_KEY>');
    expect(banner).toContain(
      `API key: none: the scenario has no account; create one with curl -s -X POST '${url}/_sim/accounts'`,
    );
  });

  it('reads a JSON --config file', async () => {
    const file = await tempFile(
      'sim.json',
      JSON.stringify({ accounts: [{ apiKey: 'json-key-1', balance: { usdt: '1' } }] }),
    );
    const { url } = await started({ config: file });
    expect((await fetch(`${url}/v1/account`, { headers: { 'API-KEY': 'json-key-1' } })).status).toBe(200);
  });

  it('refuses a --config file that does not exist with a CliError naming it', async () => {
    const missing = join(tmpdir(), 'erk-no-such-dir', 'missing.yaml');
    const error = await rejection(serve({ port: 0, host: '127.0.0.1', config: missing }, () => {}));
    // The message names the fix, not only the error code.
    expect(error.message).toBe(
      `--config: there is no file '${missing}' (ENOENT; looked for ${missing}). Fix: pass the path of a JSON or YAML scenario (such as examples/scenario.yaml in the package), or leave out --config for the default scenario.`,
    );
  });

  it('names ENERGY_SIM_CONFIG and how to fix it when the variable names a file that does not exist', async () => {
    const options = parseServeArgs(['--port', '0'], { ENERGY_SIM_CONFIG: 'no-such-scenario.yaml' });
    if (options === 'help') throw new Error('unexpected help');
    const error = await rejection(serve(options, () => {}));
    expect(error.message).toBe(
      `ENERGY_SIM_CONFIG (the environment variable of --config): there is no file 'no-such-scenario.yaml' (ENOENT; looked for ${join(process.cwd(), 'no-such-scenario.yaml')}). Fix: set ENERGY_SIM_CONFIG to the path of a JSON or YAML scenario, or unset it for the default scenario.`,
    );
  });

  it('refuses a --config or --state file over --max-file-mb, naming it, the limit and how to raise it, and leaves it alone', async () => {
    const padding = ' '.repeat(1024 * 1024);
    const scenario = await tempFile('large.yaml', `${padding}accounts: []\n`);
    const state = await tempFile('large.state.json', `${padding}{}`);
    const over = (file: string): string =>
      `'${file}' is 1.0 MB (${padding.length + (file === scenario ? 13 : 2)} bytes), over the limit of 1 MB; pass a smaller file, or raise the limit with --max-file-mb (or ENERGY_SIM_MAX_FILE_MB).`;
    expect(
      (await rejection(serve({ port: 0, host: '127.0.0.1', config: scenario, maxFileMb: 1 }, () => {})))
        .message,
    ).toBe(`--config: ${over(scenario)}`);
    expect(
      (await rejection(serve({ port: 0, host: '127.0.0.1', state, maxFileMb: 1 }, () => {}))).message,
    ).toBe(`--state: ${over(state)}`);
    expect((await readFile(state, 'utf8')).length).toBe(padding.length + 2);
    expect(existsSync(`${state}.lock`)).toBe(false);
  });

  it('refuses a scenario with an account without apiKey, naming the file and the field', async () => {
    const file = await tempFile('bad.yaml', "accounts:\n  - balance: { trx: '5' }\n");
    const error = await rejection(serve({ port: 0, host: '127.0.0.1', config: file }, () => {}));
    expect(error.message).toContain(`--config ${file}:`);
    expect(error.message).toMatch(/accounts\.0\.apiKey/);
  });

  it('refuses a scenario with an address that is not a TRON address', async () => {
    const file = await tempFile('bad.json', JSON.stringify({ activatedAddresses: ['TNotAnAddress'] }));
    const error = await rejection(serve({ port: 0, host: '127.0.0.1', config: file }, () => {}));
    expect(error.message).toMatch(/activatedAddresses.*'TNotAnAddress'/);
  });

  it.each([
    ['broken.json', '{"accounts": [', 1, 15],
    [
      'broken.yaml',
      "seed: 42\naccounts:\n  - { apiKey: team-key, balance: { trx: '500' }\nrules: []\n",
      4,
      1,
    ],
    ['tabbed.yaml', 'seed: 42\n\tclock: manual\n', 2, 1],
  ])(
    'refuses a --config file %s that does not parse in one line: the file, line and column',
    async (name, text, line, column) => {
      const file = await tempFile(name, text);
      const error = await rejection(serve({ port: 0, host: '127.0.0.1', config: file }, () => {}));
      expect(error.message).toMatch(/neither JSON nor YAML: \S/);
      expect(error.message.startsWith(`--config: ${file}:${line}:${column}: `), error.message).toBe(true);
      expect(error.message).not.toContain('\n');
    },
  );

  it('refuses a port in use with a CliError that says what to do', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => blocker.close(resolve)));
    const port = (blocker.address() as { port: number }).port;
    const error = await rejection(serve({ port, host: '127.0.0.1' }, () => {}));
    expect(error.message).toMatch(new RegExp(`Port ${port} on 127\\.0\\.0\\.1 is in use.*--port`));
  });

  it('turns the control plane off when bound off loopback without a token', async () => {
    const { url, lines } = await started({ host: '0.0.0.0' });
    expect(lines.join('\n')).toMatch(/control plane: off/);
    const port = new URL(url).port;
    expect((await fetch(`http://127.0.0.1:${port}/_sim/rules`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${port}/_sim/health`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${port}/v1/account`, { headers: demo })).status).toBe(200);
  });

  // BUG (minor): with `--token ''` (or --token= ) off loopback, serve() turns the control
  // plane on (cli/serve.ts: `enabled: loopback || options.token !== undefined`) but
  // without any token (control-guard.ts ignores an empty one), while the log line checks
  // `!options.token` and prints "control plane: off". Loopback callers then get the whole
  // control plane with no token, contrary to what the simulator announced.
  it('keeps the control plane off, as it announces, when bound off loopback with an empty --token', async () => {
    const { url, lines } = await started({ host: '0.0.0.0', token: '' });
    expect(lines.join('\n')).toMatch(/control plane: off/);
    const port = new URL(url).port;
    expect((await fetch(`http://127.0.0.1:${port}/_sim/rules`)).status).toBe(404);
  });

  it('asks for the token when bound off loopback with one', async () => {
    const { url, lines } = await started({ host: '0.0.0.0', token: 't0k' });
    expect(lines.join('\n')).toMatch(/\(token required\)/);
    const port = new URL(url).port;
    expect((await fetch(`http://127.0.0.1:${port}/_sim/rules`)).status).toBe(401);
    expect(
      (await fetch(`http://127.0.0.1:${port}/_sim/rules`, { headers: { Authorization: 'Bearer t0k' } }))
        .status,
    ).toBe(200);
  });
});

describe('the energy-rental-kit command', () => {
  it('serves an order from price to COMPLETED over a socket and exits 0 on SIGTERM', async () => {
    const { child, url, output } = await startCli(['serve', '--port', '0', '--clock', 'manual'], cleanups);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const price = (await (
      await fetch(`${url}/v1/tron/price?rentalCount=65000&period=1h`, { headers: demo })
    ).json()) as any;
    expect(price).toMatchObject({ code: 0, data: { sun: '65', trxPrice: '4.23' } });

    const created = (await (
      await fetch(
        `${url}/v1/tron/order?pledgeAddress=${ADDRESS}&rentalCount=65000&period=1h&outOrderNo=cli-1`,
        { method: 'POST', headers: demo },
      )
    ).json()) as any;
    expect(created).toMatchObject({ code: 0, data: { amount: 4.23, currency: 'TRX', outOrderNo: 'cli-1' } });
    const id: string = created.data.id;

    const pending = (await (
      await fetch(`${url}/v1/tron/history?orderId=${id}`, { headers: demo })
    ).json()) as any;
    expect(pending.data.status).toBe('PENDING');

    const advanced = await fetch(`${url}/_sim/clock/advance`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"ms":7000}',
    });
    expect(advanced.status).toBe(200);

    const done = (await (
      await fetch(`${url}/v1/tron/history?outOrderNo=cli-1`, { headers: demo })
    ).json()) as any;
    expect(done.data).toMatchObject({
      orderId: id,
      status: 'COMPLETED',
      txId: expect.stringMatching(/^[0-9a-f]{64}$/),
    });

    const killedAt = Date.now();
    child.kill('SIGTERM');
    const exit = await exitOf(child);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(Date.now() - killedAt).toBeLessThan(5000);
    expect(output()).toContain('SIGTERM received, shutting down');
  }, 40_000);

  it('exits 0 on SIGINT too, with a keep-alive connection open', async () => {
    const { child, url } = await startCli(['serve', '--port', '0'], cleanups);
    const res = await fetch(`${url}/_sim/health`, { headers: { connection: 'keep-alive' } });
    expect(res.status).toBe(200);
    child.kill('SIGINT');
    expect(await exitOf(child)).toEqual({ code: 0, signal: null });
  }, 40_000);

  it('exits 2 with a clear message for an invalid --config scenario', async () => {
    const file = await tempFile('bad.yaml', "accounts:\n  - balance: { trx: '5' }\n");
    const { code, stderr, stdout } = await runCli(['serve', '--port', '0', '--config', file], cleanups);
    expect(code).toBe(2);
    expect(stderr.trim()).toBe(
      `energy-rental-kit: --config ${file}: Missing required scenario field 'accounts.0.apiKey'.`,
    );
    expect(stdout).toBe('');
  }, 40_000);

  it('exits 2 naming the option for a bad flag', async () => {
    const { code, stderr } = await runCli(['serve', '--clock', 'bogus'], cleanups);
    expect(code).toBe(2);
    expect(stderr).toContain("--clock must be one of real, manual (got 'bogus')");
  }, 40_000);

  it('prints the usage of serve with --help and exits 0', async () => {
    const { code, stdout } = await runCli(['serve', '--help'], cleanups);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: energy-rental-kit serve \[options\]/);
    for (const flag of ['--port', '--host', '--config', '--seed', '--clock', '--timing', '--token'])
      expect(stdout).toContain(flag);
  }, 40_000);
});

describe('serve --upstream', () => {
  it('reads the proxy flags and their environment variables', () => {
    expect(
      parseServeArgs(
        [
          '--upstream',
          'https://api.eopen.io',
          '--upstream-timeout',
          '2500',
          '--upstream-max-bytes',
          '1048576',
          '--allow-spend',
          '--max-orders',
          '3',
        ],
        {},
      ),
    ).toMatchObject({
      upstream: 'https://api.eopen.io',
      upstreamTimeoutMs: 2500,
      upstreamMaxBytes: 1048576,
      allowSpend: true,
      maxOrders: 3,
    });
    expect(
      parseServeArgs([], {
        ENERGY_SIM_UPSTREAM: 'http://127.0.0.1:9',
        ENERGY_SIM_ALLOW_SPEND: '1',
        ENERGY_SIM_MAX_ORDERS: '1',
        ENERGY_SIM_UPSTREAM_TIMEOUT: '100',
        ENERGY_SIM_UPSTREAM_MAX_BYTES: '65536',
      }),
    ).toMatchObject({
      upstream: 'http://127.0.0.1:9',
      allowSpend: true,
      maxOrders: 1,
      upstreamTimeoutMs: 100,
      upstreamMaxBytes: 65536,
    });
    expect(parseServeArgs(['--upstream', 'https://api.eopen.io'], {})).toMatchObject({
      allowSpend: false,
      maxOrders: undefined,
      upstreamMaxBytes: undefined,
    });
    expect(parseServeArgs(['--upstream', 'https://api.eopen.io', '--record', 'live.json'], {})).toMatchObject(
      { record: 'live.json' },
    );
    expect(parseServeArgs([], { ENERGY_SIM_REPLAY: 'live.json' })).toMatchObject({ replay: 'live.json' });
    expect(
      parseServeArgs(['--upstream', 'http://x', '--max-spend', '25.5', '--forward-unknown'], {}),
    ).toMatchObject({ maxSpend: '25.5', forwardUnknown: true });
    expect(
      parseServeArgs([], {
        ENERGY_SIM_UPSTREAM: 'http://x',
        ENERGY_SIM_MAX_SPEND: '3',
        ENERGY_SIM_FORWARD_UNKNOWN: '1',
      }),
    ).toMatchObject({ maxSpend: '3', forwardUnknown: true });
    expect(parseServeArgs(['--upstream', 'http://x'], {})).toMatchObject({
      maxSpend: undefined,
      forwardUnknown: false,
    });
  });

  it.each([
    [['--upstream', 'api.eopen.io'], /--upstream must be the http\(s\) base URL of the service/],
    [['--upstream', 'ftp://x'], /--upstream must be the http\(s\) base URL/],
    [
      ['--allow-spend'],
      /^--allow-spend applies only in front of a service: add --upstream URL, or leave it out\.$/,
    ],
    [['--max-orders', '2'], /--max-orders applies only in front of a service/],
    [['--max-spend', '2'], /--max-spend applies only in front of a service/],
    [['--forward-unknown'], /--forward-unknown applies only in front of a service/],
    [
      ['--upstream', 'http://x', '--max-spend', '1.2345678'],
      /--max-spend must be an amount of TRX such as 25 or 25\.5, at most 6 decimals \(got '1\.2345678'\)/,
    ],
    [['--upstream', 'http://x', '--max-spend', 'ten'], /--max-spend must be an amount of TRX/],
    [
      ['--upstream', 'http://x', '--upstream-timeout', '0'],
      /--upstream-timeout must be a whole number from 1 to 600000/,
    ],
    [
      ['--upstream', 'http://x', '--upstream-max-bytes', '0'],
      /^--upstream-max-bytes must be a whole number from 1 to 1073741824 \(got '0'\)\.$/,
    ],
    [
      ['--upstream', 'http://x', '--upstream-max-bytes', '8MiB'],
      /^--upstream-max-bytes must be a whole number from 1 to 1073741824 \(got '8MiB'\)\.$/,
    ],
    [
      ['--upstream', 'http://x', '--upstream-max-bytes', '1073741825'],
      /--upstream-max-bytes must be a whole number from 1 to 1073741824/,
    ],
    [
      ['--upstream-max-bytes', '1024'],
      /^--upstream-max-bytes applies only in front of a service: add --upstream URL/,
    ],
    [
      ['--allow-spend', '--forward-unknown'],
      /^--allow-spend and --forward-unknown apply only in front of a service: add --upstream URL, or leave them out\.$/,
    ],
    [['--record', 'x.json'], /--record records the traffic of a proxy: add --upstream URL/],
    [['--replay', 'x.json', '--upstream', 'http://x'], /--replay and --upstream exclude each other/],
  ])('refuses %j with a message naming the flag and the fix', (args, message) => {
    expect(() => parseServeArgs(args, {})).toThrow(CliError);
    expect(() => parseServeArgs(args, {})).toThrow(message);
  });

  it('names ENERGY_SIM_UPSTREAM_MAX_BYTES when the variable holds a bad value', () => {
    expect(
      cliError(() => parseServeArgs(['--upstream', 'http://x'], { ENERGY_SIM_UPSTREAM_MAX_BYTES: '-1' }))
        .message,
    ).toBe(
      "ENERGY_SIM_UPSTREAM_MAX_BYTES (the environment variable of --upstream-max-bytes) must be a whole number from 1 to 1073741824 (got '-1').",
    );
  });

  it('exits 2 with one line naming --upstream-max-bytes and its rule for a bad value', async () => {
    const { code, stderr } = await runCli(
      ['serve', '--upstream', 'http://127.0.0.1:9', '--upstream-max-bytes', 'lots'],
      cleanups,
    );
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toContain("--upstream-max-bytes must be a whole number from 1 to 1073741824 (got 'lots')");
  }, 40_000);

  it('lists --upstream-max-bytes and its variable in the help', () => {
    expect(SERVE_HELP).toMatch(/--upstream-max-bytes N [^]*default 8388608 bytes/);
    expect(SERVE_HELP).toContain('ENERGY_SIM_UPSTREAM_MAX_BYTES');
  });

  it.each([[''], ['/api'], ['/api/']])(
    "prints a try line that reaches the upstream's documented base, /api/v1/…, given --upstream ORIGIN%s",
    async (basePath) => {
      // The real service answers under https://api.eopen.io/api only: so does this stand-in.
      const seen: string[] = [];
      const sim = createSimulator({ clock: 'manual' });
      const upstream = serveFetch({
        hostname: '127.0.0.1',
        port: 0,
        fetch: (request: Request) => {
          const { pathname, search } = new URL(request.url);
          seen.push(pathname + search);
          return pathname.startsWith('/api/v1/')
            ? sim.fetch(request)
            : new Response('Not Found', { status: 404 });
        },
      });
      await once(upstream, 'listening');
      cleanups.push(() => new Promise((resolve) => upstream.close(resolve)));
      const origin = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
      const proxy = await started({ upstream: `${origin}${basePath}` });
      const line = /^ {2}try: (curl .*)$/m.exec(proxy.lines.join('\n'))?.[1];
      expect(line, proxy.lines.join('\n')).toBeDefined();
      const ran = await new Promise<string>((resolve, reject) =>
        execFile('sh', ['-c', line!], { env: { ...process.env, API_KEY: 'demo-key' } }, (error, stdout) =>
          error ? reject(error) : resolve(stdout),
        ),
      );
      expect(JSON.parse(ran)).toMatchObject({ code: 0, data: { trxPrice: '4.23' } });
      expect(seen).toEqual(['/api/v1/tron/price?rentalCount=65000&period=1h']);
    },
  );

  it('serves as a proxy in front of another simulator: the API goes upstream, the control plane stays local', async () => {
    const lines: string[] = [];
    const upstream = await serve(
      { port: 0, host: '127.0.0.1', clock: 'manual', timing: 'instant', quiet: true },
      () => {},
    );
    const proxy = await serve(
      { port: 0, host: '127.0.0.1', upstream: upstream.url, allowSpend: false },
      (line) => lines.push(line),
    );
    try {
      const price = await fetch(`${proxy.url}/v1/tron/price?rentalCount=65000&period=1h`, {
        headers: { 'API-KEY': 'demo-key' },
      });
      expect(price.status).toBe(200);
      const order = await fetch(`${proxy.url}/v1/tron/order`, {
        method: 'POST',
        headers: { 'API-KEY': 'demo-key', 'content-type': 'application/x-www-form-urlencoded' },
        body: 'pledgeAddress=TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3&rentalCount=65000&period=1h',
      });
      expect(order.status).toBe(403);
      const upstreamOrders = (await (
        await fetch(`${upstream.url}/_sim/orders`, { headers: { 'API-KEY': 'demo-key' } })
      ).json()) as { orders: unknown[] };
      expect(upstreamOrders.orders).toEqual([]);
      const health = (await (await fetch(`${proxy.url}/_sim/health`)).json()) as {
        mode: string;
        proxy: { upstream: string; forwarded: number; refusedOrders: number };
      };
      expect(health).toMatchObject({
        mode: 'proxy',
        proxy: { upstream: upstream.url, forwarded: 1, refusedOrders: 1 },
      });
      const banner = lines.join('\n');
      expect(banner).toContain(`upstream: ${upstream.url} (only the API forwarded`);
      expect(banner).toContain('spend guard: orders refused: no --allow-spend');
      // What matters in front of a service: no clock, timing or seed, no placeholder key.
      expect(banner).not.toMatch(/clock (real|manual), timing|seed \d|<API_KEY>/);
      expect(banner).toContain('API key: your key of');
      expect(banner).toContain('control plane in proxy mode: health, reset, config (rateLimit), faults');
    } finally {
      await proxy.close();
      await upstream.close();
    }
  });
});
