/**
 * The target a contract run talks to, and what it can do. A simulator advertises its
 * capabilities at /_sim/health; anything else is treated as the real service, with
 * no capabilities and the spending guard on.
 */
import type { components } from '../src/generated/control.ts';
import { createSimulator } from '../mock/simulator.ts';
import { BROKEN_VARIANTS, OPAQUE_VARIANT } from './broken-variants.ts';
import type { ContractConfig } from './contract-config.ts';

type ControlSchemas = components['schemas'];
export type Capability = ControlSchemas['Capability'];

export interface TargetInfo {
  kind: 'in-process' | 'url';
  baseUrl: string;
  simulator: boolean;
  capabilities: Capability[];
  clock?: string;
  timing?: string;
  variant?: string;
}

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
}

export interface ControlPlane {
  createAccount(balance: ControlSchemas['Amounts']): Promise<ControlSchemas['CreatedAccount']>;
  ownAccount(apiKey: string): Promise<ControlSchemas['AccountView']>;
  addRule(rule: ControlSchemas['RuleRequest']): Promise<string>;
  address(address: string): Promise<ControlSchemas['AddressState']>;
  timeline(apiKey: string, orderId: string): Promise<ControlSchemas['OrderView']>;
  advance(ms: number): Promise<void>;
}

const IN_PROCESS_BASE = 'http://simulator.in-process';

/**
 * Connects to the configured target.
 *
 * @example
 *   const target = await connectTarget(readContractConfig());
 *   target.has('clock'); // true in-process
 */
export async function connectTarget(config: ContractConfig, seed = 7): Promise<ContractTarget> {
  let baseUrl: string;
  let targetFetch: typeof fetch;
  if (config.mode === 'in-process') {
    // Looking like the real service means no clock control either: real time, fast timing.
    const opaque = config.variant === 'opaque';
    const sim = createSimulator({ clock: opaque ? 'real' : 'manual', timing: opaque ? 'fast' : 'realistic', seed });
    baseUrl = IN_PROCESS_BASE;
    if (config.variant) {
      const variant = config.variant === 'opaque' ? OPAQUE_VARIANT : BROKEN_VARIANTS[config.variant];
      if (!variant) throw new Error(`CONTRACT_VARIANT '${config.variant}' is unknown; known: opaque, ${Object.keys(BROKEN_VARIANTS).join(', ')}.`);
      targetFetch = variant.apply(sim);
    } else {
      targetFetch = sim.fetch;
    }
  } else {
    baseUrl = config.baseUrl!;
    targetFetch = globalThis.fetch;
  }
  const token = process.env.CONTRACT_SIM_TOKEN;
  const controlHeaders = (apiKey?: string): Record<string, string> => ({
    'content-type': 'application/json',
    ...(token ? { authorization: `Bearer ${token}` } : {}),
    ...(apiKey ? { 'API-KEY': apiKey } : {}),
  });
  const call = async <T>(method: string, path: string, body?: unknown, apiKey?: string): Promise<T> => {
    const response = await targetFetch(`${baseUrl}/_sim${path}`, {
      method,
      headers: controlHeaders(apiKey),
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`control plane ${method} /_sim${path} failed: HTTP ${response.status} ${text}`);
    return JSON.parse(text) as T;
  };

  const health = await targetFetch(`${baseUrl}/_sim/health`)
    .then(async (r) => (r.ok ? ((await r.json()) as Partial<ControlSchemas['Health']>) : undefined))
    .catch(() => undefined);
  const simulator = health?.simulator === 'energy-rental-kit';
  const capabilities = simulator ? (health.capabilities ?? []) : [];
  const info: TargetInfo = { kind: config.mode, baseUrl, simulator, capabilities };
  if (health?.clock) info.clock = health.clock;
  if (health?.timing) info.timing = health.timing;
  if (config.variant) info.variant = config.variant;

  let virtualNow = 0;
  const clockControlled = capabilities.includes('clock');
  return {
    info,
    apiKey: config.apiKey,
    fetch: targetFetch,
    has: (capability) => capabilities.includes(capability),
    async sleep(ms) {
      if (clockControlled) {
        await call('POST', '/clock/advance', { ms });
        virtualNow += ms;
      } else {
        await new Promise((resolve) => setTimeout(resolve, ms));
      }
    },
    now: () => (clockControlled ? virtualNow : Date.now()),
    control: {
      createAccount: (balance) => call('POST', '/accounts', { balance }),
      ownAccount: (apiKey) => call('GET', '/accounts/me', undefined, apiKey),
      addRule: async (rule) => (await call<{ id: string }>('POST', '/rules', rule)).id,
      address: (address) => call('GET', `/addresses/${address}`),
      timeline: (apiKey, orderId) => call('GET', `/orders/${orderId}`, undefined, apiKey),
      advance: async (ms) => {
        await call('POST', '/clock/advance', { ms });
        virtualNow += ms;
      },
    },
  };
}
