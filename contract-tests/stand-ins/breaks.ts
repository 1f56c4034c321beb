/** Planted breaks of documented facts, each a layer over any service's fetch; the suite must fail each. */
import type { FactId } from '../facts.ts';

type Fetch = typeof fetch;
type Body = Record<string, unknown>;

/**
 * Rewrites the JSON body of answers whose path ends with `pathSuffix` ('/v1/': all); other bodies pass.
 *
 * @example
 *   rewrite(fetch, '/v1/tron/price', (body) => void (body.msg = 'Price estimated'));
 */
export function rewrite(
  inner: Fetch,
  pathSuffix: string,
  change: (body: Body, answer: { path: string; status: number }) => void,
): Fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const response = await inner(request);
    const path = new URL(request.url).pathname;
    if (!(pathSuffix === '/v1/' ? path.includes('/v1/') : path.endsWith(pathSuffix))) return response;
    const text = await response.text();
    let body: Body;
    try {
      body = JSON.parse(text) as Body;
    } catch {
      return new Response(text, { status: response.status, headers: response.headers });
    }
    change(body, { path, status: response.status });
    return new Response(JSON.stringify(body), { status: response.status, headers: response.headers });
  }) as Fetch;
}

/** Changes a request of one path ('' for every path) before it reaches the service. */
function rewriteRequest(
  inner: Fetch,
  pathSuffix: string,
  change: (url: URL, headers: Headers, form: URLSearchParams) => void,
): Fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    if (!url.pathname.endsWith(pathSuffix)) return inner(request);
    const headers = new Headers(request.headers);
    const form = new URLSearchParams(request.method === 'POST' ? await request.text() : '');
    change(url, headers, form);
    const body = request.method === 'POST' ? form.toString() : undefined;
    return inner(new Request(url, { method: request.method, headers, body }));
  }) as Fetch;
}

const PRICE = '/v1/tron/price';
const ORDER = '/v1/tron/order';
const HISTORY = '/v1/tron/history';
const ACCOUNT = '/v1/account';

/** A break that changes the `data` of one path's answers. */
const onData =
  (path: string, change: (data: Body) => void) =>
  (inner: Fetch): Fetch =>
    rewrite(inner, path, (body) => {
      if (typeof body.data === 'object' && body.data !== null) change(body.data as Body);
    });

/** A break that sends `to` in place of the parameter `name` (query or form) when it is `from`. */
const parameter =
  (name: string, from: string, to: string) =>
  (inner: Fetch): Fetch =>
    rewriteRequest(inner, '', (url, _headers, form) => {
      for (const params of [url.searchParams, form]) if (params.get(name) === from) params.set(name, to);
    });

/** What a break needs to show: an order that completes, one paid in TRX, any order, or nothing. */
export type Needs = 'completion' | 'trx-order' | 'order' | 'none';

/** A planted break: the fact a failure must name (either of two), what it breaks, what it needs, and the layer. */
export interface Break {
  facts: FactId[];
  breaks: string;
  needs: Needs;
  apply: (inner: Fetch) => Fetch;
}

const make = (facts: FactId | FactId[], breaks: string, needs: Needs, apply: Break['apply']): Break => ({
  facts: [facts].flat(),
  breaks,
  needs,
  apply,
});

export const BREAKS: Record<string, Break> = {
  'field-removed': make(
    'price-fields',
    'price omits the required field trxPrice',
    'none',
    onData(PRICE, (d) => delete d.trxPrice),
  ),
  'type-changed': make(
    'history-fields',
    'history sends createdAt as an ISO string instead of a number',
    'order',
    onData(HISTORY, (d) => {
      if (typeof d.createdAt === 'number') d.createdAt = new Date(d.createdAt).toISOString();
    }),
  ),
  'number-as-string': make(
    'price-fields',
    'price sends rentalCount as a string',
    'none',
    onData(PRICE, (d) => void (d.rentalCount = String(d.rentalCount))),
  ),
  'wrong-rounding': make(
    'price-rounding',
    'price computes trxPrice with binary floats and toFixed ("4.22" for 65000 at 65 sun)',
    'none',
    onData(PRICE, (d) => void (d.trxPrice = ((Number(d.sun) * Number(d.rentalCount)) / 1e6).toFixed(2))),
  ),
  'wrong-echo': make(
    'out-order-no-echo',
    'order creation echoes a different outOrderNo',
    'order',
    onData(ORDER, (d) => void (d.outOrderNo && (d.outOrderNo = `${String(d.outOrderNo)}-x`))),
  ),
  'auth-dropped': make(
    'api-key-required',
    'a request without an API key is served as the demo account',
    'none',
    (inner) =>
      rewriteRequest(inner, '', (_url, h) => void (h.has('api-key') || h.set('API-KEY', 'demo-key'))),
  ),
  'status-skipped': make(
    ['outcome-in-history', 'txid-on-completed'],
    'history reports COMPLETED while the order is still PENDING, skipping PROCESSING and the delegation',
    'order',
    onData(HISTORY, (d) => void (d.status === 'PENDING' && (d.status = 'COMPLETED'))),
  ),
  'status-reversed': make(
    'outcome-in-history',
    'history reports a COMPLETED order as PROCESSING on every second read',
    'completion',
    (inner) => {
      const reads = new Map<unknown, number>();
      return onData(HISTORY, (d) => {
        if (d.status !== 'COMPLETED') return;
        reads.set(d.orderId, (reads.get(d.orderId) ?? 0) + 1);
        if (reads.get(d.orderId)! % 2 === 0) d.status = 'PROCESSING';
      })(inner);
    },
  ),
  'txid-missing': make(
    'txid-on-completed',
    'a COMPLETED order in the history without its delegation txId',
    'completion',
    onData(HISTORY, (d) => void (d.status === 'COMPLETED' && (d.txId = ''))),
  ),
  'minimum-ignored': make(
    'order-minimum',
    'an order of 63999, below the documented minimum, is accepted',
    'order',
    parameter('rentalCount', '63999', '64000'),
  ),
  'period-ignored': make(
    'periods',
    "a period outside the seven allowed values ('2h') is priced",
    'none',
    parameter('period', '2h', '1h'),
  ),
  'name-unlike-wallet': make(
    'account-name',
    'the account name is not "User-" and the first six characters of the wallet',
    'none',
    onData(ACCOUNT, (d) => void (d.name = 'User-000000')),
  ),
  'usdt-trimmed': make(
    'usdt-decimals',
    'the account shows USDT without its six decimals',
    'none',
    onData(ACCOUNT, (d) => {
      const available = (d.balance as { available?: { usdt?: string } } | undefined)?.available;
      if (available?.usdt) available.usdt = Number(available.usdt).toFixed(2);
    }),
  ),
  'id-format': make(
    'order-id-format',
    "order ids are not 'OR' + 14 digits + 8 upper-case letters and digits",
    'order',
    onData(ORDER, (d) => void (typeof d.id === 'string' && (d.id = d.id.toLowerCase()))),
  ),
  'time-not-numeric': make('time-numeric', "the envelope's time is not a numeric string", 'none', (inner) =>
    rewrite(inner, PRICE, (b) => void (b.time = new Date().toISOString())),
  ),
  'history-key-dropped': make(
    'api-key-required',
    'the history served to a request without an API key, as the account of the key',
    'none',
    (inner) =>
      rewriteRequest(inner, HISTORY, (_url, h) => void (h.has('api-key') || h.set('API-KEY', 'demo-key'))),
  ),
  'unknown-key-served': make('api-key-account', 'a price served to a key of no account', 'none', (inner) =>
    rewriteRequest(inner, PRICE, (_url, h) => void (h.has('api-key') && h.set('API-KEY', 'demo-key'))),
  ),
  'order-query-ignored': make(
    'order-parameters',
    "an order's query string ignored: only a form body is read",
    'order',
    (inner) => rewriteRequest(inner, ORDER, (url) => void (url.search = '')),
  ),
  'created-amount-string': make(
    'order-created-fields',
    "order creation's amount sent as a string",
    'order',
    onData(ORDER, (d) => void (typeof d.amount === 'number' && (d.amount = String(d.amount)))),
  ),
  'history-rentalcount-number': make(
    'history-fields',
    "the history's rentalCount sent as a number",
    'order',
    onData(
      HISTORY,
      (d) => void (typeof d.rentalCount === 'string' && (d.rentalCount = Number(d.rentalCount))),
    ),
  ),
  'resource-type-wrong': make(
    ['price-fields', 'resource-energy'],
    "a price of resourceType 'BANDWIDTH'",
    'none',
    onData(PRICE, (d) => void (d.resourceType = 'BANDWIDTH')),
  ),
  'charge-above-estimate': make(
    'charge-is-estimate',
    "an order to the account's own wallet charged 1 TRX above its estimate",
    'trx-order',
    onData(ORDER, (d) => {
      if (typeof d.amount === 'number' && d.currency === 'TRX')
        d.amount = Math.round(d.amount * 100 + 100) / 100;
    }),
  ),
};
