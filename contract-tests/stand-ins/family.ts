/**
 * The family of stand-ins: members of the independent service (independent-service.ts),
 * each choosing differently wherever upstream is silent, and the planted breaks of
 * documented facts the suite must catch on each.
 *
 * - every non-default choice of every class (envelope time, decimals, undocumented
 *   fields, rejections, wrong-method and unknown-path answers, statuses shown, the
 *   identifier history prefers, the currency when TRX is short, `createdAt`'s unit, the
 *   account's success code, duplicate `outOrderNo`) appears in at least one member;
 * - `all-choices` combines them all;
 * - `rate-limited` paces its key (rate-limit.ts).
 *
 * The suite must pass on each member read-only and spending one order, and fail on each
 * break that applies to it (`FAMILY_VARIANTS`: 'family-<member>' and
 * 'family-<member>+<break>').
 */
import type { Simulator } from '../../mock/simulator.ts';
import { BROKEN_VARIANTS } from '../broken-variants.ts';
import {
  createIndependentService,
  type Rejection,
  type RejectionKind,
  type ServiceChoices,
} from './independent-service.ts';
import { rateLimited } from './rate-limit.ts';

type Fetch = typeof fetch;

/**
 * The base choices: where the simulator has a default, the same one (so a member differs
 * from the simulator's defaults exactly by what it overrides).
 */
export const PLAIN_CHOICES: ServiceChoices = {
  timeUnit: 's',
  createdAtUnit: 'ms',
  extraFields: {},
  rejections: {
    apiKeyMissing: { status: 401, code: 10001, msg: 'Missing API-KEY header' },
    apiKeyUnknown: { status: 401, code: 10002, msg: 'Unknown API key' },
    parameterMissing: { status: 400, code: 20001, msg: 'Missing parameter' },
    parameterInvalid: { status: 400, code: 20002, msg: 'Invalid parameter' },
    belowMinimum: { status: 400, code: 20002, msg: 'Invalid parameter' },
    orderNotFound: { status: 404, code: 40401, msg: 'Order not found' },
    insufficientBalance: { status: 402, code: 30001, msg: 'Insufficient balance' },
    duplicateOutOrderNo: { status: 409, code: 30002, msg: 'Duplicate outOrderNo' },
    methodNotAllowed: { status: 405, code: 40500, msg: 'Method not allowed' },
    notFound: { status: 404, code: 40400, msg: 'Not found' },
  },
  showsProcessing: true,
  failEveryOrder: false,
  deliveryMs: 3000,
  failedLingersMs: 0,
  historyPrefers: 'orderId',
  usdtWhenTrxShort: false,
  accountSuccessCode: 0,
  duplicateOutOrderNo: 'return-existing',
  prices: { '10min': 60, '1h': 65, '1d': 75, '3d': 80, '7d': 85, '14d': 90, '30d': 95 },
  balance: { trxSun: 795_380_000n, usdtMicro: 31_748n },
  usdtMicroPerTrxCent: 2_500n,
};

/** Rejections of its own: other statuses, codes, wording and content types; some bodies not JSON. */
const OWN_REJECTIONS: Record<RejectionKind, Rejection> = {
  // Every rejection the suite provokes keeps the documented envelope (code and msg), in a
  // content type of its own; the ones it never provokes have no JSON at all.
  apiKeyMissing: {
    status: 403,
    code: 4031,
    msg: 'apikey required',
    contentType: 'text/plain; charset=utf-8',
  },
  apiKeyUnknown: { status: 403, code: 4032, msg: 'apikey invalid', contentType: 'text/plain; charset=utf-8' },
  parameterMissing: {
    status: 422,
    code: 4221,
    msg: 'param missing',
    contentType: 'text/plain; charset=utf-8',
  },
  parameterInvalid: { status: 422, code: 4222, msg: 'param error', contentType: 'text/plain; charset=utf-8' },
  belowMinimum: {
    status: 422,
    code: 4223,
    msg: 'rentalCount too small',
    contentType: 'text/plain; charset=utf-8',
  },
  orderNotFound: { status: 200, code: 4004, msg: 'order not exist' },
  insufficientBalance: { status: 402, code: 4020, msg: 'balance not enough', body: 'empty' },
  duplicateOutOrderNo: { status: 409, code: 4090, msg: 'outOrderNo exists', body: 'text' },
  methodNotAllowed: { status: 405, code: 0, msg: '', body: 'empty' },
  notFound: { status: 404, code: 0, msg: 'Not Found', body: 'text' },
};

/** Undocumented fields in price, order, history and account data. */
const EXTRA_FIELDS: ServiceChoices['extraFields'] = {
  price: () => ({ minRentalCount: 64000 }),
  order: (_data, order) => ({ status: 'PENDING', pledgeAddress: order?.pledgeAddress }),
  history: (data) => ({
    updatedAt: Number(data.createdAt) + 1,
    energyAmount: Number(data.rentalCount),
  }),
  account: () => ({ email: '', level: 1 }),
};

/** The members of the family, by name. */
export const FAMILY_MEMBERS = [
  'plain',
  'time-units',
  'answer-shapes',
  'own-rejections',
  'lifecycle-choices',
  'lingering-failure',
  'usdt-payer',
  'all-choices',
  'rate-limited',
] as const;
export type FamilyMember = (typeof FAMILY_MEMBERS)[number];

/** Each member's choices, as changes to the plain ones (a member missing here, or one too many, does not compile). */
const MEMBERS: Record<FamilyMember, Partial<ServiceChoices>> = {
  plain: {},
  'time-units': { timeUnit: 'ms', createdAtUnit: 's' },
  'answer-shapes': { fixedDecimals: 6, extraFields: EXTRA_FIELDS },
  'own-rejections': { rejections: OWN_REJECTIONS },
  'lifecycle-choices': {
    showsProcessing: false,
    historyPrefers: 'outOrderNo',
    duplicateOutOrderNo: 'reject',
    accountSuccessCode: 1,
    rejections: { ...PLAIN_CHOICES.rejections, notFound: { status: 404, code: 0, msg: '', body: 'empty' } },
  },
  'lingering-failure': { failEveryOrder: true, failedLingersMs: 2500 },
  'usdt-payer': { usdtWhenTrxShort: true, balance: { trxSun: 1_500_000n, usdtMicro: 50_000_000n } },
  'all-choices': {
    timeUnit: 'ms',
    createdAtUnit: 's',
    fixedDecimals: 6,
    extraFields: EXTRA_FIELDS,
    rejections: OWN_REJECTIONS,
    showsProcessing: false,
    failEveryOrder: true,
    failedLingersMs: 2500,
    historyPrefers: 'outOrderNo',
    usdtWhenTrxShort: true,
    accountSuccessCode: 1,
    duplicateOutOrderNo: 'reject',
    prices: { '10min': 47, '1h': 71, '1d': 83, '3d': 89, '7d': 97, '14d': 101, '30d': 103 },
    balance: { trxSun: 1_500_000n, usdtMicro: 50_000_000n },
  },
  'rate-limited': {},
};

/** A member's full choices. */
export function memberChoices(member: FamilyMember): ServiceChoices {
  return { ...PLAIN_CHOICES, ...MEMBERS[member] };
}

/** The pace of the rate-limited member: at most 8 requests a second per key, then 429 with Retry-After. */
export const RATE_LIMIT = { perSecond: 8, retryAfter: 'seconds', headers: false } as const;

/**
 * A member's service as a fetch.
 *
 * @example
 *   const fetch = memberFetch('time-units');
 *   await fetch('http://x/v1/account', { headers: { 'API-KEY': 'demo-key' } });
 */
export function memberFetch(
  member: FamilyMember,
  options: { now?: () => number; seed?: string } = {},
): Fetch {
  const service = createIndependentService({
    choices: memberChoices(member),
    ...options,
    seed: options.seed ?? member,
  });
  const plain = ((input: RequestInfo | URL, init?: RequestInit) =>
    service.fetch(new Request(input, init))) as Fetch;
  return member === 'rate-limited' ? rateLimited(plain, RATE_LIMIT) : plain;
}

/** Rewrites the JSON body of one path's answers. */
function rewrite(inner: Fetch, pathSuffix: string, change: (body: Record<string, unknown>) => void): Fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const response = await inner(request);
    if (!new URL(request.url).pathname.endsWith(pathSuffix)) return response;
    const text = await response.text();
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return new Response(text, { status: response.status, headers: response.headers });
    }
    change(body);
    return new Response(JSON.stringify(body), { status: response.status, headers: response.headers });
  }) as Fetch;
}

/** Rewrites one query or form parameter of every request before it reaches the service. */
function rewriteParameter(inner: Fetch, name: string, from: string, to: string): Fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    if (url.searchParams.get(name) === from) url.searchParams.set(name, to);
    let body: string | undefined;
    if (request.method === 'POST') {
      const form = new URLSearchParams(await request.text());
      if (form.get(name) === from) form.set(name, to);
      body = form.toString();
    }
    return inner(new Request(url, { method: request.method, headers: request.headers, body }));
  }) as Fetch;
}

const data = (body: Record<string, unknown>) => body.data as Record<string, unknown> | null | undefined;

/** A break reused from the simulator's broken variants, applied to any fetch. */
function reused(name: keyof typeof BROKEN_VARIANTS & string): (inner: Fetch) => Fetch {
  // Those breaks read only `fetch` of the simulator they wrap (and key their own state by it).
  return (inner) => BROKEN_VARIANTS[name]!.apply({ fetch: inner } as unknown as Simulator);
}

/**
 * What a break needs to show: an order that completes, an order at all (a run that may
 * spend), or only read-only calls.
 */
export type Needs = 'completion' | 'order' | 'none';

/** Planted breaks of documented facts, each one the suite must catch. */
export const FAMILY_BREAKS: Record<string, { breaks: string; needs: Needs; apply: (inner: Fetch) => Fetch }> =
  {
    'field-removed': {
      breaks: BROKEN_VARIANTS['field-removed']!.breaks,
      needs: 'none',
      apply: reused('field-removed'),
    },
    'type-changed': {
      breaks: BROKEN_VARIANTS['type-changed']!.breaks,
      needs: 'order',
      apply: reused('type-changed'),
    },
    'number-as-string': {
      breaks: BROKEN_VARIANTS['number-as-string']!.breaks,
      needs: 'none',
      apply: reused('number-as-string'),
    },
    'wrong-rounding': {
      breaks: BROKEN_VARIANTS['wrong-rounding']!.breaks,
      needs: 'none',
      apply: reused('wrong-rounding'),
    },
    'wrong-echo': {
      breaks: BROKEN_VARIANTS['wrong-echo']!.breaks,
      needs: 'order',
      apply: reused('wrong-echo'),
    },
    'auth-dropped': {
      breaks: BROKEN_VARIANTS['auth-dropped']!.breaks,
      needs: 'none',
      apply: reused('auth-dropped'),
    },
    'status-skipped': {
      breaks: BROKEN_VARIANTS['status-skipped']!.breaks,
      needs: 'order',
      apply: reused('status-skipped'),
    },
    'status-reversed': {
      breaks: BROKEN_VARIANTS['status-reversed']!.breaks,
      needs: 'completion',
      apply: reused('status-reversed'),
    },
    'txid-missing': {
      breaks: 'a COMPLETED order in the history without its delegation txId',
      needs: 'completion',
      apply: (inner) =>
        rewrite(inner, '/v1/tron/history', (b) => {
          const d = data(b);
          if (d?.status === 'COMPLETED') d.txId = '';
        }),
    },
    'minimum-ignored': {
      breaks: 'an order of 63999, below the documented minimum, is accepted',
      needs: 'order',
      apply: (inner) => rewriteParameter(inner, 'rentalCount', '63999', '64000'),
    },
    'period-ignored': {
      breaks: "a period outside the seven allowed values ('2h') is priced",
      needs: 'none',
      apply: (inner) => rewriteParameter(inner, 'period', '2h', '1h'),
    },
    'name-unlike-wallet': {
      breaks: 'the account name is not "User-" and the first six characters of the wallet',
      needs: 'none',
      apply: (inner) =>
        rewrite(inner, '/v1/account', (b) => {
          const d = data(b);
          if (d) d.name = 'User-000000';
        }),
    },
    'usdt-trimmed': {
      breaks: 'the account shows USDT without its six decimals',
      needs: 'none',
      apply: (inner) =>
        rewrite(inner, '/v1/account', (b) => {
          const available = (data(b)?.balance as { available?: { usdt?: string } } | undefined)?.available;
          if (available?.usdt) available.usdt = Number(available.usdt).toFixed(2);
        }),
    },
    'id-format': {
      breaks: "order ids are not 'OR' + 14 digits + 8 upper-case letters and digits",
      needs: 'order',
      apply: (inner) =>
        rewrite(inner, '/v1/tron/order', (b) => {
          const d = data(b);
          if (typeof d?.id === 'string') d.id = d.id.toLowerCase();
        }),
    },
    'time-not-numeric': {
      breaks: "the envelope's time is not a numeric string",
      needs: 'none',
      apply: (inner) =>
        rewrite(inner, '/v1/tron/price', (b) => {
          b.time = new Date().toISOString();
        }),
    },
  };

/** The breaks the suite can see on a member: one whose orders all fail never completes one. */
export function breaksFor(member: FamilyMember): string[] {
  const choices = memberChoices(member);
  return Object.entries(FAMILY_BREAKS)
    .filter(([, b]) => b.needs !== 'completion' || !choices.failEveryOrder)
    .map(([name]) => name);
}

/**
 * Every member ('family-<member>') and every break that applies to it
 * ('family-<member>+<break>'), as contract targets select variants. The simulator they
 * are handed is not used: a member is a service of its own.
 *
 * @example
 *   FAMILY_VARIANTS['family-time-units'].apply(sim); // a fetch the suite must pass
 */
export const FAMILY_VARIANTS: Record<string, { breaks: string; apply: (sim: Simulator) => Fetch }> =
  Object.fromEntries(
    FAMILY_MEMBERS.flatMap((member) => [
      [
        `family-${member}`,
        { breaks: 'nothing documented: only choices upstream leaves open', apply: () => memberFetch(member) },
      ],
      ...breaksFor(member).map((name) => [
        `family-${member}+${name}`,
        {
          breaks: `the ${member} member, and ${FAMILY_BREAKS[name]!.breaks}`,
          apply: () => FAMILY_BREAKS[name]!.apply(memberFetch(member)),
        },
      ]),
    ]),
  );

/** Whether a variant name belongs to the family. */
export const isFamilyVariant = (name: string | undefined): boolean => name?.startsWith('family-') === true;
