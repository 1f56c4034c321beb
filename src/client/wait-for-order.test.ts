import { describe, expect, it } from 'vitest';
import type { OrderStatus } from '../models.ts';
import { createClient } from './create-client.ts';
import { EnergyRentalError } from './energy-rental-error.ts';
import {
  API_KEY,
  BASE_URL,
  ORDER_ID,
  envelope,
  errorEnvelope,
  json,
  order,
  stubFetch,
  text,
  virtualClock,
} from './test-support.ts';

/** A client whose history answers with `replies` in turn, on a virtual clock. */
function polling(...replies: Parameters<typeof stubFetch>) {
  const stub = stubFetch(...replies);
  const clock = virtualClock();
  const client = createClient({
    baseUrl: BASE_URL,
    apiKey: API_KEY,
    fetch: stub.fetch,
    now: clock.now,
    sleep: clock.sleep,
  });
  return { client, requests: stub.requests, sleeps: clock.sleeps, elapsed: clock.elapsed };
}

const history = (status: OrderStatus) => json(envelope(order(status), 'Get order successfully'));

describe('waitForOrder', () => {
  it.each<OrderStatus>(['COMPLETED', 'FAILED', 'REFUNDED'])(
    'stops at %s and returns that order',
    async (terminal) => {
      const { client, requests } = polling(
        history('PENDING'),
        history('PROCESSING'),
        history(terminal),
        history('REFUNDED'),
      );
      const found = await client.waitForOrder({ orderId: ORDER_ID });
      expect(found).toEqual(order(terminal));
      expect(requests).toHaveLength(3);
    },
  );

  it('does not wait for REFUNDED once FAILED is seen', async () => {
    const { client, requests } = polling(history('PROCESSING'), history('FAILED'), history('REFUNDED'));
    expect((await client.waitForOrder({ orderId: ORDER_ID })).status).toBe('FAILED');
    expect(requests).toHaveLength(2);
  });

  it('calls onStatus once per change, in order, starting with the first status seen', async () => {
    const { client } = polling(
      history('PENDING'),
      history('PENDING'),
      history('PROCESSING'),
      history('PROCESSING'),
      history('COMPLETED'),
    );
    const seen: [OrderStatus, string][] = [];
    await client.waitForOrder(
      { orderId: ORDER_ID },
      { onStatus: (status, o) => seen.push([status, o.orderId]) },
    );
    expect(seen).toEqual([
      ['PENDING', ORDER_ID],
      ['PROCESSING', ORDER_ID],
      ['COMPLETED', ORDER_ID],
    ]);
  });

  it('polls the history by orderId, every intervalMs', async () => {
    const { client, requests, sleeps } = polling(
      history('PENDING'),
      history('PENDING'),
      history('COMPLETED'),
    );
    await client.waitForOrder({ orderId: ORDER_ID }, { intervalMs: 500 });
    expect(requests.map((r) => r.url)).toEqual(
      Array(3).fill(`${BASE_URL}/v1/tron/history?orderId=${ORDER_ID}`),
    );
    expect(sleeps).toEqual([500, 500]);
  });

  it('looks the order up by outOrderNo when given one', async () => {
    const { client, requests } = polling(history('COMPLETED'));
    await client.waitForOrder({ outOrderNo: 'shop-2025-0001' });
    expect(requests[0]?.url).toBe(`${BASE_URL}/v1/tron/history?outOrderNo=shop-2025-0001`);
  });

  it('tolerates a transient 503 in the middle of polling', async () => {
    const { client, requests } = polling(
      history('PROCESSING'),
      json(errorEnvelope(50000, 'Unexpected simulator error.'), 503),
      history('COMPLETED'),
    );
    expect((await client.waitForOrder({ orderId: ORDER_ID })).status).toBe('COMPLETED');
    expect(requests).toHaveLength(3);
  });

  it.each([
    ['a network error', () => new TypeError('fetch failed')],
    ['an HTTP 429', () => json(errorEnvelope(10003, 'Rate limit exceeded.'), 429, { 'Retry-After': '1' })],
    ['a body that is not JSON', () => text('<html>maintenance</html>', 200)],
  ])('tolerates %s as transient too', async (_label, reply) => {
    const { client } = polling(reply(), history('COMPLETED'));
    expect((await client.waitForOrder({ orderId: ORDER_ID })).status).toBe('COMPLETED');
  });

  it.each([
    ['an HTTP 404', 404],
    ['a 200 with code ≠ 0', 200],
  ])('throws at once on %s from the API', async (_label, status) => {
    const body = errorEnvelope(40401, `Order not found: no order of this account has orderId '${ORDER_ID}'.`);
    const { client, requests, elapsed } = polling(json(body, status), history('COMPLETED'));
    const error = await client.waitForOrder({ orderId: ORDER_ID }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EnergyRentalError);
    expect(error).toMatchObject({ operation: 'getOrderHistory', code: 40401, status });
    expect(requests).toHaveLength(1);
    expect(elapsed()).toBe(0);
  });

  it('rethrows what onStatus throws', async () => {
    const { client } = polling(history('PENDING'));
    const boom = new Error('boom');
    const onStatus = () => {
      throw boom;
    };
    await expect(client.waitForOrder({ orderId: ORDER_ID }, { onStatus })).rejects.toBe(boom);
  });

  it('throws a timeout naming the order, the last status and the timeout once the deadline passes', async () => {
    const { client, requests, elapsed } = polling(history('PENDING'), history('PROCESSING'));
    const error = await client
      .waitForOrder({ orderId: ORDER_ID }, { timeoutMs: 5_000, intervalMs: 1_000 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EnergyRentalError);
    expect(error).toMatchObject({ operation: 'waitForOrder', kind: 'timeout' });
    expect((error as Error).message).toBe(
      `waitForOrder failed: order '${ORDER_ID}' did not reach COMPLETED, FAILED or REFUNDED within 5000 ms (timeout); last status seen: PROCESSING`,
    );
    expect(elapsed()).toBe(5_000);
    expect(requests).toHaveLength(6);
  });

  it('names the last transient error when no status was ever seen', async () => {
    const { client } = polling(json(errorEnvelope(50000, 'Unexpected simulator error.'), 503));
    const error = await client
      .waitForOrder({ outOrderNo: 'shop-2025-0001' }, { timeoutMs: 3_000 })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ operation: 'waitForOrder', kind: 'timeout' });
    expect((error as Error).message).toBe(
      "waitForOrder failed: order with outOrderNo 'shop-2025-0001' did not reach COMPLETED, FAILED or REFUNDED within 3000 ms (timeout); no status seen; last error: getOrderHistory failed: HTTP 503 (code 50000): Unexpected simulator error.",
    );
    expect((error as Error).cause).toMatchObject({ kind: 'http', status: 503 });
  });

  it('never sleeps past the deadline', async () => {
    const { client, sleeps } = polling(history('PENDING'));
    await client
      .waitForOrder({ orderId: ORDER_ID }, { timeoutMs: 2_500, intervalMs: 1_000 })
      .catch(() => undefined);
    expect(sleeps).toEqual([1_000, 1_000, 500]);
  });
});
