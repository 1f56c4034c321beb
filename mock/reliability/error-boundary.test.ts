/**
 * No request can stop the process: whatever throws while a request is handled, in the
 * request core, in its body events, in an observer of its exchange or in the Hono
 * listener, the request gets its answer (the 500 envelope with code 50000 when the answer
 * itself failed), the error is reported once, and the next request is served.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../simulator.ts';
import { exchange, listen, request } from '../test-support/socket-test-support.ts';
import { ADDRESS, ORDER_QUERY } from '../test-support/fixtures.ts';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

async function served(prepare?: (sim: Simulator) => void) {
  const reported: unknown[] = [];
  const sim = createSimulator({
    clock: 'manual',
    timing: 'instant',
    onUnexpectedError: (error) => reported.push(error),
  });
  sim.engine.createOrder(sim.engine.authenticate('demo-key')!, {
    pledgeAddress: ADDRESS,
    rentalCount: 65_000,
    period: '1h',
    outOrderNo: 'known',
  });
  const { port, close } = await listen(sim, { allowedHosts: 'all' });
  closers.push(close);
  prepare?.(sim);
  return { sim, port, reported };
}

const HEAD = 'Host: 127.0.0.1\r\nAPI-KEY: demo-key\r\nConnection: close';
const priceRequest = request(`GET /v1/tron/price?rentalCount=65000&period=1h HTTP/1.1\r\n${HEAD}`);
const orderRequest = (body = ORDER_QUERY) =>
  request(`POST /v1/tron/order HTTP/1.1\r\n${HEAD}\r\nContent-Type: application/x-www-form-urlencoded`, body);

async function expectUnexpectedError(port: number, raw: string, reported: unknown[]) {
  const { responses, error } = await exchange(port, raw);
  expect(error).toBeUndefined();
  expect(responses).toHaveLength(1);
  expect(responses[0]).toMatchObject({
    status: 500,
    json: { code: 50000, msg: expect.stringContaining('boom'), data: null },
  });
  expect(reported).toHaveLength(1);
  expect(String(reported[0])).toContain('boom');
}

async function expectStillServing(port: number) {
  const { responses } = await exchange(port, request(`GET /v1/account HTTP/1.1\r\n${HEAD}`));
  expect(responses[0]).toMatchObject({ status: 200, json: { code: 0 } });
}

describe('the error boundary of the Node server', () => {
  it('answers an API read that throws with 500/50000, reports it once, and serves the next request', async () => {
    const { sim, port, reported } = await served((s) => {
      s.engine.quote = () => {
        throw new RangeError('boom in quote');
      };
    });
    await expectUnexpectedError(port, priceRequest, reported);
    expect(sim.journal.list().at(-1)).toMatchObject({ method: 'GET', path: '/v1/tron/price', status: 500 });
    await expectStillServing(port);
  });

  it('answers a history read whose record cannot be built (a RangeError) with 500/50000 and keeps serving', async () => {
    const { sim, port, reported } = await served();
    const order = sim.engine.authenticate('demo-key')!.orders.at(0)!;
    Object.defineProperty(order, 'amount', {
      get: () => {
        throw new RangeError('boom: amount 1234567 out of range');
      },
    });
    await expectUnexpectedError(
      port,
      request(`GET /v1/tron/history?outOrderNo=known HTTP/1.1\r\n${HEAD}`),
      reported,
    );
    await expectStillServing(port);
  });

  it('answers an order whose creation throws, from the body events, with 500/50000 and keeps serving', async () => {
    const { port, reported } = await served((s) => {
      s.engine.createOrder = () => {
        throw new TypeError('boom: outcome EXPLODE');
      };
    });
    await expectUnexpectedError(port, orderRequest(), reported);
    await expectStillServing(port);
  });

  it('still answers an API request whose exchange observer throws, reports it once, and keeps serving', async () => {
    const { sim, port, reported } = await served();
    let failures = 1;
    sim.exchanges.subscribe(() => {
      if (failures-- > 0) throw new Error('boom in an observer');
    });
    const { responses } = await exchange(port, priceRequest);
    expect(responses[0]).toMatchObject({ status: 200, json: { code: 0 } });
    expect(reported).toHaveLength(1);
    expect(String(reported[0])).toContain('boom in an observer');
    await expectStillServing(port);
  });

  it('answers a failure of the Hono listener itself with 500/50000 and keeps serving', async () => {
    const reported: unknown[] = [];
    const sim = createSimulator({ clock: 'manual', onUnexpectedError: (error) => reported.push(error) });
    const fetch = sim.app.fetch;
    let failures = 1;
    sim.app.fetch = (req, env) =>
      failures-- > 0 ? Promise.reject(new Error('boom in the listener')) : fetch(req, env);
    const { port, close } = await listen(sim, { allowedHosts: 'all' });
    closers.push(close);
    await expectUnexpectedError(port, request(`GET /_sim/health HTTP/1.1\r\n${HEAD}`), reported);
    const { responses } = await exchange(port, request(`GET /_sim/health HTTP/1.1\r\n${HEAD}`));
    expect(responses[0]).toMatchObject({ status: 200, json: { ok: true } });
  });

  it('answers an error thrown inside a Hono route with 500/50000 over the socket and keeps serving', async () => {
    const { port, reported } = await served((s) => {
      s.engine.accounts = () => {
        throw new Error('boom in a control route');
      };
    });
    await expectUnexpectedError(port, request(`GET /_sim/accounts HTTP/1.1\r\n${HEAD}`), reported);
    await expectStillServing(port);
  });
});
