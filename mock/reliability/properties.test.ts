/**
 * Property-based tests of the whole simulator, in-process: fast-check generates
 * sequences of requests for every operation of spec/openapi.yaml and every path of
 * spec/control.yaml, with valid, boundary and malformed input (wrong types; huge,
 * negative and fractional numbers; empty, unicode and injection-like strings; repeated
 * parameters, parameters both in the query and in the body; oversize bodies, wrong
 * content types, wrong methods, unknown paths), interleaved with clock advances and
 * state-changing control calls. After every request:
 *
 * - no 5xx, except an answer produced on purpose by an injected fault (faults are
 *   generated with no latency, and the requests they hit are told by the journal);
 * - every non-2xx body, and every body of the four API operations, is a JSON envelope
 *   with a numeric `code` (not 0 on an error) and a non-empty `msg`;
 * - `sim.engine.checkInvariants()` is empty (money conserved per account, no negative
 *   balance, timelines match statuses, COMPLETED has a txId, REFUNDED refunded once),
 *   and no order's status ever moved backwards;
 * - the simulator reported no unexpected error.
 *
 * Deterministic: rounds of five sequences seeded with FC_SEED when set, else a fixed
 * seed, then that seed + 1, … until the test's request count is reached. A failure
 * prints its round's seed and a shrunk sequence; FC_SEED=<seed> replays it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ORDER_STATUSES } from '../../src/generated/lists.ts';
import type { JournalEntry } from '../http/journal.ts';
import { createSimulator, type Simulator } from '../simulator.ts';
import {
  SEED,
  SCENARIO,
  controlSpec,
  API_LABELS,
  CONTROL_LABELS,
  type Step,
} from './traffic-test-support.ts';
import { apiStep, httpAbuseStep, validOrder } from './api-traffic-test-support.ts';
import {
  advanceStep,
  controlStep,
  anyControlStep,
  stateChangingControlStep,
} from './control-traffic-test-support.ts';

// ---------------------------------------------------------------------------------
// Running a sequence and checking every answer.

/** Status changes that move forward (several steps may happen in one clock advance). */
const FORWARD: Record<string, readonly string[]> = {
  PENDING: ORDER_STATUSES,
  PROCESSING: ['PROCESSING', 'COMPLETED', 'FAILED', 'REFUNDED'],
  COMPLETED: ['COMPLETED'],
  FAILED: ['FAILED', 'REFUNDED'],
  REFUNDED: ['REFUNDED'],
};

interface Tally {
  requests: number;
  targets: Set<string>;
  /** Answers excluded from the body checks because an injected fault produced them. */
  faulted: number;
}

const newTally = (): Tally => ({ requests: 0, targets: new Set(), faulted: 0 });

function materialize(step: Step, orderIds: string[]): Request {
  const fill = (text: string): string =>
    text.replace(/\{\{order:(\d+)\}\}/g, (_, n: string) =>
      orderIds.length === 0 ? 'OR20250312175009NOORDER0' : orderIds[Number(n) % orderIds.length]!,
    );
  const search = new URLSearchParams(step.query.map(([k, v]) => [k, fill(v)])).toString();
  const init: RequestInit = { method: step.method, headers: step.headers };
  if (step.body !== undefined) init.body = fill(step.body);
  return new Request(`http://sim${fill(step.path)}${search ? `?${search}` : ''}`, init);
}

function describeStep(index: number, step: Step): string {
  const body =
    step.body === undefined
      ? ''
      : ` body ${JSON.stringify(step.body.length > 300 ? `${step.body.slice(0, 300)}…` : step.body)}`;
  return `step ${index}: ${step.method} ${step.path} query ${JSON.stringify(step.query)} headers ${JSON.stringify(step.headers).slice(0, 200)}${body}`;
}

function isEnvelope(value: unknown): value is { code: number; msg: string } {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { code?: unknown }).code === 'number' &&
    typeof (value as { msg?: unknown }).msg === 'string' &&
    (value as { msg: string }).msg.length > 0
  );
}

async function checkAnswer(
  step: Step,
  request: Request,
  res: Response,
  where: string,
  orderIds: string[],
): Promise<void> {
  expect(res.status, `${where}: a 5xx answer`).toBeLessThan(500);
  const type = res.headers.get('content-type') ?? '';
  if (type.startsWith('text/event-stream')) {
    await res.body?.cancel();
    return;
  }
  const text = await res.text();
  if (request.method === 'HEAD') {
    expect(text, `${where}: a HEAD answer with a body`).toBe('');
    return;
  }
  if (res.status === 405) expect(res.headers.get('allow'), `${where}: a 405 without Allow`).toBeTruthy();
  const path = new URL(request.url).pathname;
  const isApi = /^(\/api)?\/v1\//.test(path);
  const ok = res.status >= 200 && res.status < 300;
  if (ok && !isApi && !type.startsWith('application/json')) return; // pages such as /_sim/ui
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    expect.fail(`${where}: the body is not JSON: ${text.slice(0, 200)}`);
  }
  if (!ok || isApi) {
    expect(
      isEnvelope(body),
      `${where}: not an envelope with a numeric code and a msg: ${text.slice(0, 300)}`,
    ).toBe(true);
  }
  if (!ok) expect((body as { code: number }).code, `${where}: an error with code 0`).not.toBe(0);
  if (ok && isApi && step.target === 'POST /v1/tron/order') {
    const id = (body as { data?: { id?: unknown } }).data?.id;
    if (typeof id === 'string' && !orderIds.includes(id)) orderIds.push(id);
  }
}

function checkState(
  sim: Simulator,
  seen: WeakMap<object, string>,
  where: string,
  unexpected: unknown[],
): void {
  expect(unexpected.map(String), `${where}: the simulator reported an unexpected error`).toEqual([]);
  expect(sim.engine.checkInvariants(), `${where}: broken invariants`).toEqual([]);
  for (const account of sim.engine.accounts()) {
    for (const book of Object.values(account.ledger)) {
      expect(
        Math.min(book.available, book.frozen, book.spent, book.deposited),
        `${where}: a negative balance`,
      ).toBeGreaterThanOrEqual(0);
    }
    for (const order of account.orders) {
      const before = seen.get(order);
      if (before !== undefined && !FORWARD[before]!.includes(order.status)) {
        expect.fail(`${where}: order ${order.id} went from ${before} back to ${order.status}`);
      }
      seen.set(order, order.status);
    }
  }
}

/** Runs one generated sequence against a fresh simulator, checking after every request. */
async function run(steps: Step[], tally: Tally): Promise<void> {
  const unexpected: unknown[] = [];
  const sim = createSimulator({
    clock: 'manual',
    seed: 7,
    scenario: SCENARIO,
    onUnexpectedError: (error) => unexpected.push(error),
  });
  // The journal entry of the request in flight, to tell the answers of injected faults.
  let current: JournalEntry | undefined;
  const journaled = (): JournalEntry | undefined => current;
  sim.journal.subscribe((entry) => {
    current = entry;
  });
  const orderIds: string[] = [];
  const seen = new WeakMap<object, string>();
  for (const [index, step] of steps.entries()) {
    const where = describeStep(index, step);
    current = undefined;
    const request = materialize(step, orderIds);
    const res = await sim.app.request(request);
    tally.requests++;
    tally.targets.add(step.target);
    if (journaled()?.fault !== undefined) {
      // An injected fault answered on purpose (a status, a broken body, a drop).
      tally.faulted++;
      await res.body?.cancel();
    } else {
      await checkAnswer(step, request, res, where, orderIds);
    }
    checkState(sim, seen, where, unexpected);
  }
}

/**
 * Runs generated sequences (1 to 250 requests each, so that a failure shrinks to a
 * short one) in rounds of five, seeded SEED, SEED + 1, …, until `target` requests
 * have been sent. A failure names its round's seed: FC_SEED=<that seed> replays it.
 */
async function assertSequences(steps: fc.Arbitrary<Step>, target: number, tally: Tally): Promise<void> {
  for (let round = 0; tally.requests < target; round++) {
    await fc.assert(
      fc.asyncProperty(fc.array(steps, { minLength: 1, maxLength: 250, size: 'max' }), (sequence) =>
        run(sequence, tally),
      ),
      { seed: SEED + round, numRuns: 5, interruptAfterTimeLimit: 90_000, markInterruptAsFailure: true },
    );
  }
}

// ---------------------------------------------------------------------------------

describe('the simulator under generated traffic', () => {
  it('answers at least 3,000 generated API requests, interleaved with clock advances and control changes, without a 5xx or a broken invariant', async () => {
    const tally = newTally();
    const traffic = fc.oneof(
      { weight: 12, arbitrary: apiStep },
      { weight: 3, arbitrary: advanceStep },
      { weight: 2, arbitrary: stateChangingControlStep },
      { weight: 1, arbitrary: anyControlStep },
    );
    await assertSequences(traffic, 3000, tally);
    expect(tally.requests).toBeGreaterThanOrEqual(3000);
    expect([...tally.targets]).toEqual(expect.arrayContaining(API_LABELS));
  }, 120_000);

  it('answers at least 3,000 generated control-plane requests on every path of spec/control.yaml, interleaved with orders', async () => {
    const tally = newTally();
    const traffic = fc.oneof(
      { weight: 10, arbitrary: anyControlStep },
      { weight: 3, arbitrary: stateChangingControlStep },
      { weight: 3, arbitrary: advanceStep },
      { weight: 5, arbitrary: apiStep },
    );
    await assertSequences(traffic, 3000, tally);
    expect(tally.requests).toBeGreaterThanOrEqual(3000);
    expect([...tally.targets]).toEqual(expect.arrayContaining(CONTROL_LABELS));
  }, 120_000);

  it('answers at least 2,500 generated wrong methods, unknown paths, oversize bodies and wrong content types with an error envelope', async () => {
    const tally = newTally();
    const traffic = fc.oneof(
      { weight: 8, arbitrary: httpAbuseStep },
      { weight: 2, arbitrary: validOrder },
      { weight: 1, arbitrary: advanceStep },
    );
    await assertSequences(traffic, 2500, tally);
    expect(tally.requests).toBeGreaterThanOrEqual(2500);
    expect([...tally.targets]).toEqual(
      expect.arrayContaining(['wrong-method', 'unknown-path', 'oversize-body', 'head']),
    );
  }, 120_000);

  it('keeps the books right through at least 2,000 generated requests of every kind, injected faults included', async () => {
    const tally = newTally();
    const faults = controlSpec.operations.filter((op) => op.operationId === 'injectFault').map(controlStep);
    const traffic = fc.oneof(
      { weight: 8, arbitrary: apiStep },
      { weight: 3, arbitrary: advanceStep },
      { weight: 3, arbitrary: stateChangingControlStep },
      { weight: 2, arbitrary: anyControlStep },
      { weight: 2, arbitrary: httpAbuseStep },
      { weight: 2, arbitrary: fc.oneof(...faults) },
    );
    await assertSequences(traffic, 2000, tally);
    expect(tally.requests).toBeGreaterThanOrEqual(2000);
    // The faults did hit: their answers were told apart, not merely absent.
    expect(tally.faulted).toBeGreaterThan(0);
  }, 120_000);
});
