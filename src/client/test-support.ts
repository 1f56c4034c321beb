/** Stub fetch, samples (spec/openapi.yaml's examples) and a virtual clock for the client's tests. */
import type { Account, Order, OrderCreated, OrderStatus, PriceQuote } from '../models.ts';

export const BASE_URL = 'https://api.eopen.io/api';
export const API_KEY = 'test-key-123';
export const ADDRESS = 'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3';
export const ORDER_ID = 'OR20250312175009BJ1QRQH7';
export const TX_ID = '5c3b1e0a9f7d4c2b8a6e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a';

export const ORDER_CREATED: OrderCreated = { id: ORDER_ID, amount: 0.8, currency: 'USDT' };

export const PRICE_QUOTE: PriceQuote = {
  sun: '65',
  trxPrice: '4.23',
  period: '1h',
  resourceType: 'ENERGY',
  rentalCount: 65000,
};

export const ACCOUNT: Account = {
  name: 'User-TT3D8B',
  walletAddress: ADDRESS,
  balance: { available: { trx: '0', usdt: '0.031748' }, frozen: { trx: '0' } },
  referralCount: 0,
};

export function order(status: OrderStatus, overrides: Partial<Order> = {}): Order {
  return {
    orderId: ORDER_ID,
    amount: '0.80',
    currency: 'USDT',
    status,
    txId: status === 'COMPLETED' ? TX_ID : '',
    pledgeAddress: ADDRESS,
    createdAt: 1741801809000,
    rentalCount: '65000',
    period: '1h',
    resourceType: 'ENERGY',
    ...overrides,
  };
}

/** A success envelope around `data`. */
export function envelope(data: unknown, msg = 'ok', code = 0) {
  return { code, msg, time: '1741801809', data };
}

/** An error envelope as the simulator sends it. */
export function errorEnvelope(code: number, msg: string) {
  return { code, msg, time: '1741801809', data: null };
}

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

export function text(body: string, status = 200, contentType = 'text/html'): Response {
  return new Response(body, { status, headers: { 'content-type': contentType } });
}

type Reply = Response | Error | (() => Response | Promise<Response>);

/** A fetch answering `replies` in turn (the last repeats; an Error is thrown), keeping each request. */
export function stubFetch(...replies: Reply[]) {
  const requests: Request[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    requests.push(request);
    const reply = replies[Math.min(requests.length, replies.length) - 1];
    if (reply === undefined) throw new Error('stubFetch: no reply given');
    if (reply instanceof Error) throw reply;
    // A Response's body can be read once; clone so that a repeated reply still works.
    return reply instanceof Response ? reply.clone() : reply();
  };
  return { fetch, requests };
}

/** A fetch that never answers but rejects when the request's signal aborts, as real fetch does. */
export function hangingFetch(request: Request): Promise<Response> {
  return new Promise((_resolve, reject) => {
    request.signal.addEventListener('abort', () => reject(request.signal.reason), { once: true });
  });
}

/** A clock that moves only when slept on. */
export function virtualClock(start = 1_741_801_809_000) {
  let time = start;
  const sleeps: number[] = [];
  return {
    now: () => time,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      time += ms;
    },
    sleeps,
    elapsed: () => time - start,
  };
}
