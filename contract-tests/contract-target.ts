/** The target a contract run talks to; what is no simulator (per /_sim/health) counts as the real service. */
import type { components } from '../src/generated/control.ts';
import type { Capability, TargetInfo } from '../recording/recording.ts';
import { createSimulator } from '../mock/simulator.ts';
import { createRecorder, type CaseTransport } from '../recording/recorder.ts';
import { untilAborted } from '../src/client/send-request.ts';
import { CONNECT_CASE } from '../recording/recording.ts';
import { createReplay } from '../recording/replay-target.ts';
import { VARIANTS } from './broken-variants.ts';
import { displayPath, type ContractConfig } from './contract-config.ts';
import { paceScheduleAt } from './pace-coordinator.ts';
import { emptyWaits, politeTransport, type PoliteWaits } from './polite-transport.ts';

type ControlSchemas = components['schemas'];
export type { Capability, TargetInfo } from '../recording/recording.ts';

export interface ContractTarget {
  info: TargetInfo;
  apiKey: string;
  fetch: typeof fetch;
  has(capability: Capability): boolean;
  /** For waitForOrder: advances a manual clock, or really waits. */
  sleep(ms: number): Promise<void>;
  now(): number;
  /** The control plane; throws when the target is not a simulator. */
  control: ControlPlane;
  /** The same target, its requests labelled as the case's (for recording and replay); `signal` ends them. */
  forCase(caseName: string, file: string, signal?: AbortSignal): ContractTarget;
  /** Whether the suite is polite to this target (paced, retrying 429s): no simulator, no replay. */
  polite(): boolean;
  /** What a case waited to be polite, live while it runs (polite-transport.ts). */
  waitsOf(caseName: string): PoliteWaits;
  /** Replay only: the requests of a case that matched no recorded interaction (emptied by the call). */
  takeReplayMisses(caseName: string): string[];
}

export interface ControlPlane {
  createAccount(balance: ControlSchemas['Amounts']): Promise<ControlSchemas['CreatedAccount']>;
  ownAccount(apiKey: string): Promise<ControlSchemas['AccountView']>;
  addRule(rule: ControlSchemas['RuleRequest']): Promise<string>;
  address(address: string): Promise<ControlSchemas['AddressState']>;
  timeline(apiKey: string, orderId: string): Promise<ControlSchemas['OrderView']>;
}

/** The in-process simulator's base URL (no socket: requests reach its fetch). */
export const IN_PROCESS_BASE = 'http://simulator.in-process';

/**
 * Connects to the configured target.
 *
 * @example
 *   const target = await connectTarget(readContractConfig());
 *   target.has('clock'); // true in-process
 */
export async function connectTarget(config: ContractConfig): Promise<ContractTarget> {
  let baseUrl: string;
  let transport: CaseTransport;
  let replay: ReturnType<typeof createReplay> | undefined;
  let recorder: ReturnType<typeof createRecorder> | undefined;
  const { recording } = config;
  if (recording) {
    replay = createReplay(recording, {
      apiKey: config.apiKey,
      onMiss: (m) => console.error(`[replay] ${m}`),
    });
    baseUrl = replay.info.baseUrl;
    transport = replay.transport;
  } else {
    let targetFetch: (request: Request) => Promise<Response>;
    if (config.mode === 'in-process') {
      // Posing as the real service means no clock control either: real time, fast timing.
      const opaque = config.variant === 'opaque' || config.variant?.startsWith('family-');
      const sim = createSimulator({
        clock: opaque ? 'real' : (config.simulator?.clock ?? 'manual'),
        timing: opaque ? 'fast' : (config.simulator?.timing ?? 'realistic'),
        seed: 7,
      });
      baseUrl = IN_PROCESS_BASE;
      const variant = config.variant === undefined ? undefined : VARIANTS[config.variant];
      if (config.variant !== undefined && !variant)
        throw new Error(
          `CONTRACT_VARIANT '${config.variant}' is unknown; known: ${Object.keys(VARIANTS).join(', ')}.`,
        );
      targetFetch = variant ? variant(sim) : sim.fetch;
    } else {
      baseUrl = config.baseUrl!;
      targetFetch = (request) => globalThis.fetch(request);
    }
    if (config.asUpstream || config.variant === 'opaque')
      targetFetch = hideControlPlane(targetFetch, baseUrl);
    if (config.recordDir)
      recorder = createRecorder({ dir: config.recordDir, mainKey: config.apiKey, baseUrl });
    transport = recorder ? recorder.wrap(targetFetch) : (request) => targetFetch(request);
  }
  // Every request waits for the run's pace until the target proves to be a simulator.
  let polite = config.mode !== 'replay';
  const waits = new Map<string, PoliteWaits>();
  const waitsOf = (caseName: string): PoliteWaits =>
    waits.get(caseName) ?? waits.set(caseName, emptyWaits()).get(caseName)!;
  if (polite) {
    transport = politeTransport(transport, {
      settings: config.politeness,
      schedule: paceScheduleAt(process.env.CONTRACT_PACE_URL),
      // One pace per target, whichever account a request uses.
      key: `${baseUrl}${config.variant ? `#${config.variant}` : ''}`,
      seed: config.runId,
      active: () => polite,
      waitsOf,
    });
  }
  // Once `signal` aborts, the case's requests and sleeps reject with its reason.
  const bounded = <T>(work: Promise<T>, signal?: AbortSignal) => (signal ? untilAborted(work, signal) : work);
  const fetchFor = (caseName: string, file: string, signal?: AbortSignal): typeof fetch =>
    ((input: RequestInfo | URL, init?: RequestInit) =>
      bounded(transport(new Request(input, init), caseName, file), signal)) as typeof fetch;

  const connectFetch = fetchFor(CONNECT_CASE, '');
  const health = await connectFetch(`${baseUrl}/_sim/health`)
    .then(async (r) => (r.ok ? ((await r.json()) as Partial<ControlSchemas['Health']>) : undefined))
    .catch(() => undefined);
  const simulator = health?.simulator === 'energy-rental-kit';
  if (simulator) polite = false;
  const capabilities = simulator ? (health.capabilities ?? []) : [];
  const info: TargetInfo = { kind: config.mode, baseUrl, simulator, capabilities };
  if (health?.clock) info.clock = health.clock;
  if (health?.timing) info.timing = health.timing;
  if (config.variant) info.variant = config.variant;
  if (replay) {
    if (replay.info.variant) info.variant = replay.info.variant;
    info.recording = displayPath(config.replayPath!);
    const recorded = recording!.target;
    info.recordedFrom =
      recorded.kind === 'in-process'
        ? 'the in-process simulator'
        : recorded.kind === 'replay'
          ? `a replay of ${recorded.recording}`
          : recorded.baseUrl;
  }
  recorder?.noteTarget(info);

  const token = process.env.CONTRACT_SIM_TOKEN;
  let virtualNow = 0;
  const clockControlled = capabilities.includes('clock');
  // A replay never waits for real: what it serves was recorded already.
  const virtualClock = clockControlled || config.mode === 'replay';
  const build = (caseName: string, file: string, signal?: AbortSignal): ContractTarget => {
    const targetFetch = fetchFor(caseName, file, signal);
    const call = async <T>(method: string, path: string, body?: unknown, apiKey?: string): Promise<T> => {
      const response = await targetFetch(`${baseUrl}/_sim${path}`, {
        method,
        headers: {
          'content-type': 'application/json',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(apiKey ? { 'API-KEY': apiKey } : {}),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      if (!response.ok)
        throw new Error(`control plane ${method} /_sim${path} failed: HTTP ${response.status} ${text}`);
      return JSON.parse(text) as T;
    };
    return {
      info,
      apiKey: config.apiKey,
      fetch: targetFetch,
      has: (capability) => capabilities.includes(capability),
      async sleep(ms) {
        if (clockControlled) await call('POST', '/clock/advance', { ms });
        else if (!virtualClock) await bounded(new Promise((resolve) => setTimeout(resolve, ms)), signal);
        if (virtualClock) virtualNow += ms;
      },
      now: () => (virtualClock ? virtualNow : Date.now()),
      control: {
        createAccount: (balance) => call('POST', '/accounts', { balance }),
        ownAccount: (apiKey) => call('GET', '/accounts/me', undefined, apiKey),
        addRule: async (rule) => (await call<{ id: string }>('POST', '/rules', rule)).id,
        address: (address) => call('GET', `/addresses/${address}`),
        timeline: (apiKey, orderId) => call('GET', `/orders/${orderId}`, undefined, apiKey),
      },
      forCase: build,
      polite: () => polite,
      waitsOf,
      takeReplayMisses: (name) => replay?.takeMisses(name) ?? [],
    };
  };
  return build(CONNECT_CASE, '');
}

/**
 * The target as the real service: a control-plane request is answered as the same path under `/v1`.
 *
 * @example
 *   hideControlPlane(sim.fetch, 'http://127.0.0.1:8787')(new Request('http://127.0.0.1:8787/_sim/health'));
 *   // answered as GET /v1/_sim/health: the unknown-path answer
 */
export function hideControlPlane(
  inner: (request: Request) => Promise<Response>,
  baseUrl: string,
): (request: Request) => Promise<Response> {
  const basePath = new URL(baseUrl).pathname.replace(/\/+$/, '');
  const controlPrefix = `${basePath}/_sim`;
  return (request) => {
    const url = new URL(request.url);
    if (!url.pathname.startsWith(controlPrefix)) return inner(request);
    url.pathname = `${basePath}/v1${url.pathname.slice(basePath.length)}`;
    return inner(new Request(url, { method: request.method, headers: request.headers }));
  };
}
