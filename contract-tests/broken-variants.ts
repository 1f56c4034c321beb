/**
 * Deliberately broken simulators. The suite's self-test runs the contract suite
 * against each one and asserts that it fails, naming the broken field or rule: a
 * suite that passes against all of these would be a suite that cannot fail.
 */
import type { Simulator } from '../mock/simulator.ts';

type Body = { code?: number; data?: Record<string, unknown> } & Record<string, unknown>;

/** Rewrites the JSON body of API responses of one path. */
function rewrite(
  sim: Simulator,
  pathSuffix: string,
  change: (body: Body, request: Request) => void,
): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const response = await sim.fetch(request.clone());
    if (!new URL(request.url).pathname.endsWith(pathSuffix)) return response;
    const body = (await response.json()) as Body;
    change(body, request);
    return new Response(JSON.stringify(body), { status: response.status, headers: response.headers });
  }) as typeof fetch;
}

const readsByOrder = new WeakMap<Simulator, Map<string, number>>();

/**
 * Not broken: a simulator that hides its control plane, so the suite treats it as the
 * real service. The self-test uses it to prove the spending guard.
 */
export const OPAQUE_VARIANT = {
  breaks: 'nothing; /_sim is hidden so the target looks like the real service',
  apply: (sim: Simulator): typeof fetch =>
    (async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      if (new URL(request.url).pathname.startsWith('/_sim'))
        return new Response('Not Found', { status: 404 });
      return sim.fetch(request);
    }) as typeof fetch,
};

export const BROKEN_VARIANTS: Record<string, { breaks: string; apply: (sim: Simulator) => typeof fetch }> = {
  'field-removed': {
    breaks: 'price omits the required field trxPrice',
    apply: (sim) => rewrite(sim, '/v1/tron/price', (b) => void (b.data && delete b.data.trxPrice)),
  },
  'type-changed': {
    breaks: 'history sends createdAt as an ISO string instead of a number',
    apply: (sim) =>
      rewrite(sim, '/v1/tron/history', (b) => {
        if (b.data && typeof b.data.createdAt === 'number')
          b.data.createdAt = new Date(b.data.createdAt).toISOString();
      }),
  },
  'number-as-string': {
    breaks: 'price sends rentalCount as a string',
    apply: (sim) =>
      rewrite(
        sim,
        '/v1/tron/price',
        (b) => void (b.data && (b.data.rentalCount = String(b.data.rentalCount))),
      ),
  },
  'status-skipped': {
    breaks:
      'history reports COMPLETED while the order is still PENDING, skipping PROCESSING and the delegation',
    apply: (sim) =>
      rewrite(
        sim,
        '/v1/tron/history',
        (b) => void (b.data?.status === 'PENDING' && (b.data.status = 'COMPLETED')),
      ),
  },
  'status-reversed': {
    breaks: 'history reports a COMPLETED order as PROCESSING on every second read',
    apply: (sim) =>
      rewrite(sim, '/v1/tron/history', (b) => {
        if (b.data?.status !== 'COMPLETED') return;
        const reads = readsByOrder.get(sim) ?? new Map<string, number>();
        readsByOrder.set(sim, reads);
        const id = String(b.data.orderId);
        const n = (reads.get(id) ?? 0) + 1;
        reads.set(id, n);
        if (n % 2 === 0) b.data.status = 'PROCESSING';
      }),
  },
  'wrong-rounding': {
    breaks: 'price computes trxPrice with binary floats and toFixed ("4.22" for 65000 at 65 sun)',
    apply: (sim) =>
      rewrite(sim, '/v1/tron/price', (b) => {
        if (b.data) b.data.trxPrice = ((Number(b.data.sun) * Number(b.data.rentalCount)) / 1e6).toFixed(2);
      }),
  },
  'missing-refund': {
    breaks: 'a REFUNDED order never gives the money back',
    apply: (sim) => {
      sim.engine.subscribe((event) => {
        if (event.type !== 'order' || event.order.status !== 'REFUNDED') return;
        const book = event.order.account.ledger[event.order.currency];
        book.available -= event.order.amount;
        book.spent += event.order.amount;
      });
      return sim.fetch;
    },
  },
  'wrong-echo': {
    breaks: 'order creation echoes a different outOrderNo',
    apply: (sim) =>
      rewrite(
        sim,
        '/v1/tron/order',
        (b) => void (b.data?.outOrderNo && (b.data.outOrderNo = `${String(b.data.outOrderNo)}-x`)),
      ),
  },
  'auth-dropped': {
    breaks: 'a request without an API key is served as the demo account',
    apply: (sim) =>
      (async (input: RequestInfo | URL, init?: RequestInit) => {
        const request = new Request(input, init);
        if (!request.headers.has('api-key')) {
          const headers = new Headers(request.headers);
          headers.set('API-KEY', 'demo-key');
          return sim.fetch(new Request(request, { headers }));
        }
        return sim.fetch(request);
      }) as typeof fetch,
  },
};

/**
 * Not for the self-test: a simulator whose responses were altered the way an upstream
 * release might alter them, one alteration per kind of drift. Recording it and
 * comparing with a recording of the plain simulator must report each one with its
 * operation and JSON path (drift/record-loop.test.ts).
 */
export const ALTERATIONS = [
  {
    operation: 'getPrice',
    path: '/data/rentalCount',
    kind: 'type-changed',
    does: 'sends rentalCount as a string',
  },
  { operation: 'getPrice', path: '/data/resourceType', kind: 'field-removed', does: 'drops resourceType' },
  {
    operation: 'getPrice',
    path: '/msg',
    kind: 'message-changed',
    does: "says 'Price estimated' instead of 'Get price successfully'",
  },
  { operation: 'getAccount', path: '/data/vipLevel', kind: 'field-added', does: 'adds vipLevel' },
  {
    operation: 'getAccount',
    path: '/data/balance/available/usdt',
    kind: 'format-changed',
    does: 'shows USDT with two decimals instead of six',
  },
  {
    operation: 'getOrderHistory',
    path: '/data/createdAt',
    kind: 'format-changed',
    does: 'sends createdAt in seconds instead of milliseconds',
  },
  {
    operation: 'getOrderHistory',
    path: '/data/orderId',
    kind: 'format-changed',
    does: "sends orderId as 'ord_' and lower case",
  },
  {
    operation: 'getOrderHistory',
    path: '/data/resourceType',
    kind: 'unknown-enum-value',
    does: "sends resourceType 'BANDWIDTH'",
  },
  {
    operation: 'getOrderHistory',
    path: '/code',
    kind: 'code-changed',
    does: 'answers an unknown order with code 40404 instead of 40401',
  },
] as const;

/** Rewrites the JSON body of every API response through `change`. */
function alter(sim: Simulator, change: (path: string, body: Body, status: number) => void): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const response = await sim.fetch(request.clone());
    const path = new URL(request.url).pathname;
    if (!path.startsWith('/v1/')) return response;
    const body = (await response.json()) as Body;
    change(path, body, response.status);
    return new Response(JSON.stringify(body), { status: response.status, headers: response.headers });
  }) as typeof fetch;
}

export const ALTERED_VARIANTS: Record<string, { breaks: string; apply: (sim: Simulator) => typeof fetch }> = {
  altered: {
    breaks: ALTERATIONS.map((a) => `${a.operation} ${a.does}`).join('; '),
    apply: (sim) =>
      alter(sim, (path, b, status) => {
        const data = b.data;
        if (path === '/v1/tron/price' && data) {
          data.rentalCount = String(data.rentalCount);
          delete data.resourceType;
          b.msg = 'Price estimated';
        }
        if (path === '/v1/account' && data) {
          data.vipLevel = 0;
          const available = (data.balance as { available?: { usdt?: string } } | undefined)?.available;
          if (available?.usdt) available.usdt = Number(available.usdt).toFixed(2);
        }
        if (path === '/v1/tron/history') {
          if (data && typeof data.createdAt === 'number') data.createdAt = Math.floor(data.createdAt / 1000);
          if (data && typeof data.orderId === 'string')
            data.orderId = `ord_${data.orderId.slice(2).toLowerCase()}`;
          if (data) data.resourceType = 'BANDWIDTH';
          if (status === 404 && b.code === 40401) b.code = 40404;
        }
      }),
  },
};
