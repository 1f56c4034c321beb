import { describe, expect, it } from 'vitest';
import { createClient } from './create-client.ts';
import { EnergyRentalError } from './energy-rental-error.ts';
import { MAX_RESPONSE_BYTES } from './send-request.ts';
import {
  ADDRESS,
  API_KEY,
  BASE_URL,
  ORDER_ID,
  PRICE_QUOTE,
  envelope,
  errorEnvelope,
  hangingFetch,
  json,
  stubFetch,
  text,
} from './test-support.ts';

const PRICE = { rentalCount: 65000, period: '1h' } as const;
const ORDER = { pledgeAddress: ADDRESS, rentalCount: 65000, period: '1h' } as const;

/** The rejection of `promise`, asserted to be an EnergyRentalError. */
async function failure(promise: Promise<unknown>): Promise<EnergyRentalError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EnergyRentalError);
  return error as EnergyRentalError;
}

function client(fetch: (request: Request) => Promise<Response>, timeoutMs?: number) {
  return createClient({ baseUrl: BASE_URL, apiKey: API_KEY, fetch, timeoutMs });
}

describe('network errors', () => {
  it('reject with kind network when fetch rejects, naming the cause', async () => {
    const cause = new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:8787') });
    const error = await failure(client(stubFetch(cause).fetch).getPrice(PRICE));
    expect(error).toMatchObject({
      name: 'EnergyRentalError',
      operation: 'getPrice',
      kind: 'network',
      status: undefined,
    });
    expect(error.message).toBe(
      'getPrice failed: network error: fetch failed (connect ECONNREFUSED 127.0.0.1:8787)',
    );
    expect(error.cause).toBe(cause);
  });
});

describe('timeouts', () => {
  it('reject with kind network a body past the size the client reads, without reading it all', async () => {
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(1024 * 1024).fill(32));
      },
    });
    const client = createClient({
      baseUrl: BASE_URL,
      apiKey: API_KEY,
      fetch: async () => new Response(endless, { headers: { 'content-type': 'application/json' } }),
    });
    const error = await failure(client.getPrice(PRICE));
    expect(error.kind).toBe('network');
    expect(error.message).toBe(
      `getPrice failed: network error: the response body is larger than ${MAX_RESPONSE_BYTES} bytes`,
    );
    expect(pulled).toBeLessThan(MAX_RESPONSE_BYTES / (1024 * 1024) + 3);
  });

  it('reject with kind timeout when no response comes within timeoutMs', async () => {
    const error = await failure(client(hangingFetch, 20).getOrderHistory({ orderId: ORDER_ID }));
    expect(error).toMatchObject({ operation: 'getOrderHistory', kind: 'timeout', status: undefined });
    expect(error.message).toBe('getOrderHistory failed: no complete response within 20 ms (timeout)');
  });

  it('hold even when the fetch ignores the abort signal', async () => {
    const deaf = () => new Promise<Response>(() => {});
    const error = await failure(client(deaf, 20).getAccount());
    expect(error).toMatchObject({ operation: 'getAccount', kind: 'timeout' });
  });

  it('abort the request signal handed to fetch', async () => {
    let seen: Request | undefined;
    const recording = (request: Request) => {
      seen = request;
      return hangingFetch(request);
    };
    await failure(client(recording, 20).getAccount());
    expect(seen?.signal.aborted).toBe(true);
  });
});

describe('bodies that are not JSON', () => {
  it('reject a 2xx with kind invalid-body, quoting the first 100 characters', async () => {
    const page = `<html>${'x'.repeat(200)}</html>`;
    const error = await failure(client(stubFetch(text(page, 200)).fetch).createOrder(ORDER));
    expect(error).toMatchObject({
      operation: 'createOrder',
      kind: 'invalid-body',
      status: 200,
      code: undefined,
      body: page,
    });
    expect(error.message).toBe(`createOrder failed: the response body is not JSON: '${page.slice(0, 100)}'…`);
  });

  it('reject a 2xx JSON body that is not an envelope with kind invalid-body', async () => {
    const error = await failure(client(stubFetch(json(PRICE_QUOTE)).fetch).getPrice(PRICE));
    expect(error).toMatchObject({
      operation: 'getPrice',
      kind: 'invalid-body',
      status: 200,
      body: PRICE_QUOTE,
    });
    expect(error.message).toMatch(/^getPrice failed: the response body is not an envelope/);
  });

  it('reject a success envelope without data with kind invalid-body', async () => {
    const error = await failure(client(stubFetch(json(envelope(null))).fetch).getPrice(PRICE));
    expect(error).toMatchObject({ operation: 'getPrice', kind: 'invalid-body', code: 0 });
  });
});

describe('HTTP errors', () => {
  it('reject a 5xx with kind http, carrying the code and msg of its envelope', async () => {
    const body = errorEnvelope(50000, 'Unexpected simulator error.');
    const error = await failure(client(stubFetch(json(body, 503)).fetch).getPrice(PRICE));
    expect(error).toMatchObject({
      operation: 'getPrice',
      kind: 'http',
      status: 503,
      code: 50000,
      msg: 'Unexpected simulator error.',
      retryAfter: undefined,
      body,
    });
    expect(error.message).toBe('getPrice failed: HTTP 503 (code 50000): Unexpected simulator error.');
  });

  it('reject a 5xx whose body is not JSON with kind http and the raw text', async () => {
    const error = await failure(client(stubFetch(text('<h1>502 Bad Gateway</h1>', 502)).fetch).getAccount());
    expect(error).toMatchObject({
      operation: 'getAccount',
      kind: 'http',
      status: 502,
      code: undefined,
      msg: undefined,
    });
    expect(error.body).toBe('<h1>502 Bad Gateway</h1>');
    expect(error.message).toBe("getAccount failed: HTTP 502: '<h1>502 Bad Gateway</h1>'");
  });

  it('reject a 429 with kind http and the seconds of its Retry-After', async () => {
    const body = errorEnvelope(10003, 'Rate limit exceeded: retry after 7 seconds.');
    const error = await failure(
      client(stubFetch(json(body, 429, { 'Retry-After': '7' })).fetch).getPrice(PRICE),
    );
    expect(error).toMatchObject({
      operation: 'getPrice',
      kind: 'http',
      status: 429,
      code: 10003,
      msg: 'Rate limit exceeded: retry after 7 seconds.',
      retryAfter: 7,
    });
    expect(error.message).toBe(
      'getPrice failed: HTTP 429 (code 10003): Rate limit exceeded: retry after 7 seconds. (retry after 7 s)',
    );
  });

  it('reject a 4xx with kind http, carrying the code and msg of its envelope', async () => {
    const body = errorEnvelope(10002, "Unknown API key: no account has the key sent in 'API-KEY'.");
    const error = await failure(client(stubFetch(json(body, 401)).fetch).getAccount());
    expect(error).toMatchObject({
      operation: 'getAccount',
      kind: 'http',
      status: 401,
      code: 10002,
      msg: body.msg,
    });
  });
});

describe('API errors', () => {
  it('reject a 2xx envelope whose code is not 0 with kind api', async () => {
    const body = errorEnvelope(30001, 'Insufficient balance.');
    const error = await failure(client(stubFetch(json(body, 200)).fetch).createOrder(ORDER));
    expect(error).toMatchObject({
      operation: 'createOrder',
      kind: 'api',
      status: 200,
      code: 30001,
      msg: 'Insufficient balance.',
      body,
    });
    expect(error.message).toBe('createOrder failed: API error (code 30001): Insufficient balance.');
  });
});

describe('createOrder retries', () => {
  it.each([
    ['an HTTP 503', () => json(errorEnvelope(50000, 'Unexpected simulator error.'), 503)],
    ['a network error', () => new TypeError('fetch failed')],
    ['an HTTP 429', () => json(errorEnvelope(10003, 'Rate limit exceeded.'), 429, { 'Retry-After': '1' })],
  ])('never happen: after %s fetch was called exactly once', async (_label, reply) => {
    const stub = stubFetch(reply(), json(envelope({ id: ORDER_ID, amount: 0.8, currency: 'USDT' })));
    await failure(client(stub.fetch).createOrder(ORDER));
    expect(stub.requests).toHaveLength(1);
  });

  it('never happen after a timeout either', async () => {
    let calls = 0;
    const counting = (request: Request) => {
      calls += 1;
      return hangingFetch(request);
    };
    await failure(client(counting, 20).createOrder(ORDER));
    expect(calls).toBe(1);
  });
});
