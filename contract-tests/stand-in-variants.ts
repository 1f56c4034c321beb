/**
 * A stand-in for the real service that chooses differently from the simulator wherever
 * upstream publishes nothing, so the self-test can prove the suite holds a service to
 * documented facts only:
 *
 * - errors come as HTTP 200, with codes and messages of its own;
 * - the account answers `code: 1`;
 * - `createdAt` is in seconds;
 * - an unknown path gets a plain HTML 404, as a web server gives;
 * - a duplicate `outOrderNo` is refused;
 * - REFUNDED follows FAILED at once, and delivery is instant;
 * - the price table is different (still rounded as documented);
 * - and, like the real service, it has no control plane.
 *
 * The suite must pass against it ('stand-in', and 'stand-in-failing' where every order
 * fails and is refunded at once), and fail against it with one documented fact broken
 * ('stand-in+wrong-rounding' and the like: any broken variant layered over it).
 */
import type { Simulator } from '../mock/simulator.ts';
import { BROKEN_VARIANTS } from './broken-variants.ts';
import { rateLimited } from './stand-ins/rate-limit.ts';

/** The rate limit of 'stand-in+rate-limited': what a provider that publishes none might enforce. */
export const STAND_IN_RATE_LIMIT = { perSecond: 8 } as const;

/**
 * The rate limit of 'stand-in+rate-limited-strict': so tight that an unpaced suite meets
 * 429s in every file, whose Retry-After is an HTTP date.
 */
export const STRICT_RATE_LIMIT = { perSecond: 2, retryAfter: 'http-date' } as const;

/** Its own prices, sun per unit: every period differs from the simulator's defaults. */
const STAND_IN_PRICES = { '10min': 47, '1h': 71, '1d': 83, '3d': 89, '7d': 97, '14d': 101, '30d': 103 };

/** Its own error catalogue: every rejection answered HTTP 200, with codes and wording of its own. */
const STAND_IN_ERRORS = {
  apiKeyMissing: { status: 200, code: 1001, msg: 'API-KEY header is required' },
  apiKeyUnknown: { status: 200, code: 401, msg: 'Invalid API key' },
  parameterMissing: { status: 200, code: 1003, msg: 'Missing parameter' },
  parameterInvalid: { status: 200, code: 1003, msg: 'Invalid parameter' },
  belowMinimum: { status: 200, code: 1002, msg: 'rentalCount must be at least 64000' },
  orderNotFound: { status: 200, code: 1004, msg: 'Order does not exist' },
  insufficientBalance: { status: 200, code: 1006, msg: 'Insufficient balance' },
  duplicateOutOrderNo: { status: 200, code: 1005, msg: 'Duplicate outOrderNo' },
  methodNotAllowed: { status: 200, code: 1405, msg: 'Method not allowed' },
};

/**
 * The stand-in over a simulator: its settings are the calibratable choices, all made
 * differently from the simulator's defaults (so calibrating from a recording of it must
 * learn every one), and its control plane is hidden.
 */
function standIn(sim: Simulator, options: { failEveryOrder: boolean }): Simulator {
  sim.engine.updateSettings({
    errors: STAND_IN_ERRORS,
    unknownPath: 'html',
    createdAtUnit: 's',
    accountSuccessCode: 1,
    duplicateOutOrderNo: 'reject',
    timing: 'instant',
    failureRate: options.failEveryOrder ? 1 : 0,
    prices: STAND_IN_PRICES,
  });
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    // No control plane, as the real service: the suite sees a target that is no simulator.
    if (new URL(request.url).pathname.startsWith('/_sim')) return html404();
    return sim.fetch(request);
  }) as typeof globalThis.fetch;
  return { ...sim, fetch };
}

function html404(): Response {
  return new Response(
    '<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>',
    {
      status: 404,
      headers: { 'content-type': 'text/html' },
    },
  );
}

/**
 * The broken facts the self-test layers over the stand-in, each documented upstream:
 * rounding, field types, the echo of outOrderNo, statuses that move forward only, and
 * (below) the txId on COMPLETED. ('status-skipped' is left out: the stand-in delivers at
 * once, so no order is PENDING when read and there is nothing to skip.)
 */
export const STAND_IN_BREAKS = [
  'wrong-rounding',
  'number-as-string',
  'type-changed',
  'wrong-echo',
  'status-reversed',
] as const;

/** A COMPLETED order in the history without its delegation txId. */
function withoutTxId(sim: Simulator): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const response = await sim.fetch(request);
    if (!new URL(request.url).pathname.endsWith('/v1/tron/history')) return response;
    const body = (await response.json()) as { data?: Record<string, unknown> | null };
    if (body.data?.status === 'COMPLETED') body.data.txId = '';
    return new Response(JSON.stringify(body), { status: response.status, headers: response.headers });
  }) as typeof fetch;
}

/**
 * The stand-in variants by name: 'stand-in', 'stand-in-failing', 'stand-in+rate-limited'
 * (at most 8 requests a second per key, then 429 with `Retry-After: 1`),
 * 'stand-in+rate-limited-strict' (2 a second, `Retry-After` as an HTTP date), and
 * 'stand-in+<broken>' for each of STAND_IN_BREAKS.
 *
 * @example
 *   STAND_IN_VARIANTS['stand-in+wrong-rounding'].apply(sim); // a fetch the suite must fail
 */
export const STAND_IN_VARIANTS: Record<string, { breaks: string; apply: (sim: Simulator) => typeof fetch }> =
  {
    'stand-in': {
      breaks: 'nothing documented: only choices upstream leaves open',
      apply: (sim) => standIn(sim, { failEveryOrder: false }).fetch,
    },
    'stand-in-failing': {
      breaks: 'nothing documented: every order fails and is refunded at once',
      apply: (sim) => standIn(sim, { failEveryOrder: true }).fetch,
    },
    'stand-in+rate-limited': {
      breaks: `nothing documented: at most ${STAND_IN_RATE_LIMIT.perSecond} requests a second per API key, then HTTP 429 with Retry-After: 1`,
      apply: (sim) => rateLimited(standIn(sim, { failEveryOrder: false }).fetch, STAND_IN_RATE_LIMIT),
    },
    'stand-in+rate-limited-strict': {
      breaks: `nothing documented: at most ${STRICT_RATE_LIMIT.perSecond} requests a second per API key, then HTTP 429 with Retry-After as an HTTP date`,
      apply: (sim) => rateLimited(standIn(sim, { failEveryOrder: false }).fetch, STRICT_RATE_LIMIT),
    },
    'stand-in+txid-missing': {
      breaks: 'the stand-in, and a COMPLETED order without its txId',
      apply: (sim) => withoutTxId(standIn(sim, { failEveryOrder: false })),
    },
    ...Object.fromEntries(
      STAND_IN_BREAKS.map((name) => [
        `stand-in+${name}`,
        {
          breaks: `the stand-in, and ${BROKEN_VARIANTS[name]!.breaks}`,
          apply: (sim: Simulator) => BROKEN_VARIANTS[name]!.apply(standIn(sim, { failEveryOrder: false })),
        },
      ]),
    ),
  };
