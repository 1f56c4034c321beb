/**
 * The one ExchangeFinished of every request, and the hub that tells it to every listener,
 * in order, as it finishes: a journal read after a response holds its exchange, whichever
 * way the request came.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { listen, rawRequest } from '../test-support/socket-test-support.ts';
import { createSimulator } from '../simulator.ts';
import { createExchangeEvents, type ExchangeFinished } from './exchange.ts';
import { ORDER_QUERY } from '../test-support/fixtures.ts';

const FORM = { 'API-KEY': 'demo-key', 'content-type': 'application/x-www-form-urlencoded' };
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

const exchangeAt = (path: string): ExchangeFinished => ({
  at: 0,
  method: 'GET',
  path,
  status: 200,
  durationMs: 0,
});

describe('the exchange hub', () => {
  it('hands each exchange to every listener as it finishes, in order', () => {
    const hub = createExchangeEvents();
    const heard: string[] = [];
    hub.subscribe((x) => heard.push(`journal ${x.path}`));
    hub.subscribe((x) => heard.push(`counts ${x.path}`));
    hub.finish(exchangeAt('/a'));
    expect(heard).toEqual(['journal /a', 'counts /a']);
    hub.finish(exchangeAt('/b'));
    expect(heard).toEqual(['journal /a', 'counts /a', 'journal /b', 'counts /b']);
  });

  it('reports what a listener throws and still serves the other listeners and exchanges', () => {
    const errors: unknown[] = [];
    const hub = createExchangeEvents({ onListenerError: (error) => errors.push(error) });
    const heard: string[] = [];
    hub.subscribe((x) => {
      if (x.path === '/a') throw new Error('listener broke');
    });
    hub.subscribe((x) => heard.push(x.path));
    hub.finish(exchangeAt('/a'));
    hub.finish(exchangeAt('/b'));
    expect(heard).toEqual(['/a', '/b']);
    expect(errors).toEqual([new Error('listener broke')]);
  });

  it("still serves the other listeners when the reporter of a listener's throw throws too", () => {
    const hub = createExchangeEvents({
      onListenerError: () => {
        throw new Error('reporter broke');
      },
    });
    const heard: string[] = [];
    hub.subscribe((x) => {
      if (x.path === '/a') throw new Error('listener broke');
      heard.push(x.path);
    });
    hub.subscribe((x) => heard.push(`second ${x.path}`));
    hub.finish(exchangeAt('/a'));
    hub.finish(exchangeAt('/b'));
    expect(heard).toEqual(['second /a', '/b', 'second /b']);
  });

  it('stops telling a listener once it unsubscribed', () => {
    const hub = createExchangeEvents();
    const heard: string[] = [];
    const stop = hub.subscribe((x) => heard.push(x.path));
    hub.finish(exchangeAt('/a'));
    stop();
    hub.finish(exchangeAt('/b'));
    expect(heard).toEqual(['/a']);
  });
});

describe("a simulator's journal and call counts", () => {
  it('hold each exchange as soon as it is finished, whenever they are read or cleared', () => {
    const sim = createSimulator({ clock: 'manual' });
    const served = (): ExchangeFinished => ({ ...exchangeAt('/v1/account'), operation: 'getAccount' });
    sim.exchanges.finish(served());
    expect(sim.journal.size).toBe(1);
    sim.exchanges.finish(served());
    expect(sim.journal.list().map((entry) => entry.path)).toEqual(['/v1/account', '/v1/account']);
    sim.exchanges.finish(served());
    expect(sim.calls.count({ operation: 'getAccount' }).count).toBe(3);
    sim.calls.clearCalls();
    expect(sim.calls.count({ operation: 'getAccount' }).count).toBe(0);
    sim.journal.clear();
    expect(sim.journal.size).toBe(0);
  });
});

describe('the exchange of a request through the app', () => {
  it('is journaled by the time a read is answered', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const res = await sim.app.request('/v1/tron/price?rentalCount=65000&period=1h', {
      headers: { 'API-KEY': 'demo-key' },
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/^\{"code":0,/);
    expect(sim.journal.list({ limit: 1 })[0]).toMatchObject({ operation: 'getPrice', status: 200 });
  });

  it('is journaled with its body by the time an order is answered', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const res = await sim.app.request('/v1/tron/order', { method: 'POST', headers: FORM, body: ORDER_QUERY });
    expect(res.status).toBe(200);
    const [entry] = sim.journal.list({ limit: 1 });
    expect(entry).toMatchObject({ operation: 'createOrder', status: 200, body: ORDER_QUERY });
  });

  it('is journaled with its body for an order whose body streams in, answered as it would have been', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const bytes = new TextEncoder().encode(ORDER_QUERY);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.subarray(0, 10));
        controller.enqueue(bytes.subarray(10));
        controller.close();
      },
    });
    const res = await sim.app.request('/v1/tron/order', {
      method: 'POST',
      headers: FORM,
      body,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(200);
    expect(sim.journal.list({ limit: 1 })[0]).toMatchObject({ operation: 'createOrder', body: ORDER_QUERY });
  });

  it('is journaled for a rejection, with what was rejected', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const res = await sim.app.request('/v1/tron/price?rentalCount=65000&period=7y', {
      headers: { 'API-KEY': 'demo-key' },
    });
    expect(res.status).toBe(400);
    expect(sim.journal.list({ limit: 1 })[0]).toMatchObject({
      status: 400,
      response: { code: 20002, msg: expect.stringContaining("'period'") },
    });
  });

  it('is journaled over a socket by the time its answer arrives', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const { port, close } = await listen(sim);
    closers.push(close);
    const reply = await rawRequest(port, 'GET', '/v1/account', { 'api-key': 'demo-key' });
    expect(reply.status).toBe(200);
    expect(sim.journal.list({ limit: 1 })[0]).toMatchObject({ operation: 'getAccount', status: 200 });
  });
});
