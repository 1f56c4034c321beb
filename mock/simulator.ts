/** `createSimulator(options)`: a fresh simulator with no module-level state, one per test. */
import type { Hono } from 'hono';
import { specFormats as formats } from '../src/spec/formats.ts';
import { createValidators, loadSpec, type SpecValidators } from '../src/spec/loader.ts';
import { createManualClock } from './engine/manual-clock.ts';
import { createRealClock } from './clock/real-clock.ts';
import {
  createEngine,
  parseUnits,
  SimulatorError,
  type Clock,
  type Engine,
  type EngineEffect,
  type EngineSnapshot,
  type ManualClock,
  type TimingProfile,
} from './engine/index.ts';
import type { SimEnv } from './http/context.ts';
import type { ControlOptions, RemoteAddress } from './http/control-guard.ts';
import { createCallCounts, type CallCounts } from './http/call-counts.ts';
import { createApp } from './http/create-app.ts';
import { engineSource } from './http/engine-source.ts';
import { createExchangeEvents, type ChangeLog, type ExchangeEvents } from './http/exchange.ts';
import { recordingSource, type ReplayOptions } from './http/recording-source.ts';
import { upstreamSource, type ProxyContext } from './http/upstream-source.ts';
import { nodeForwarder, nodeReplay } from './http/tron-node-forward.ts';
import { POLLING_CLOCK, type PollingClock } from '../src/client/wait-for-order.ts';
import type { Mode } from '../src/generated/lists.ts';
import { createLiveValidation } from './http/live-validation.ts';
import { createSpendGuard } from './http/spend-guard.ts';
import { DEFAULT_UPSTREAM_MAX_BYTES } from './http/upstream-forward.ts';
import { createFaultInjector, DROPPED_HEADER, type FaultInjector } from './http/fault-injector.ts';
import { createJournal, type Journal } from './http/journal.ts';
import { createKeyAliases } from './http/journal-redaction.ts';
import { createRandomSource } from './engine/random-source.ts';
import { check } from './http/validate.ts';
import { DEFAULT_SCENARIO, toEngineScenario, type ScenarioInput } from './scenario/scenario-input.ts';

export { DEFAULT_SCENARIO, type ScenarioInput } from './scenario/scenario-input.ts';
export {
  callDifferences,
  describeCall,
  describeFilter,
  type CallFilter,
  type CallRow,
} from './http/call-counts.ts';
export {
  COVERAGE_IDS,
  KNOWN_COVERAGE_IDS,
  resolveCoverageId,
  type ResolvedId,
} from '../src/behaviour/coverage-ids.ts';

export const DEFAULT_SEED = 1;
export const DEFAULT_JOURNAL_LIMIT = 1000;
export const DEFAULT_MAX_BODY_BYTES: number = 64 * 1024;

/**
 * The options of a simulator. What answers the API is its mode: the engine (neither
 * `proxy` nor `replay`), the upstream (`proxy`) or a recording (`replay`), never two.
 */
export type SimulatorOptions = CommonOptions &
  (
    | { proxy?: undefined; replay?: undefined }
    | {
        /** Proxy mode (`serve --upstream`): the upstream answers the API; the control plane stays local. */
        proxy: ProxyOptions;
        replay?: undefined;
      }
    | {
        /** Replay mode (`serve --replay FILE`): a recording answers the API; the control plane stays local. */
        replay: ReplayOptions;
        proxy?: undefined;
      }
  );

export type { ReplayOptions } from './http/recording-source.ts';

export interface CommonOptions {
  /** Seed of ids, addresses, txIds and outcomes. Default: the scenario's, else 1. */
  seed?: number;
  /** 'real' (default), 'manual', or a clock of your own. */
  clock?: 'real' | 'manual' | Clock;
  /** Timing profile; wins over the scenario's. Default 'realistic'. */
  timing?: TimingProfile;
  /** Starting scenario, in the `--config` file's shape. Default: DEFAULT_SCENARIO. */
  scenario?: ScenarioInput;
  control?: ControlOptions;
  remoteAddress?: RemoteAddress;
  /** Request journal capacity. Default 1000 entries. */
  journalLimit?: number;
  /** State saved by `engine.snapshot()` to resume from (accounts, orders, rules, registry). */
  restore?: EngineSnapshot;
  /** Effects logged after `restore` (serve --state's log), put on it before any due step runs. */
  effects?: readonly EngineEffect[];
  /** Largest accepted request body. Default 64 KiB. */
  maxBodyBytes?: number;
  onUnexpectedError?: (error: unknown) => void;
  /** Where changes are kept (serve --state's log): a change is acknowledged only once it is. */
  changeLog?: ChangeLog;
}

/** How the simulator stands in front of the real service. */
export interface ProxyOptions {
  /** The upstream's base URL, e.g. https://api.eopen.io. */
  upstream: string;
  /** How long the whole exchange with the upstream may take, the answer's body included, ms. Default 10 000. */
  timeoutMs?: number;
  /** Largest upstream answer (decoded too), bytes; a larger one is a 502. Default 8 MiB. */
  maxBytes?: number;
  /** Forward order creation (it spends real TRX). Default false. */
  allowSpend?: boolean;
  /** Orders one run may forward; unlimited when absent. */
  maxOrders?: number;
  /** What the orders of one run may cost in all, TRX as a decimal string (e.g. '25.5'). Unlimited when absent. */
  maxSpend?: string;
  /** Forward GET and HEAD of paths that are not the API (never one with an `order` segment). Default false. */
  forwardUnknown?: boolean;
  /** Where spec violations of the upstream's answers are reported, once each. Default: stderr. */
  onViolation?: (line: string) => void;
  /** Where calls go instead of the global fetch (tests). */
  fetch?: typeof fetch;
  /** A TRON node (`--tron-node`), e.g. https://api.trongrid.io, that the reads of spec/tron-node.yaml go to, on `fetch` (default the proxy's). */
  tronNode?: { url: string; fetch?: typeof fetch | undefined };
}

export const DEFAULT_UPSTREAM_TIMEOUT_MS = 10_000;
export { DEFAULT_UPSTREAM_MAX_BYTES };

export interface Simulator {
  app: Hono<SimEnv>;
  engine: Engine;
  clock: Clock;
  journal: Journal;
  /** The calls and the behaviour coverage counted since the start (a reset leaves them). */
  calls: CallCounts;
  faults: FaultInjector;
  apiValidators: SpecValidators;
  /** Every finished exchange, announced once to its observers (the journal is the first). */
  exchanges: ExchangeEvents;
  maxBodyBytes: number;
  /** What answers the API: the engine ('simulator'), the upstream ('proxy') or a recording ('replay'). */
  mode: Mode;
  /** Reports unexpected errors (the option given), also for the Node server around the app. */
  onUnexpectedError?: ((error: unknown) => void) | undefined;
  /** A fetch that calls the app in-process, for `createClient({ fetch })`. */
  fetch: typeof fetch;
  /** Moves a manual clock forward; throws with a real clock. */
  advance(ms: number): void;
}

const VERSION = '0.1.0';

/**
 * Creates a simulator.
 *
 * @example
 *   const sim = createSimulator({ clock: 'manual', timing: 'realistic' });
 *   const client = createClient({ baseUrl: 'http://sim', apiKey: 'demo-key', fetch: sim.fetch });
 *   await client.createOrder({ pledgeAddress, rentalCount: 65000, period: '1h' });
 *   sim.advance(6000); // the order is COMPLETED
 */
export function createSimulator(options: SimulatorOptions = {}): Simulator {
  const controlValidators = createValidators(loadSpec('control'), { formats });
  const scenarioChecked = options.scenario
    ? check<ScenarioInput>(controlValidators.schema('Scenario'), options.scenario, 'Scenario field')
    : DEFAULT_SCENARIO;
  const scenario = toEngineScenario(scenarioChecked);
  if (options.timing) scenario.settings = { ...scenario.settings, timing: options.timing };

  const clockOption = options.clock ?? scenarioChecked.clock ?? 'real';
  // A restored manual clock resumes where the saved one stood, or where its last logged change was.
  const clock =
    clockOption === 'manual'
      ? createManualClock(options.effects?.at(-1)?.at ?? options.restore?.savedAt)
      : clockOption === 'real'
        ? createRealClock()
        : clockOption;
  const engine = createEngine({
    clock,
    seed: options.seed ?? scenarioChecked.seed ?? DEFAULT_SEED,
    scenario,
    ...(options.restore ? { restore: options.restore } : {}),
    ...(options.effects?.length ? { replay: options.effects } : {}),
  });
  if (options.restore && options.timing) engine.updateSettings({ timing: options.timing });
  const exchanges = createExchangeEvents({ onListenerError: options.onUnexpectedError });
  const journal = createJournal(
    options.journalLimit ?? scenarioChecked.journalLimit ?? DEFAULT_JOURNAL_LIMIT,
  );
  // Faults draw from a source of their own, so injecting one never shifts the engine's ids.
  const faults = createFaultInjector(() => createRandomSource(engine.seed ^ 0x5eed));
  const apiValidators = createValidators(loadSpec('api'), { coerceTypes: true, formats });
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (options.proxy && options.replay)
    throw new SimulatorError(
      'parameterInvalid',
      'proxy and replay exclude each other: a simulator answers from the upstream or from a recording, not both.',
    );
  const proxy = options.proxy ? createProxyContext(options.proxy) : undefined;
  const source = proxy
    ? upstreamSource(proxy)
    : options.replay
      ? recordingSource(options.replay)
      : engineSource(engine, apiValidators);
  exchanges.subscribe((exchange) => journal.record(exchange));
  const calls = createCallCounts({ mode: source.mode, settings: () => engine.settings() });
  exchanges.subscribe((exchange) => calls.observe(exchange));
  const app = createApp({
    engine,
    source,
    faults,
    exchanges,
    control: {
      engine,
      journal,
      faults,
      validators: controlValidators,
      queryValidators: createValidators(loadSpec('control'), { coerceTypes: true, formats }),
      version: VERSION,
      scenario: scenarioChecked,
      controlEnabled: options.control?.enabled ?? true,
      calls,
      source,
    },
    controlOptions: options.control,
    remoteAddress: options.remoteAddress,
    maxBodyBytes,
    onUnexpectedError: options.onUnexpectedError,
    changeLog: options.changeLog,
    // The TRON node's reads: forwarded to --tron-node, or answered by the recording like the API.
    node:
      proxy && options.proxy?.tronNode
        ? nodeForwarder(
            {
              ...proxy.upstream,
              url: httpUrl(options.proxy.tronNode.url, 'proxy.tronNode.url', 'https://api.trongrid.io'),
              fetch: options.proxy.tronNode.fetch ?? proxy.upstream.fetch,
            },
            proxy.aliases,
            proxy.counters,
          )
        : options.replay
          ? nodeReplay(options.replay.fetch)
          : undefined,
  });
  const simulatorFetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const response = await app.fetch(new Request(input, init));
    const dropped = response.headers.get(DROPPED_HEADER);
    if (dropped) throw droppedError(dropped);
    return response;
  }) as typeof fetch & { [POLLING_CLOCK]?: PollingClock };
  // A client over this fetch waits on the simulator's clock, moving a manual one.
  if (clock.mode === 'manual') {
    simulatorFetch[POLLING_CLOCK] = {
      now: () => clock.now(),
      sleep: async (ms: number) => void (clock as ManualClock).advance(ms),
    };
  }
  return {
    app,
    engine,
    clock,
    journal,
    calls,
    faults,
    apiValidators,
    exchanges,
    maxBodyBytes,
    mode: source.mode,
    onUnexpectedError: options.onUnexpectedError,
    fetch: simulatorFetch,
    advance(ms) {
      if (clock.mode !== 'manual')
        throw new SimulatorError(
          'conflict',
          'advance() needs a manual clock: createSimulator({ clock: "manual" }).',
        );
      (clock as ManualClock).advance(ms);
    },
  };
}

/** `url` without a trailing slash, or the error that names `name`'s rule. */
function httpUrl(url: string, name: string, example: string): string {
  if (!/^https?:$/.test(URL.parse(url)?.protocol ?? ''))
    throw new SimulatorError(
      'parameterInvalid',
      `${name} must be an http(s) URL such as ${example} (got '${url}').`,
    );
  return url.replace(/\/+$/, '');
}

/** The proxy's parts, from the options as given (checked by the CLI, or by the caller). */
function createProxyContext(options: ProxyOptions): ProxyContext {
  const url = httpUrl(options.upstream, 'proxy.upstream', 'https://api.eopen.io');
  const maxBytes = options.maxBytes ?? DEFAULT_UPSTREAM_MAX_BYTES;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) {
    throw new SimulatorError(
      'parameterInvalid',
      `proxy.maxBytes must be a whole number of bytes, at least 1 (got ${String(options.maxBytes)}).`,
    );
  }
  return {
    upstream: {
      url,
      timeoutMs: options.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS,
      maxBytes,
      fetch: options.fetch,
    },
    guard: createSpendGuard({
      allowSpend: options.allowSpend ?? false,
      maxOrders: options.maxOrders,
      maxSpendSun:
        options.maxSpend === undefined ? undefined : parseUnits(options.maxSpend, 'proxy.maxSpend'),
    }),
    forwardUnknown: options.forwardUnknown ?? false,
    aliases: createKeyAliases(),
    validation: createLiveValidation(options.onViolation ?? ((line) => process.stderr.write(line + '\n'))),
    counters: { forwarded: 0 },
  };
}

/** The TypeError undici rejects with when an injected fault cut the connection (the header says how). */
function droppedError(header: string): TypeError {
  const [how = '', fault] = header.split(' ');
  const causes: Record<string, [string, string]> = {
    reset: [`read ECONNRESET: connection reset by injected fault ${fault}`, 'ECONNRESET'],
    garbage: [
      `Response does not match the HTTP/1.1 protocol (Expected HTTP/): random bytes sent by injected fault ${fault}`,
      'HPE_INVALID_CONSTANT',
    ],
  };
  const [message, code] = causes[how] ?? [`connection dropped by injected fault ${fault}`, undefined];
  return new TypeError('fetch failed', { cause: Object.assign(new Error(message), code && { code }) });
}
