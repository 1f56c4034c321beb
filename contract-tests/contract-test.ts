/**
 * The contract suite's `test`: fixtures for the target and for clients that validate
 * every response against the spec and record every interaction into the test's meta,
 * where the contract reporter reads it.
 */
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { test as base, type TestAPI, type TestContext } from 'vitest';
import { createClient, type EnergyRentalClient, type Exchange } from '../src/client/index.ts';
import type { OrderCreated } from '../src/models.ts';
import { ordersUsedUp, readContractConfig, type ContractConfig } from './contract-config.ts';
import { connectTarget, type Capability, type ContractTarget, type TargetInfo } from './contract-target.ts';
import { checkExchange, describeViolations, SpecViolationError, type SpecViolation } from './spec-check.ts';
import { claimOrderSlot } from './spend-guard.ts';
import { CASE_TIMEOUT_MS } from './contract-project.ts';
import type { PoliteWaits } from './polite-transport.ts';
import { watchOwnTime } from './own-time.ts';

export interface RecordedInteraction {
  operationId: string;
  request: { method: string; url: string; headers: Record<string, string>; body?: string };
  response?: { status: number; headers: Record<string, string>; body: unknown };
  error?: string;
  durationMs: number;
  specViolations?: SpecViolation[];
}

export interface ContractMeta {
  target: TargetInfo;
  interactions: RecordedInteraction[];
  spent: Array<{ amount: string; currency: string }>;
  /** What the case waited to be polite to a target that is not a simulator, and why. */
  politeness?: PoliteWaits;
}

/**
 * The client's own deadline while the suite is polite: its clock would count the pace's
 * waits, so each sending's deadline is held by the polite transport instead.
 */
const POLITE_CLIENT_TIMEOUT_MS = 24 * 60 * 60_000;

declare module 'vitest' {
  interface TaskMeta {
    contract?: ContractMeta;
  }
}

interface Fixtures {
  config: ContractConfig;
  /** The file's connection to the target (one simulator per file in-process). */
  connection: ContractTarget;
  /** The connection, with every request labelled as this case's (for recording and replay). */
  target: ContractTarget;
  /** A client of the run's account, recording into this test. */
  api: EnergyRentalClient;
  /** Makes another recording client, e.g. for a fresh account or no key at all. */
  clientFor: (apiKey: string | undefined) => EnergyRentalClient;
  /** The cheapest order, to the configured receiving address. */
  orderParams: (overrides?: {
    outOrderNo?: string;
    pledgeAddress?: string;
  }) => Promise<{ pledgeAddress: string; rentalCount: number; period: '10min'; outOrderNo: string }>;
  /** Skips unless the target offers the capability. */
  requireCapability: (capability: Capability) => void;
  /** Skips unless this run may send requests that could create an order. */
  requireSpend: () => void;
  /** Takes one of the run's order slots (always granted on a simulator); false when none is left. */
  claimOrder: () => boolean;
  /** The reason an order slot was refused, for a skip. */
  slotsExhausted: string;
  /** Books what an order cost, for the run's spending summary. */
  noteSpent: (created: OrderCreated) => void;
  /** A new outOrderNo of this case, the same in every run with the same run id (see uniqueOutOrderNo). */
  newOutOrderNo: (label: string) => string;
}

/** The cheapest order: the minimum quantity for the shortest period. */
export const CHEAPEST = { rentalCount: 64000, period: '10min' } as const;

/**
 * A run-unique outOrderNo, so repeated runs never collide on the real service: it
 * derives from the run id, the case's name and the case's own count, so a replay
 * (which reuses the recording's run id) sends exactly what the recording run sent.
 *
 * @example
 *   uniqueOutOrderNo('order', 'mfx2k3j41a2b', 'contract-tests/x.contract.test.ts > creates', 0); // 'erk-order-mfx2k3j41a2b-7e72d0f8-0'
 */
export function uniqueOutOrderNo(label: string, runId: string, caseName: string, count: number): string {
  return `erk-${label}-${runId}-${createHash('sha256').update(caseName).digest('hex').slice(0, 8)}-${count.toString(36)}`;
}

/** 20 bytes derived from the run id, the case and a label: a fresh value per run that a replay repeats. */
export function runBytes(runId: string, caseName: string, label: string): Uint8Array {
  return createHash('sha256').update(`${runId}\n${caseName}\n${label}`).digest().subarray(0, 20);
}

function ensureMeta(context: TestContext, target: ContractTarget): ContractMeta {
  context.task.meta.contract ??= { target: target.info, interactions: [], spent: [] };
  return context.task.meta.contract;
}

export const contractTest: TestAPI<Fixtures> = base.extend<Fixtures>({
  // vitest reads a fixture's dependencies from its first parameter's pattern: this one has none.
  // eslint-disable-next-line no-empty-pattern
  config: [async ({}, use) => use(readContractConfig()), { scope: 'file' }],
  connection: [async ({ config }, use) => use(await connectTarget(config)), { scope: 'file' }],
  target: async ({ connection, task, onTestFinished }, use) => {
    // A replay answers an unrecorded request with HTTP 501; a case that expects a
    // rejection could take that for one, so any miss fails the case.
    onTestFinished(() => {
      const misses = connection.takeReplayMisses(task.fullName);
      if (misses.length > 0) throw new ReplayMissError(misses);
    });
    if (!connection.polite()) {
      await use(connection.forCase(task.fullName, task.file.name));
      return;
    }
    // vitest's clock counts the case's waits for the pace and for Retry-After; this one does not.
    const waits = connection.waitsOf(task.fullName);
    ensureMeta({ task } as TestContext, connection).politeness = waits;
    const watch = watchOwnTime(waits, CASE_TIMEOUT_MS);
    try {
      await use(connection.forCase(task.fullName, task.file.name, watch.signal));
    } finally {
      watch.stop();
    }
  },

  clientFor: async ({ target, task, onTestFinished }, use) => {
    const context = { task } as TestContext;
    const pending: string[] = [];
    const make = (apiKey: string | undefined): EnergyRentalClient =>
      createClient({
        baseUrl: target.info.baseUrl,
        ...(apiKey ? { apiKey } : {}),
        ...(target.polite() ? { timeoutMs: POLITE_CLIENT_TIMEOUT_MS } : {}),
        fetch: target.fetch,
        sleep: (ms) => target.sleep(ms),
        now: () => target.now(),
        onResponse: (exchange: Exchange) => {
          const violations = checkExchange(exchange, target.info);
          ensureMeta(context, target).interactions.push(record(exchange, violations));
          if (violations.length > 0) {
            const message = describeViolations(exchange, violations);
            pending.push(message);
            throw new SpecViolationError(message, violations);
          }
        },
      });
    // A violation swallowed by a test's own try/catch still fails the test.
    onTestFinished(() => {
      if (pending.length > 0) throw new SpecViolationError(pending.join('\n'), []);
    });
    ensureMeta(context, target);
    await use(make);
  },

  api: async ({ clientFor, target }, use) => use(clientFor(target.apiKey)),

  newOutOrderNo: async ({ config, task }, use) => {
    let count = 0;
    await use((label) => uniqueOutOrderNo(label, config.runId, task.fullName, count++));
  },

  orderParams: async ({ config, api, newOutOrderNo }, use) => {
    let address = config.pledgeAddress;
    await use(async (overrides = {}) => {
      address ??= (await api.getAccount()).walletAddress;
      return {
        pledgeAddress: overrides.pledgeAddress ?? address,
        ...CHEAPEST,
        outOrderNo: overrides.outOrderNo ?? newOutOrderNo('order'),
      };
    });
  },

  requireCapability: async ({ target, skip }, use) => {
    await use((capability) => {
      if (!target.has(capability)) {
        skip(
          `needs the '${capability}' capability, which ${target.info.simulator ? 'this simulator' : 'a target that is not a simulator'} does not offer`,
        );
      }
    });
  },

  requireSpend: async ({ target, config, skip }, use) => {
    await use(() => {
      if (!target.info.simulator && !config.allowSpend)
        skip('creates an order, which spends real TRX: set CONTRACT_ALLOW_SPEND=1 (or true, yes) to run it');
    });
  },

  claimOrder: async ({ target, config }, use) => {
    const runDir = config.runDir ?? path.join(os.tmpdir(), `energy-rental-contract-${process.ppid}`);
    await use(() => target.info.simulator || claimOrderSlot(runDir, config.maxOrders));
  },

  slotsExhausted: async ({ config }, use) => use(ordersUsedUp(config.maxOrders)),

  noteSpent: async ({ task, target }, use) => {
    await use((created) => {
      ensureMeta({ task } as TestContext, target).spent.push({
        amount: String(created.amount),
        currency: created.currency,
      });
    });
  },
});

function record(exchange: Exchange, violations: SpecViolation[]): RecordedInteraction {
  const interaction: RecordedInteraction = {
    operationId: exchange.operationId,
    request: {
      method: exchange.method,
      url: exchange.url,
      headers: exchange.requestHeaders,
      ...(exchange.requestBody === undefined ? {} : { body: exchange.requestBody }),
    },
    durationMs: Math.round(exchange.durationMs * 1000) / 1000,
  };
  if (exchange.status !== undefined) {
    interaction.response = {
      status: exchange.status,
      headers: exchange.responseHeaders ?? {},
      body: exchange.body,
    };
  }
  if (exchange.error) interaction.error = exchange.error.message;
  if (violations.length > 0) interaction.specViolations = violations;
  return interaction;
}

/** A replay got requests it has no recording of: the suite changed, or the recording is partial. */
export class ReplayMissError extends Error {
  constructor(readonly misses: string[]) {
    super(
      `the replay has no recorded interaction for ${misses.length} request${misses.length === 1 ? '' : 's'} of this case:\n${misses.map((m) => `  ${m}`).join('\n')}`,
    );
    this.name = 'ReplayMissError';
  }
}

/** Statuses in the order they may happen; a later read may never show an earlier one. */
export const STATUS_RANK: Record<string, number> = {
  PENDING: 0,
  PROCESSING: 1,
  COMPLETED: 2,
  FAILED: 2,
  REFUNDED: 3,
};
