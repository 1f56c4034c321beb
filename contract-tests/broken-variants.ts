/**
 * Deliberately broken simulators. The suite's self-test runs the contract suite
 * against each one and asserts that it fails, naming the broken field or rule: a
 * suite that passes against all of these would be a suite that cannot fail.
 */
import type { Simulator } from '../mock/simulator.ts';
import { BREAKS, rewrite } from './stand-ins/breaks.ts';

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

/** The planted breaks (stand-ins/breaks.ts) the self-test layers over the simulator itself. */
const ON_THE_SIMULATOR = [
  'field-removed',
  'type-changed',
  'number-as-string',
  'status-skipped',
  'status-reversed',
  'wrong-rounding',
  'wrong-echo',
  'auth-dropped',
] as const;

export const BROKEN_VARIANTS: Record<string, { breaks: string; apply: (sim: Simulator) => typeof fetch }> = {
  ...Object.fromEntries(
    ON_THE_SIMULATOR.map((name) => [
      name,
      {
        breaks: BREAKS[name]!.breaks,
        apply: (sim: Simulator) => BREAKS[name]!.apply(sim.fetch as typeof fetch),
      },
    ]),
  ),
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
  'no-delegation': {
    breaks:
      'orders complete, yet their energy never shows on chain (a rule of delegationMs 0 for each order)',
    // Added as each order arrives, after any rule a case set for it, so those still win.
    apply: (sim) =>
      (async (input: RequestInfo | URL, init?: RequestInit) => {
        const request = new Request(input, init);
        const url = new URL(request.url);
        if (request.method === 'POST' && url.pathname.endsWith('/order')) {
          const form = new URLSearchParams(await request.clone().text());
          const get = (name: string) => form.get(name) ?? url.searchParams.get(name) ?? undefined;
          const outOrderNo = get('outOrderNo');
          sim.engine.rules.add({
            match: outOrderNo ? { outOrderNo } : { pledgeAddress: get('pledgeAddress') ?? '' },
            outcome: 'COMPLETED',
            delegationMs: 0,
            times: 1,
          });
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

export const ALTERED_VARIANTS: Record<string, { breaks: string; apply: (sim: Simulator) => typeof fetch }> = {
  altered: {
    breaks: ALTERATIONS.map((a) => `${a.operation} ${a.does}`).join('; '),
    apply: (sim) =>
      rewrite(sim.fetch as typeof fetch, '/v1/', (b, { path, status }) => {
        const data = b.data as Record<string, unknown> | undefined;
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
