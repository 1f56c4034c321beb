import { setupServer } from 'msw/node';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/index.ts';
import { createSimulator } from '../simulator.ts';
import { REAL_BASE_URL, simulatorHandlers } from './simulator-handlers.ts';

const PLEDGE = 'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3';
let stop: (() => void) | undefined;
afterEach(() => stop?.());

function serve(...handlers: Parameters<typeof setupServer>): void {
  const server = setupServer(...handlers);
  server.listen({ onUnhandledRequest: 'error' });
  stop = () => server.close();
}

describe('simulatorHandlers (energy-rental-kit/msw)', () => {
  it('answers code that calls the real base URL from a fresh simulator', async () => {
    serve(...simulatorHandlers());
    const client = createClient({ baseUrl: REAL_BASE_URL, apiKey: 'demo-key' });
    expect((await client.getPrice({ rentalCount: 65000, period: '1h' })).trxPrice).toBe('4.23');
    expect((await client.getAccount()).balance.available.trx).toBe('1000');
  });

  it('creates orders from a form body and lets the test drive the clock through /_sim', async () => {
    const sim = createSimulator({ clock: 'manual' });
    serve(...simulatorHandlers(sim));
    const client = createClient({ baseUrl: REAL_BASE_URL, apiKey: 'demo-key' });
    const { id } = await client.createOrder({
      pledgeAddress: PLEDGE,
      rentalCount: 65000,
      period: '1h',
      outOrderNo: 'msw-1',
    });
    const advanced = await fetch(`${REAL_BASE_URL}/_sim/clock/advance`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"ms":10000}',
    });
    expect(advanced.status).toBe(200);
    expect((await client.getOrderHistory({ orderId: id })).status).toBe('COMPLETED');
    expect(sim.engine.checkInvariants()).toEqual([]);
  });

  it('serves another base URL, and leaves requests outside it alone', async () => {
    const sim = createSimulator({ clock: 'manual' });
    serve(...simulatorHandlers(sim, { baseUrl: 'http://staging.example/energy/' }));
    const price = await fetch('http://staging.example/energy/v1/tron/price?rentalCount=65000&period=1h', {
      headers: { 'API-KEY': 'demo-key' },
    });
    expect(((await price.json()) as { data: { trxPrice: string } }).data.trxPrice).toBe('4.23');
    await expect(fetch(`${REAL_BASE_URL}/v1/account`)).rejects.toThrow();
  });

  it("rejects the caller's fetch like a network error when a drop fault is injected", async () => {
    serve(...simulatorHandlers());
    const fault = await fetch(`${REAL_BASE_URL}/_sim/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"operation":"getPrice","response":"drop","times":1}',
    });
    expect(fault.status).toBe(201);
    await expect(
      fetch(`${REAL_BASE_URL}/v1/tron/price?rentalCount=65000&period=1h`, {
        headers: { 'API-KEY': 'demo-key' },
      }),
    ).rejects.toThrow(TypeError);
  });

  it('names the option and the rule when the base URL is not absolute', () => {
    expect(() => simulatorHandlers(createSimulator(), { baseUrl: '/api' })).toThrow(
      /baseUrl must be an absolute URL/,
    );
  });
});
