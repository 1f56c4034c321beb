/** The contract suite's `test`: its clients check every answer against the spec and record it. */
import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test as base, type Assertion, type ExpectStatic, type TestAPI, type TestContext } from 'vitest';
import {
  createClient,
  EnergyRentalError,
  type ClientOptions,
  type EnergyRentalClient,
  type Exchange,
} from '../src/client/index.ts';
import { sendRequest } from '../src/client/send-request.ts';
import type { OrderCreated, OrderRequest } from '../src/models.ts';
import { describeFact, type FactId } from './facts.ts';
import { readContractConfig, type ContractConfig } from './contract-config.ts';
import { connectTarget, type Capability, type ContractTarget, type TargetInfo } from './contract-target.ts';
import { checkExchange, describeViolations, factsOfAnswer, type SpecViolation } from './spec-check.ts';
import { CASE_TIMEOUT_MS } from './contract-project.ts';
import type { PoliteWaits } from './polite-transport.ts';

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
  /** The documented facts the case checked (spec/openapi.yaml's x-facts), by id. */
  facts: string[];
  /** What the case observed where the documents are silent, for the report (a refused quantity, a fee). */
  notes: string[];
  /** What the case waited to be polite to a target that is not a simulator, and why. */
  politeness?: PoliteWaits;
}

/** While polite, the polite transport holds each sending's deadline: the client's would count the waits. */
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
  /** Creates an order with its parameters in the query string, as upstream's usage example (`curl -G`) sends
   * them, and books what it cost for the run's spending summary. */
  orderInQuery: (params: OrderRequest) => Promise<OrderCreated>;
  /** `expect` naming the documented fact in its failure, the fact booked as checked by the case. */
  expectFact: <T>(id: FactId, actual: T, message?: string) => Assertion<T>;
  /** Runs checks no documented fact backs, against a simulator only (the kit's own choices). */
  onSimulator: (checks: (expect: ExpectStatic) => void) => void;
  /** Notes for the report what the case saw where the documents are silent. */
  note: (text: string) => void;
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
  /** A new outOrderNo of this case, the same in every run with the same run id (see uniqueOutOrderNo). */
  newOutOrderNo: (label: string) => string;
}

/** The two ways a case asserts: naming a documented fact, or against a simulator only. */
export type Checks = Pick<Fixtures, 'expectFact' | 'onSimulator'>;

/** A call the service refused: what its answer said. */
export type Refusal = Pick<EnergyRentalError, 'status' | 'code' | 'msg' | 'message'>;

/** A call's failure as a refusal (`.catch(refusalOf)`); a network failure, a 429 or a 5xx is thrown on. */
export function refusalOf(error: unknown): { refused: Refusal } {
  if (!(error instanceof EnergyRentalError) || (error.kind !== 'api' && error.kind !== 'http')) throw error;
  if (error.kind === 'http' && (error.status! >= 500 || error.status === 429)) throw error;
  return { refused: { status: error.status, code: error.code, msg: error.msg, message: error.message } };
}

/**
 * Asserts that `answer` (a call's result, `.catch(refusalOf)`) is no refusal: a call a
 * documented fact says must be answered fails naming that fact, and what was said.
 *
 * @example
 *   const byId = await api.getOrderHistory({ orderId }).catch(refusalOf);
 *   expectAnswered(checks, 'history-lookup', byId, 'the order looked up by orderId');
 */
export function expectAnswered<T>(
  { expectFact }: Checks,
  fact: FactId,
  answer: T | { refused: Refusal },
  what: string,
): asserts answer is T {
  expectFact(fact, refusalIn(answer)?.message, `${what} must be answered`).toBeUndefined();
}

const refusalIn = (answer: unknown): Refusal | undefined =>
  typeof answer === 'object' && answer !== null && 'refused' in answer
    ? (answer as { refused: Refusal }).refused
    : undefined;

/** Asserts that `answer` is a refusal under `fact`, carrying a code other than 0 and a message. */
export function expectRefused<T>(
  { expectFact }: Checks,
  fact: FactId,
  answer: T | { refused: Refusal },
  what: string,
): asserts answer is { refused: Refusal } {
  const refused = refusalIn(answer);
  expectFact(fact, refused !== undefined, `${what} must be refused`).toBe(true);
  expectFact(
    'rejection-code',
    { code: refused?.code, msg: typeof refused?.msg },
    `${what}: ${refused?.message}`,
  ).toEqual({
    code: refused?.code === 0 || refused?.code === undefined ? 'a code other than 0' : refused.code,
    msg: 'string',
  });
}

/**
 * A run-unique outOrderNo from the run id, the case's name and its count: repeated runs never
 * collide, and a replay (the recording's run id) sends what the recording run sent.
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

function ensureMeta(task: TestContext['task'], target: ContractTarget): ContractMeta {
  task.meta.contract ??= { target: target.info, interactions: [], spent: [], facts: [], notes: [] };
  return task.meta.contract;
}

export const contractTest: TestAPI<Fixtures> = base.extend<Fixtures>({
  // vitest reads a fixture's dependencies from its first parameter's pattern: this one has none.
  // eslint-disable-next-line no-empty-pattern
  config: [async ({}, use) => use(readContractConfig()), { scope: 'file' }],
  connection: [async ({ config }, use) => use(await connectTarget(config)), { scope: 'file' }],
  target: async ({ connection, task, onTestFinished }, use) => {
    // A replay's miss (HTTP 501) fails the case: a case expecting a rejection could take it for one.
    onTestFinished(() => {
      const misses = connection.takeReplayMisses(task.fullName).map((m) => `\n  ${m}`);
      if (misses.length > 0)
        throw new Error(
          `the replay has no recorded interaction for these requests of this case:${misses.join('')}`,
        );
    });
    if (!connection.polite()) {
      await use(connection.forCase(task.fullName, task.file.name));
      return;
    }
    // vitest's clock counts the case's waits for the pace and for Retry-After; this one does not.
    const waits = connection.waitsOf(task.fullName);
    ensureMeta(task, connection).politeness = waits;
    const watch = watchOwnTime(waits, CASE_TIMEOUT_MS);
    try {
      await use(connection.forCase(task.fullName, task.file.name, watch.signal));
    } finally {
      watch.stop();
    }
  },

  clientFor: async ({ target, task, onTestFinished }, use) => {
    await use((apiKey) => createClient(clientOptions({ target, task, onTestFinished }, apiKey)));
  },

  orderInQuery: async ({ target, task, onTestFinished }, use) => {
    await use(async (params) => {
      const options = clientOptions({ target, task, onTestFinished }, target.apiKey);
      const baseUrl = options.baseUrl.replace(/\/+$/, '');
      const created = await sendRequest({ ...options, baseUrl }, 'createOrder', { query: params });
      ensureMeta(task, target).spent.push({ amount: String(created.amount), currency: created.currency });
      return created;
    });
  },

  expectFact: async ({ task, target }, use) => {
    const { expect } = task.context;
    await use((id, actual, message) => {
      const { facts } = ensureMeta(task, target);
      if (!facts.includes(id)) facts.push(id);
      return expect(actual, `${message ? `${message}; ` : ''}fact ${describeFact(id)}`);
    });
  },

  onSimulator: async ({ task, target }, use) => {
    const { expect } = task.context;
    await use((checks) => {
      if (target.info.simulator) checks(expect);
    });
  },

  note: async ({ task, target }, use) => {
    await use((text) => ensureMeta(task, target).notes.push(text));
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
        rentalCount: 64000,
        period: '10min' as const,
        outOrderNo: overrides.outOrderNo ?? newOutOrderNo('order'),
      };
    });
  },

  requireCapability: async ({ target, skip }, use) => {
    await use((capability) => {
      if (!target.has(capability))
        skip(
          `needs the '${capability}' capability, which ${target.info.simulator ? 'this simulator' : 'a target that is not a simulator'} does not offer`,
        );
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
});

/** A case's client options: requests recorded, answers checked; a violation fails the case even if caught. */
function clientOptions(
  { target, task, onTestFinished }: Pick<TestContext, 'task' | 'onTestFinished'> & { target: ContractTarget },
  apiKey: string | undefined,
): ClientOptions & Required<Pick<ClientOptions, 'timeoutMs' | 'fetch'>> {
  const meta = ensureMeta(task, target);
  return {
    baseUrl: target.info.baseUrl,
    ...(apiKey ? { apiKey } : {}),
    timeoutMs: target.polite() ? POLITE_CLIENT_TIMEOUT_MS : 10_000,
    fetch: target.fetch,
    sleep: (ms) => target.sleep(ms),
    now: () => target.now(),
    onResponse: (exchange: Exchange) => {
      const violations = checkExchange(exchange, target.info);
      meta.interactions.push(record(exchange, violations));
      if (exchange.status !== undefined)
        for (const id of factsOfAnswer(exchange)) if (!meta.facts.includes(id)) meta.facts.push(id);
      if (violations.length === 0) return;
      const message = describeViolations(exchange, violations);
      onTestFinished(() => {
        throw new Error(message);
      });
      throw new Error(message);
    },
  };
}

function record(exchange: Exchange, violations: SpecViolation[]): RecordedInteraction {
  const { operationId, method, url, requestHeaders: headers, requestBody: body, status, error } = exchange;
  return {
    operationId,
    request: { method, url, headers, ...(body === undefined ? {} : { body }) },
    durationMs: Math.round(exchange.durationMs * 1000) / 1000,
    ...(status === undefined
      ? {}
      : { response: { status, headers: exchange.responseHeaders ?? {}, body: exchange.body } }),
    ...(error ? { error: error.message } : {}),
    ...(violations.length > 0 ? { specViolations: violations } : {}),
  };
}

/** Claims one of `max` order slots, each a file created exclusively, so the limit holds across workers. */
function claimOrderSlot(runDir: string, max: number): boolean {
  mkdirSync(runDir, { recursive: true });
  for (let slot = 1; slot <= max; slot++) {
    try {
      closeSync(openSync(path.join(runDir, `order-slot-${slot}`), 'wx'));
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return false;
}

/**
 * Aborts the signal once the case spent more than `limitMs` of its own time (its polite waits left out).
 *
 * @example
 *   const watch = watchOwnTime(target.waitsOf(name), 120_000);
 *   try { await use(target.forCase(name, file, watch.signal)); } finally { watch.stop(); }
 */
export function watchOwnTime(waits: PoliteWaits, limitMs: number): { signal: AbortSignal; stop(): void } {
  const controller = new AbortController();
  const started = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    const waiting = waits.waitingSince === undefined ? 0 : now - waits.waitingSince;
    if (now - started - waits.waitedMs - waiting <= limitMs) return;
    clearInterval(timer);
    controller.abort(
      new Error(
        `the case spent more than ${limitMs} ms of its own time (its timeout), not counting the ${Math.round(waits.waitedMs + waiting)} ms it waited to be polite`,
      ),
    );
  }, 1000);
  timer.unref();
  return { signal: controller.signal, stop: () => clearInterval(timer) };
}
