/**
 * The settings calibration needs: the error catalogue, the unit of createdAt,
 * explicit lifecycle delays and the answer to an unknown path, each settable in a
 * scenario and through PATCH /_sim/config.
 */
import { describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../simulator.ts';
import { parserError } from '../node-server.ts';
import { errorEnvelopeText, unexpectedError } from './error-catalogue.ts';
import { ADDRESS } from '../test-support/fixtures.ts';

const KEY = { 'API-KEY': 'demo-key' };

async function patch(sim: Simulator, body: unknown): Promise<Response> {
  return sim.app.request('/_sim/config', {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function answer(sim: Simulator, path: string, init: RequestInit = { headers: KEY }) {
  const res = await sim.app.request(path, init);
  const text = await res.text();
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    text,
    body: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : undefined,
  };
}

describe('the error catalogue', () => {
  it('answers each kind of rejection with the status, code and message it is given', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const res = await patch(sim, {
      errors: {
        apiKeyMissing: { status: 200, code: 1001, msg: 'API-KEY is required' },
        orderNotFound: { status: 200, code: 1004, msg: 'order not found: {message}' },
        belowMinimum: { status: 200, code: 1002 },
      },
    });
    expect(res.status).toBe(200);
    expect(await answer(sim, '/v1/account', {})).toMatchObject({
      status: 200,
      body: { code: 1001, msg: 'API-KEY is required', data: null },
    });
    const missing = await answer(sim, '/v1/tron/history?orderId=OR20250312175009BJ1QRQH7');
    expect(missing).toMatchObject({
      status: 200,
      body: {
        code: 1004,
        msg: expect.stringMatching(/^order not found: Order not found: no order of this account has orderId/),
      },
    });
    const low = await answer(sim, `/v1/tron/order?pledgeAddress=${ADDRESS}&rentalCount=1000&period=1h`, {
      method: 'POST',
      headers: KEY,
    });
    expect(low).toMatchObject({
      status: 200,
      body: { code: 1002, msg: expect.stringContaining('rentalCount') },
    });
    // A kind left out keeps the simulator's own answer.
    expect(await answer(sim, '/v1/account', { headers: { 'API-KEY': 'nope' } })).toMatchObject({
      status: 401,
      body: { code: 10002 },
    });
    // The journal keeps what was answered.
    expect(sim.journal.list().find((e) => e.path === '/v1/account')!.response).toMatchObject({ code: 1001 });
  });

  it('keeps errorStatus always-200 as a shorthand: status 200 where the catalogue gives none', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await patch(sim, { errorStatus: 'always-200', errors: { apiKeyUnknown: { code: 401 } } });
    expect(await answer(sim, '/v1/account', { headers: { 'API-KEY': 'nope' } })).toMatchObject({
      status: 200,
      body: { code: 401 },
    });
    expect(await answer(sim, '/v1/account', {})).toMatchObject({ status: 200, body: { code: 10001 } });
  });

  it('leaves the control plane and injected faults alone', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await patch(sim, { errorStatus: 'always-200', errors: { notFound: { status: 200, code: 7 } } });
    expect((await answer(sim, '/_sim/orders/nope', { headers: KEY })).status).toBe(404);
  });

  it('still answers 405 for a wrong method, and catalogues it', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await patch(sim, { errors: { methodNotAllowed: { code: 9405 } } });
    expect(await answer(sim, '/v1/account', { method: 'DELETE', headers: KEY })).toMatchObject({
      status: 405,
      body: { code: 9405 },
    });
  });

  it('refuses a catalogue entry outside the schema, naming it', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const res = await patch(sim, { errors: { apiKeyMissing: { status: 99 } } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { msg: string }).msg).toMatch(/errors\.apiKeyMissing\.status/);
  });
});

describe('settings of rejections calibration learns', () => {
  it('adds extra fields to a rejection, a generated one afresh on each answer', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const extraFields = [
      { path: '/success', constant: false },
      { path: '/traceId', generate: 'hex64' },
    ];
    expect(
      (await patch(sim, { errors: { apiKeyMissing: { status: 200, code: 40001, extraFields } } })).status,
    ).toBe(200);
    const [first, second] = [await answer(sim, '/v1/account', {}), await answer(sim, '/v1/account', {})];
    expect(first).toMatchObject({ status: 200, body: { code: 40001, data: null, success: false } });
    expect(first.body.traceId).toMatch(/^[0-9a-f]{64}$/);
    expect(second.body.traceId).not.toBe(first.body.traceId);
  });

  it('refuses a quantity above maxRentalCount on price and order, and below the minimum on price with priceMinimum', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const price = (n: number) => answer(sim, `/v1/tron/price?rentalCount=${n}&period=1h`);
    expect((await price(987_654_321)).body.code).toBe(0);
    expect((await price(1000)).body.code).toBe(0);
    await patch(sim, {
      maxRentalCount: 10_000_000,
      priceMinimum: true,
      errors: { aboveMaximum: { status: 200, code: 40005 } },
    });
    expect(await price(98_765_432)).toMatchObject({
      status: 200,
      body: { code: 40005, msg: "Parameter 'rentalCount' must be at most 10000000 (got 98765432)." },
    });
    expect((await price(10_000_000)).body.code).toBe(0);
    expect(await price(1000)).toMatchObject({
      status: 400,
      body: { code: 20002, msg: expect.stringContaining('at least 64000') },
    });
    const order = await answer(
      sim,
      `/v1/tron/order?pledgeAddress=${ADDRESS}&rentalCount=10000001&period=1h`,
      {
        method: 'POST',
        headers: KEY,
      },
    );
    expect(order.body).toMatchObject({ code: 40005 });
  });

  it('sends the envelope time as seconds with three decimals when set to s.sss', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await patch(sim, { envelopeTimeUnit: 's.sss' });
    expect((await answer(sim, '/v1/account')).body.time).toMatch(/^\d{10}\.\d{3}$/);
  });
});

describe('the answer to an unknown path', () => {
  it('is the JSON envelope by default, and a plain HTML 404 when set so', async () => {
    const sim = createSimulator({ clock: 'manual' });
    expect(await answer(sim, '/v1/nothing')).toMatchObject({ status: 404, body: { code: 40400 } });
    await patch(sim, { unknownPath: 'html' });
    const html = await answer(sim, '/v1/nothing');
    expect(html.status).toBe(404);
    expect(html.type).toContain('text/html');
    expect(html.text).toContain('404 Not Found');
  });
});

describe('createdAtUnit', () => {
  it('gives the history createdAt in seconds when set so, and the control plane keeps milliseconds', async () => {
    const sim = createSimulator({
      clock: 'manual',
      scenario: {
        accounts: [{ apiKey: 'demo-key', balance: { trx: '1000' } }],
        settings: { createdAtUnit: 's' },
      },
    });
    const created = (
      await answer(
        sim,
        `/v1/tron/order?pledgeAddress=${ADDRESS}&rentalCount=65000&period=1h&outOrderNo=u-1`,
        { method: 'POST', headers: KEY },
      )
    ).body.data;
    const record = (await answer(sim, '/v1/tron/history?outOrderNo=u-1')).body.data;
    const order = sim.engine.authenticate('demo-key')!.orders.at(0)!;
    expect(created.id).toBe(order.id);
    expect(record.createdAt).toBe(Math.floor(order.createdAt / 1000));
    expect((await answer(sim, `/_sim/orders/${order.id}`)).body.createdAt).toBe(order.createdAt);
  });
});

describe('delaysMs', () => {
  it('plans each step with the explicit delay instead of the profile', async () => {
    const sim = createSimulator({ clock: 'manual', timing: 'realistic' });
    // A new address adds the activation delay to the outcome; none here.
    await patch(sim, {
      activationDelayMs: 0,
      delaysMs: { processing: 700, outcome: 2000, refund: { min: 300, max: 300 } },
    });
    const { order } = sim.engine.createOrder(sim.engine.authenticate('demo-key')!, {
      pledgeAddress: ADDRESS,
      rentalCount: 65_000,
      period: '1h',
    });
    expect({
      processing: order.processingAfter,
      outcome: order.outcomeAfter,
      refund: order.refundAfter - order.outcomeAfter,
    }).toEqual({ processing: 700, outcome: 2000, refund: 300 });
  });

  it('refuses a range whose min passes its max', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const res = await patch(sim, { delaysMs: { outcome: { min: 5, max: 1 } } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { msg: string }).msg).toContain('delaysMs.outcome');
  });
});

describe('the wording of the rejections made outside the catalogue', () => {
  it('words an unexpected error as a 500 with code 50000, one full stop, whatever was thrown', () => {
    expect(unexpectedError(new Error('unknown outcome.'))).toMatchObject({
      status: 500,
      code: 50000,
      message: 'Unexpected simulator error: unknown outcome. This is a simulator bug; please report it.',
    });
    expect(unexpectedError('a string').message).toContain('a string');
    const hostile = {
      toString: () => {
        throw new Error('no');
      },
    };
    expect(unexpectedError(hostile).message).toContain('unprintable error');
  });

  it('still writes the envelope when the clock cannot be read', () => {
    const sim = createSimulator({ clock: 'manual' });
    sim.engine.clock.now = () => {
      throw new RangeError('Invalid time value');
    };
    const body = JSON.parse(errorEnvelopeText(sim.engine, unexpectedError(new Error('x'))));
    expect(body).toMatchObject({ code: 50000, time: expect.stringMatching(/^\d+$/), data: null });
  });

  it("maps Node's parser errors to the envelope's statuses", () => {
    expect(parserError(Object.assign(new Error(), { code: 'HPE_HEADER_OVERFLOW' }))).toMatchObject({
      status: 431,
      code: 43100,
    });
    expect(parserError(Object.assign(new Error(), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }))).toMatchObject({
      status: 408,
      code: 40800,
    });
    expect(parserError(Object.assign(new Error(), { code: 'HPE_UNEXPECTED_CONTENT_LENGTH' }))).toMatchObject({
      status: 400,
      code: 20003,
    });
    expect(parserError(Object.assign(new Error(), { code: 'HPE_INVALID_METHOD' }))).toMatchObject({
      status: 400,
      code: 20003,
    });
  });
});
