/** The targets CONTRACT_VARIANT selects, each a fetch made over a fresh simulator. */
import type { Simulator } from '../mock/simulator.ts';
import { BREAKS, rewrite } from './stand-ins/breaks.ts';
import { FAMILY_VARIANTS } from './stand-ins/family.ts';

/** A target made over a fresh simulator (a stand-in of its own leaves it unused). */
export type Variant = (sim: Simulator) => typeof fetch;

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
];

/** The simulators broken on purpose, each of which the suite must fail. */
export const BROKEN_VARIANTS: Record<string, Variant> = {
  ...Object.fromEntries(
    ON_THE_SIMULATOR.map((name) => [name, (sim: Simulator) => BREAKS[name]!.apply(sim.fetch)]),
  ),
  // A REFUNDED order never gives the money back.
  'missing-refund': (sim) => {
    sim.engine.subscribe((event) => {
      if (event.type !== 'order' || event.order.status !== 'REFUNDED') return;
      const book = event.order.account.ledger[event.order.currency];
      book.available -= event.order.amount;
      book.spent += event.order.amount;
    });
    return sim.fetch;
  },
  // Orders complete, yet their energy never shows on chain (a case's own rules still win).
  'no-delegation': (sim) => async (input, init) => {
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
  },
};

/** For the drift tests: an alteration an upstream release might make, per kind of drift. */
export const ALTERATIONS = [
  { operation: 'getPrice', path: '/data/rentalCount', kind: 'type-changed' },
  { operation: 'getPrice', path: '/data/resourceType', kind: 'field-removed' },
  { operation: 'getPrice', path: '/msg', kind: 'message-changed' },
  { operation: 'getAccount', path: '/data/vipLevel', kind: 'field-added' },
  { operation: 'getAccount', path: '/data/balance/available/usdt', kind: 'format-changed' },
  { operation: 'getOrderHistory', path: '/data/createdAt', kind: 'format-changed' },
  { operation: 'getOrderHistory', path: '/data/orderId', kind: 'format-changed' },
  { operation: 'getOrderHistory', path: '/data/resourceType', kind: 'unknown-enum-value' },
  { operation: 'getOrderHistory', path: '/code', kind: 'code-changed' },
] as const;

/** The simulator with every alteration of ALTERATIONS, in their order. */
const altered: Variant = (sim) =>
  rewrite(sim.fetch, '/v1/', (b, { path, status }) => {
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
  });

/** Every variant by name; `opaque` is the plain simulator with its control plane hidden. */
export const VARIANTS: Record<string, Variant> = {
  opaque: (sim) => sim.fetch,
  ...BROKEN_VARIANTS,
  altered,
  ...FAMILY_VARIANTS,
};
