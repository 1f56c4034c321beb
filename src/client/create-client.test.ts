import { describe, expect, it } from 'vitest';
import { createClient } from './create-client.ts';
import { EnergyRentalError } from './energy-rental-error.ts';
import type { Exchange } from './exchange.ts';
import {
  ACCOUNT,
  ADDRESS,
  API_KEY,
  BASE_URL,
  ORDER_CREATED,
  ORDER_ID,
  PRICE_QUOTE,
  envelope,
  errorEnvelope,
  json,
  order,
  stubFetch,
  text,
} from './test-support.ts';

describe('createClient', () => {
  it('sends the API key in the API-KEY header', async () => {
    const stub = stubFetch(json(envelope(ACCOUNT)));
    await createClient({ baseUrl: BASE_URL, apiKey: API_KEY, fetch: stub.fetch }).getAccount();
    expect(stub.requests[0]?.headers.get('API-KEY')).toBe(API_KEY);
  });

  it.each([
    ['undefined', undefined],
    ['empty', ''],
  ])('omits the API-KEY header when the key is %s', async (_label, apiKey) => {
    const stub = stubFetch(json(envelope(ACCOUNT)));
    await createClient({ baseUrl: BASE_URL, apiKey, fetch: stub.fetch }).getAccount();
    expect(stub.requests[0]?.headers.has('API-KEY')).toBe(false);
  });

  it('keeps the path of the base URL and tolerates a trailing slash', async () => {
    const stub = stubFetch(json(envelope(ACCOUNT)));
    await createClient({
      baseUrl: 'https://api.eopen.io/api/',
      apiKey: API_KEY,
      fetch: stub.fetch,
    }).getAccount();
    expect(stub.requests[0]?.url).toBe('https://api.eopen.io/api/v1/account');
  });

  it('calls fetch with a single Request, as a Hono app.request expects', async () => {
    const calls: unknown[][] = [];
    const client = createClient({
      baseUrl: 'http://127.0.0.1:8787',
      apiKey: API_KEY,
      fetch: (...args: [Request]) => {
        calls.push(args);
        return json(envelope(ACCOUNT));
      },
    });
    await client.getAccount();
    expect(calls).toHaveLength(1);
    expect(calls[0]).toHaveLength(1);
    expect(calls[0]?.[0]).toBeInstanceOf(Request);
  });

  it('rejects a base URL that is not a URL at once', () => {
    expect(() => createClient({ baseUrl: 'api.eopen.io', apiKey: API_KEY })).toThrow(TypeError);
  });
});

describe('createOrder', () => {
  const params = {
    pledgeAddress: ADDRESS,
    rentalCount: 65000,
    period: '1h',
    outOrderNo: 'shop-2025-0001',
  } as const;

  it('posts the parameters as a form body to /v1/tron/order', async () => {
    const stub = stubFetch(json(envelope(ORDER_CREATED)));
    await createClient({ baseUrl: BASE_URL, apiKey: API_KEY, fetch: stub.fetch }).createOrder(params);
    const request = stub.requests[0]!;
    expect(request.method).toBe('POST');
    expect(request.url).toBe(`${BASE_URL}/v1/tron/order`);
    expect(request.headers.get('content-type')).toBe('application/x-www-form-urlencoded');
    expect(await request.text()).toBe(
      `pledgeAddress=${ADDRESS}&rentalCount=65000&period=1h&outOrderNo=shop-2025-0001`,
    );
  });

  it('leaves out an outOrderNo that was not given', async () => {
    const stub = stubFetch(json(envelope(ORDER_CREATED)));
    const { outOrderNo: _omitted, ...required } = params;
    await createClient({ baseUrl: BASE_URL, apiKey: API_KEY, fetch: stub.fetch }).createOrder(required);
    expect(Object.fromEntries(new URLSearchParams(await stub.requests[0]!.text()))).toEqual({
      pledgeAddress: ADDRESS,
      rentalCount: '65000',
      period: '1h',
    });
  });

  it('returns the data of the envelope', async () => {
    const stub = stubFetch(
      json(
        envelope(ORDER_CREATED, 'Order generated successfully, please check order processing status later'),
      ),
    );
    const created = await createClient({ baseUrl: BASE_URL, apiKey: API_KEY, fetch: stub.fetch }).createOrder(
      params,
    );
    expect(created).toEqual({ id: ORDER_ID, amount: 0.8, currency: 'USDT' });
  });
});

describe('getPrice', () => {
  it('sends rentalCount and period in the query string of a GET', async () => {
    const stub = stubFetch(json(envelope(PRICE_QUOTE)));
    await createClient({ baseUrl: BASE_URL, apiKey: API_KEY, fetch: stub.fetch }).getPrice({
      rentalCount: 65000,
      period: '1h',
    });
    expect(stub.requests[0]?.method).toBe('GET');
    expect(stub.requests[0]?.url).toBe(`${BASE_URL}/v1/tron/price?rentalCount=65000&period=1h`);
  });

  it('returns the data of the envelope with its decimal strings untouched', async () => {
    const stub = stubFetch(json(envelope({ ...PRICE_QUOTE, trxPrice: '4.10' }, 'Get price successfully')));
    const quote = await createClient({ baseUrl: BASE_URL, apiKey: API_KEY, fetch: stub.fetch }).getPrice({
      rentalCount: 65000,
      period: '1h',
    });
    expect(quote).toEqual({ ...PRICE_QUOTE, trxPrice: '4.10' });
    expect(quote.sun).toBe('65');
  });
});

describe('getOrderHistory', () => {
  it('looks an order up by orderId in the query string', async () => {
    const stub = stubFetch(json(envelope(order('COMPLETED'))));
    await createClient({ baseUrl: BASE_URL, apiKey: API_KEY, fetch: stub.fetch }).getOrderHistory({
      orderId: ORDER_ID,
    });
    expect(stub.requests[0]?.url).toBe(`${BASE_URL}/v1/tron/history?orderId=${ORDER_ID}`);
  });

  it('looks an order up by outOrderNo, encoding it', async () => {
    const stub = stubFetch(json(envelope(order('COMPLETED'))));
    await createClient({ baseUrl: BASE_URL, apiKey: API_KEY, fetch: stub.fetch }).getOrderHistory({
      outOrderNo: 'shop 2025/0001',
    });
    expect(stub.requests[0]?.url).toBe(`${BASE_URL}/v1/tron/history?outOrderNo=shop+2025%2F0001`);
  });

  it('returns the order with its amount "0.10" as the identical string', async () => {
    const stub = stubFetch(json(envelope(order('COMPLETED', { amount: '0.10' }), 'Get order successfully')));
    const found = await createClient({
      baseUrl: BASE_URL,
      apiKey: API_KEY,
      fetch: stub.fetch,
    }).getOrderHistory({
      orderId: ORDER_ID,
    });
    expect(found).toEqual(order('COMPLETED', { amount: '0.10' }));
    expect(found.amount).toBe('0.10');
    expect(found.rentalCount).toBe('65000');
  });
});

describe('getAccount', () => {
  it('GETs /v1/account and returns the account with exact decimal balances', async () => {
    const rich = {
      ...ACCOUNT,
      balance: { available: { trx: '123456789.123456', usdt: '0.031748' }, frozen: { trx: '0' } },
    };
    const stub = stubFetch(json(envelope(rich, 'Get user information successfully')));
    const account = await createClient({
      baseUrl: BASE_URL,
      apiKey: API_KEY,
      fetch: stub.fetch,
    }).getAccount();
    expect(stub.requests[0]?.method).toBe('GET');
    expect(stub.requests[0]?.url).toBe(`${BASE_URL}/v1/account`);
    expect(account).toEqual(rich);
    expect(account.balance.available.trx).toBe('123456789.123456');
    expect(account.balance.available.usdt).toBe('0.031748');
  });

  it('accepts code 1 with a success message, as the provider has sent', async () => {
    const stub = stubFetch(json(envelope(ACCOUNT, 'Get user information successfully', 1)));
    const account = await createClient({
      baseUrl: BASE_URL,
      apiKey: API_KEY,
      fetch: stub.fetch,
    }).getAccount();
    expect(account).toEqual(ACCOUNT);
  });

  it('rejects code 1 with any other message as an API error', async () => {
    const stub = stubFetch(json(errorEnvelope(1, 'Account locked')));
    const error = await createClient({ baseUrl: BASE_URL, apiKey: API_KEY, fetch: stub.fetch })
      .getAccount()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EnergyRentalError);
    expect(error).toMatchObject({
      operation: 'getAccount',
      kind: 'api',
      status: 200,
      code: 1,
      msg: 'Account locked',
    });
  });

  it('does not extend the code-1 quirk to other operations', async () => {
    const stub = stubFetch(json(envelope(PRICE_QUOTE, 'Get price successfully', 1)));
    const error = await createClient({ baseUrl: BASE_URL, apiKey: API_KEY, fetch: stub.fetch })
      .getPrice({ rentalCount: 65000, period: '1h' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ operation: 'getPrice', kind: 'api', code: 1 });
  });
});

describe('onResponse', () => {
  function recordingClient(fetch: (request: Request) => Promise<Response>) {
    const exchanges: Exchange[] = [];
    const client = createClient({
      baseUrl: BASE_URL,
      apiKey: API_KEY,
      fetch,
      onResponse: (e) => exchanges.push(e),
    });
    return { client, exchanges };
  }

  it('receives one exchange per call, with the key redacted and the raw envelope as body', async () => {
    const raw = envelope(PRICE_QUOTE, 'Get price successfully');
    const { client, exchanges } = recordingClient(stubFetch(json(raw, 200, { 'x-request-id': 'r-1' })).fetch);
    await client.getPrice({ rentalCount: 65000, period: '1h' });
    expect(exchanges).toHaveLength(1);
    expect(exchanges[0]).toMatchObject({
      operationId: 'getPrice',
      method: 'GET',
      url: `${BASE_URL}/v1/tron/price?rentalCount=65000&period=1h`,
      requestHeaders: { 'API-KEY': '[redacted]', Accept: 'application/json' },
      status: 200,
      responseHeaders: { 'content-type': 'application/json', 'x-request-id': 'r-1' },
      body: raw,
    });
    expect(exchanges[0]?.durationMs).toBeGreaterThanOrEqual(0);
    expect(exchanges[0]).not.toHaveProperty('error');
    expect(JSON.stringify(exchanges)).not.toContain(API_KEY);
  });

  it('records the form body of createOrder', async () => {
    const { client, exchanges } = recordingClient(stubFetch(json(envelope(ORDER_CREATED))).fetch);
    await client.createOrder({ pledgeAddress: ADDRESS, rentalCount: 65000, period: '1h' });
    expect(exchanges[0]).toMatchObject({
      operationId: 'createOrder',
      method: 'POST',
      requestHeaders: { 'Content-Type': 'application/x-www-form-urlencoded' },
      requestBody: `pledgeAddress=${ADDRESS}&rentalCount=65000&period=1h`,
    });
  });

  it('receives a failed exchange with its error and the parsed error envelope', async () => {
    const raw = errorEnvelope(40401, `Order not found: no order of this account has orderId '${ORDER_ID}'.`);
    const { client, exchanges } = recordingClient(stubFetch(json(raw, 404)).fetch);
    const error = await client.getOrderHistory({ orderId: ORDER_ID }).catch((e: unknown) => e);
    expect(exchanges).toHaveLength(1);
    expect(exchanges[0]).toMatchObject({ operationId: 'getOrderHistory', status: 404, body: raw });
    expect(exchanges[0]?.error).toBe(error);
  });

  it('receives the raw text when the body is not JSON', async () => {
    const { client, exchanges } = recordingClient(stubFetch(text('<html>Bad Gateway</html>', 502)).fetch);
    await client.getAccount().catch(() => undefined);
    expect(exchanges[0]).toMatchObject({ status: 502, body: '<html>Bad Gateway</html>' });
  });

  it('receives a network failure with no status', async () => {
    const { client, exchanges } = recordingClient(stubFetch(new TypeError('fetch failed')).fetch);
    await client.getAccount().catch(() => undefined);
    expect(exchanges).toHaveLength(1);
    expect(exchanges[0]?.status).toBeUndefined();
    expect(exchanges[0]?.body).toBeUndefined();
    expect(exchanges[0]?.error).toMatchObject({ kind: 'network' });
  });
});
