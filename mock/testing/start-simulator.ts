/** `startSimulator()` for users' tests: a fresh simulator on a loopback port, a client, control helpers. */
import type { AddressInfo } from 'node:net';
import type { components } from '../../src/generated/control.ts';
import { createClient, type ClientOptions, type EnergyRentalClient } from '../../src/client/index.ts';
import { createSimulatorServer } from '../node-server.ts';
import { leaveCoverage } from './coverage-reporter.ts';
import { createSimulator, type Simulator, type SimulatorOptions } from '../simulator.ts';
import type { Clock } from '../engine/index.ts';

type Control = components['schemas'];

export type StartSimulatorOptions = SimulatorOptions & {
  /** Listen on a loopback port (default true); false gives an in-process simulator only. */
  listen?: boolean;
  /** The loopback port to listen on, for CI that allows only some ports; default 0, a free one. */
  port?: number;
};

export interface TestSimulator {
  /** Base URL of the listening simulator, e.g. http://127.0.0.1:53211 ('' with listen: false). */
  url: string;
  /** Calls the simulator in-process, no socket: `createClient({ fetch: sim.fetch })`. */
  fetch: typeof fetch;
  clock: Clock;
  /** The simulator itself (engine, app, journal) for anything the helpers do not cover. */
  simulator: Simulator;
  /** A client for `apiKey` (default demo-key), in-process, whose waitForOrder moves a manual clock. */
  client(apiKey?: string, options?: Partial<ClientOptions>): EnergyRentalClient;
  /** Moves the manual clock forward, running every step that falls due: `await sim.advance(10_000)`. */
  advance(ms: number): Promise<Control['Clock']>;
  /**
   * Creates an account, in either shape: the balance alone, `createAccount({ trx: '50' })`,
   * or the control plane's request, `createAccount({ balance: { trx: '50' }, apiKey: 'my-key-01' })`.
   * Amounts are decimal strings. Resolves with the account and its `apiKey`.
   */
  createAccount(request?: Control['CreateAccountRequest']): Promise<Control['CreatedAccount']>;
  createAccount(
    balance?: Control['Amounts'],
    options?: Omit<Control['CreateAccountRequest'], 'balance'>,
  ): Promise<Control['CreatedAccount']>;
  /** Adds an outcome rule (POST /_sim/rules); resolves with its id: `await sim.addRule({ outcome: 'FAILED', times: 1 })`. */
  addRule(rule: Control['RuleRequest']): Promise<string>;
  /** Injects a fault (POST /_sim/faults); resolves with its id: `await sim.injectFault({ operation: 'getPrice', response: 'status', status: 503 })`. */
  injectFault(fault: Control['FaultRequest']): Promise<string>;
  /** The newest journal entries, oldest first (GET /_sim/journal). */
  journal(filter?: { limit?: number; operation?: string }): Promise<Control['JournalEntry'][]>;
  /**
   * How many calls matched a filter since the start (every call with none): operation, or
   * method and path; parameters; status; account (a wallet address). Never evicted, and a
   * reset leaves it: `expect(await sim.calls({ operation: 'createOrder' })).toBe(1)`. For a
   * failure that lists the near misses, `expectCalls(sim, filter, n)`.
   */
  calls(filter?: Control['CallFilter']): Promise<number>;
  /** The calls counted, alike ones together, most frequent first (GET /_sim/calls). */
  callList(): Promise<Control['CallList']>;
  /** The requests no operation took (GET /_sim/calls/unmatched). */
  unmatched(): Promise<Control['UnmatchedCalls']['requests']>;
  /** The behaviours exercised and those never (GET /_sim/coverage). */
  coverage(): Promise<Control['Coverage']>;
  /** Forgets the calls counted (DELETE /_sim/calls). */
  clearCalls(): Promise<void>;
  /** Forgets the coverage (DELETE /_sim/coverage). */
  clearCoverage(): Promise<void>;
  /** Back to the starting scenario (POST /_sim/reset); the calls and the coverage stay. */
  reset(): Promise<void>;
  /** Stops the server, if it listens; under the coverage reporter, leaves its coverage for the run's report. */
  stop(): Promise<void>;
}

/**
 * Starts a simulator for a test. Defaults: manual clock, realistic timing, the demo
 * account (key `demo-key`, 1000 TRX, 100 USDT), a free loopback port.
 * @example
 *   const sim = await startSimulator(); // or startSimulator({ port: 8787 }) where CI allows one port
 *   sim.url; // 'http://127.0.0.1:53211'
 *   const client = sim.client();
 *   const { id } = await client.createOrder({ pledgeAddress, rentalCount: 65000, period: '1h' });
 *   await client.waitForOrder({ orderId: id }); // advances the manual clock, takes no real time
 *   await sim.stop();
 */
export async function startSimulator(options: StartSimulatorOptions = {}): Promise<TestSimulator> {
  const { listen = true, port = 0, ...simulatorOptions } = options;
  if (!Number.isInteger(port) || port < 0 || port > 65535 || (port !== 0 && !listen))
    throw new TypeError(
      `startSimulator: port must be a whole number from 0 to 65535, with listen left on (got ${port}${listen ? '' : ' and listen: false'}).`,
    );
  const simulator = createSimulator({ clock: 'manual', ...simulatorOptions });
  let url = '';
  let close = async (): Promise<void> => {};
  if (listen) {
    const server = createSimulatorServer(simulator);
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) =>
        reject(
          error.code === 'EADDRINUSE'
            ? new Error(
                `startSimulator: port ${port} on 127.0.0.1 is in use; pass another port, or 0 for a free one.`,
              )
            : error,
        ),
      );
      server.listen(port, '127.0.0.1', () => resolve());
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
  }

  const control = async <T>(method: string, path: string, body?: unknown, apiKey?: string): Promise<T> => {
    const response = await simulator.fetch(`http://simulator/_sim${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(apiKey ? { 'API-KEY': apiKey } : {}) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const payload = (await response.json()) as T & { msg?: string };
    if (!response.ok)
      throw new Error(
        `startSimulator: ${method} /_sim${path} failed with HTTP ${response.status}: ${payload.msg ?? ''}`,
      );
    return payload;
  };
  const manual = simulator.clock.mode === 'manual';

  return {
    url,
    fetch: simulator.fetch,
    clock: simulator.clock,
    simulator,
    client(apiKey = 'demo-key', clientOptions = {}) {
      return createClient({
        baseUrl: 'http://simulator',
        apiKey,
        fetch: simulator.fetch,
        // With a manual clock, waiting for an order is moving the clock: no real time passes.
        ...(manual
          ? { sleep: async (ms: number) => void simulator.advance(ms), now: () => simulator.clock.now() }
          : {}),
        ...clientOptions,
      });
    },
    advance: (ms) => control('POST', '/clock/advance', { ms }),
    createAccount: (
      first: Control['Amounts'] | Control['CreateAccountRequest'] = {},
      rest: Omit<Control['CreateAccountRequest'], 'balance'> = {},
    ) =>
      control(
        'POST',
        '/accounts',
        'balance' in first || 'apiKey' in first || 'referralCount' in first
          ? { ...first, ...rest }
          : { balance: first, ...rest },
      ),
    addRule: async (rule) => (await control<{ id: string }>('POST', '/rules', rule)).id,
    injectFault: async (fault) => (await control<{ id: string }>('POST', '/faults', fault)).id,
    journal: async (filter = {}) =>
      (await control<{ entries: Control['JournalEntry'][] }>('GET', withQuery('/journal', filter))).entries,
    calls: async ({ params = {}, ...filter } = {}) => {
      const query = {
        ...filter,
        ...Object.fromEntries(Object.entries(params).map(([k, v]) => [`params[${k}]`, v])),
      };
      return (await control<Control['CallCount']>('GET', withQuery('/calls/count', query))).count;
    },
    callList: () => control('GET', '/calls?limit=100000'),
    unmatched: async () => (await control<Control['UnmatchedCalls']>('GET', '/calls/unmatched')).requests,
    coverage: () => control('GET', '/coverage'),
    clearCalls: async () => void (await control('DELETE', '/calls')),
    clearCoverage: async () => void (await control('DELETE', '/coverage')),
    reset: async () => void (await control('POST', '/reset')),
    stop: async () => {
      leaveCoverage(simulator.calls.coverage());
      await close();
    },
  };
}

/** `path` with the filter's defined values as its query. */
function withQuery(path: string, filter: Record<string, unknown>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(filter))
    if (value !== undefined) query.append(key, String(value));
  return query.size > 0 ? `${path}?${query}` : path;
}
