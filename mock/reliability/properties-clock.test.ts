/**
 * Property tests of the manual clock at its extremes: fast-check generates a starting
 * time (the default, or within a few years of the latest time an order id can hold) and
 * a sequence of advances (zero, one millisecond, the one-year maximum of a request, the
 * exact distance to the limit and one past it, or anything in between), interleaved with
 * orders. Every advance either succeeds, leaving /_sim/clock, /_sim/dashboard and a new
 * order answering valid bodies with a well-formed id stamped with the clock's time, or
 * is refused with a 4xx envelope that names the limit and leaves the clock where it was.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createValidators, loadSpec } from '../../src/spec/loader.ts';
import { createManualClock, DEFAULT_MANUAL_START, MAX_CLOCK_MS } from '../engine/manual-clock.ts';
import { createSimulator, type Simulator } from '../simulator.ts';
import { ADDRESS } from '../test-support/fixtures.ts';

const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : 20_261_124;
const YEAR_MS = 31_536_000_000;
const control = createValidators(loadSpec('control'));
const api = createValidators(loadSpec('api'));

type Step = { kind: 'advance'; ms: number | 'to-limit' | 'past-limit' } | { kind: 'order' };

const start = fc.oneof(
  fc.constant(DEFAULT_MANUAL_START),
  fc.constant(MAX_CLOCK_MS),
  fc.integer({ min: MAX_CLOCK_MS - 3 * YEAR_MS, max: MAX_CLOCK_MS }),
);
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      ms: fc.oneof(
        fc.constantFrom(0, 1, 999, 1000, YEAR_MS, YEAR_MS - 1),
        fc.integer({ min: 0, max: YEAR_MS }),
        fc.constantFrom('to-limit' as const, 'past-limit' as const),
      ),
    }),
  },
  { weight: 2, arbitrary: fc.constant({ kind: 'order' as const }) },
);

/** The yyyyMMddHHmmss stamp an order id made at `ms` carries. */
function stamp(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

async function json(
  sim: Simulator,
  path: string,
  init: RequestInit = {},
): Promise<{ status: number; body: any }> {
  const res = await sim.app.request(path, init);
  return { status: res.status, body: JSON.parse(await res.text()) };
}

async function expectHealthy(sim: Simulator): Promise<void> {
  const clock = await json(sim, '/_sim/clock');
  expect(clock.status).toBe(200);
  expect(control.response('getClock', 200)!(clock.body)).toBe(true);
  expect(clock.body.now).toBeLessThanOrEqual(MAX_CLOCK_MS);
  expect(new Date(clock.body.iso).getTime()).toBe(clock.body.now);
  const dashboard = await json(sim, '/_sim/dashboard');
  expect(dashboard.status).toBe(200);
  expect(control.response('getDashboard', 200)!(dashboard.body)).toBe(true);
}

async function run(startAt: number, steps: Step[]): Promise<void> {
  const errors: unknown[] = [];
  const sim = createSimulator({
    clock: createManualClock(startAt),
    scenario: { accounts: [{ apiKey: 'clock-key', balance: { trx: '100000' } }] },
    onUnexpectedError: (e) => errors.push(e),
  });
  for (const [i, s] of steps.entries()) {
    const before = sim.clock.now();
    if (s.kind === 'order') {
      const created = await json(
        sim,
        `/v1/tron/order?pledgeAddress=${ADDRESS}&rentalCount=64000&period=10min&outOrderNo=c-${i}`,
        { method: 'POST', headers: { 'API-KEY': 'clock-key' } },
      );
      expect(created.status).toBe(200);
      expect(api.response('createOrder', 200)!(created.body)).toBe(true);
      expect(created.body.data.id).toMatch(/^OR[0-9]{14}[A-Z0-9]{8}$/);
      expect(created.body.data.id.slice(2, 16)).toBe(stamp(before));
    } else {
      const ms =
        s.ms === 'to-limit'
          ? Math.min(YEAR_MS, MAX_CLOCK_MS - before)
          : s.ms === 'past-limit'
            ? Math.min(YEAR_MS, MAX_CLOCK_MS - before + 1)
            : s.ms;
      const reply = await json(sim, '/_sim/clock/advance', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ms }),
      });
      if (before + ms <= MAX_CLOCK_MS) {
        expect(reply.status).toBe(200);
        expect(reply.body.now).toBe(before + ms);
      } else {
        expect(reply.status).toBeGreaterThanOrEqual(400);
        expect(reply.status).toBeLessThan(500);
        expect(reply.body).toMatchObject({
          code: 30003,
          data: null,
          msg: expect.stringContaining('9999-12-31T23:59:59.999Z'),
        });
        expect(sim.clock.now()).toBe(before);
      }
    }
    await expectHealthy(sim);
  }
  expect(errors).toEqual([]);
}

describe('the manual clock at its extremes', () => {
  it('either advances and every endpoint stays valid, or refuses with a 4xx naming the limit', async () => {
    await fc.assert(fc.asyncProperty(start, fc.array(step, { minLength: 1, maxLength: 12 }), run), {
      seed: SEED,
      numRuns: 60,
    });
  }, 120_000);

  it('refuses one-year advances from the default start once the next would pass year 9999', async () => {
    const sim = createSimulator({ clock: 'manual' });
    let last: { status: number; body: any } | undefined;
    for (let i = 0; i < 9000; i++) {
      last = await json(sim, '/_sim/clock/advance', {
        method: 'POST',
        body: JSON.stringify({ ms: YEAR_MS }),
      });
      if (last.status !== 200) break;
    }
    expect(last!.status).toBe(409);
    expect(last!.body.msg).toMatch(/past 9999-12-31T23:59:59\.999Z .*advance by at most \d+ ms/);
    expect(sim.clock.now() + YEAR_MS).toBeGreaterThan(MAX_CLOCK_MS);
    await expectHealthy(sim);
  }, 120_000);

  it('refuses to start past the limit, through the state file or a given start', () => {
    expect(() => createManualClock(MAX_CLOCK_MS + 1)).toThrow(/9999-12-31T23:59:59\.999Z/);
    expect(() => createManualClock(Number.NaN)).toThrow(/from 0 to/);
    expect(() => createManualClock(MAX_CLOCK_MS)).not.toThrow();
  });
});
