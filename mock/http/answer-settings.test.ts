/**
 * The settings that describe how answers look, where upstream is silent: the envelope's
 * time unit, decimals, extra fields, each rejection's whole answer, the statuses shown,
 * which history identifier wins and how an order is paid when TRX is short. Each changes
 * the answer as described; left at its default, the answer is today's.
 */
import { describe, expect, it } from 'vitest';
import { createValidators, loadSpec } from '../../src/spec/loader.ts';
import { createEngine } from '../engine/index.ts';
import { createManualClock } from '../engine/manual-clock.ts';
import { toEngineScenario } from '../scenario/scenario-input.ts';
import { createSimulator, DEFAULT_SCENARIO, type Simulator } from '../simulator.ts';
import { startSimulator } from '../testing/start-simulator.ts';
import { ADDRESS } from '../test-support/fixtures.ts';

const KEY = { 'API-KEY': 'demo-key' };
const ORDER = `/v1/tron/order?pledgeAddress=${ADDRESS}&rentalCount=65000&period=1h`;
const control = createValidators(loadSpec('control'));

async function patch(sim: Simulator, body: unknown) {
  const res = await sim.app.request('/_sim/config', {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { msg?: string } & Record<string, unknown> };
}

async function call(sim: Simulator, path: string, init: RequestInit = { headers: KEY }) {
  const res = await sim.app.request(path, init);
  const text = await res.text();
  let body: Record<string, any> | undefined;
  try {
    body = JSON.parse(text) as Record<string, any>;
  } catch {
    body = undefined;
  }
  return { status: res.status, type: res.headers.get('content-type'), text, body };
}

const post = (sim: Simulator, path = ORDER) => call(sim, path, { method: 'POST', headers: KEY });

describe('the envelope time unit', () => {
  it('is Unix seconds by default and milliseconds when set so', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const now = sim.clock.now();
    expect((await call(sim, '/v1/account')).body!.time).toBe(String(Math.floor(now / 1000)));
    await patch(sim, { envelopeTimeUnit: 'ms' });
    expect((await call(sim, '/v1/account')).body!.time).toBe(String(now));
    // Rejections carry the same time.
    expect((await call(sim, '/v1/account', {})).body!.time).toBe(String(now));
  });
});

describe('decimals of decimal-string fields', () => {
  it('keeps the simulator formats by default: two decimals for prices and amounts, six for USDT, TRX trimmed', async () => {
    const sim = createSimulator({ clock: 'manual' });
    expect((await call(sim, '/v1/tron/price?rentalCount=65000&period=1h')).body!.data.trxPrice).toBe('4.23');
    const account = (await call(sim, '/v1/account')).body!.data;
    expect(account.balance).toEqual({ available: { trx: '1000', usdt: '100.000000' }, frozen: { trx: '0' } });
  });

  it('prints a fixed number of decimals, or trims them, per field', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await patch(sim, {
      decimals: {
        trxPrice: 6,
        amount: 'trimmed',
        'balance.available.trx': 6,
        'balance.available.usdt': 'trimmed',
        'balance.frozen.trx': 3,
      },
    });
    expect(reply.status).toBe(200);
    expect((await call(sim, '/v1/tron/price?rentalCount=65000&period=1h')).body!.data.trxPrice).toBe(
      '4.230000',
    );
    const created = (await post(sim)).body!.data;
    const history = (await call(sim, `/v1/tron/history?orderId=${created.id}`)).body!.data;
    expect(history.amount).toBe('4.23');
    const account = (await call(sim, '/v1/account')).body!.data;
    expect(account.balance).toEqual({
      available: { trx: '995.770000', usdt: '100' },
      frozen: { trx: '4.230' },
    });
  });

  it('refuses a decimals value that is neither a whole number from 0 to 18 nor trimmed, naming it', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await patch(sim, { decimals: { trxPrice: 'fixed' } });
    expect(reply.status).toBe(400);
    expect(reply.body.msg).toContain('decimals.trxPrice');
    const unknown = await patch(sim, { decimals: { sun: 2 } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.msg).toContain("'decimals.sun'");
  });
});

describe('extra fields', () => {
  it('adds a constant, a copied parameter, a copied order field, a time from createdAt and generated values', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await patch(sim, {
      createdAtUnit: 's',
      extraFields: {
        getPrice: [
          { path: '/data/fee', constant: '0' },
          { path: '/data/echo', copyParameter: 'period' },
          { path: '/traceId', generate: 'uuid' },
        ],
        getOrderHistory: [
          { path: '/data/expireAt', createdAtOffsetMs: 3_600_000, unit: 's' },
          { path: '/data/address', copyOrderField: 'pledgeAddress' },
          { path: '/data/payTx', generate: 'hex64' },
          { path: '/data/extra/seq', generate: 'integer-string', length: 8 },
        ],
        getAccount: [{ path: '/data/vip', constant: { level: 2 } }],
      },
    });
    expect(reply.status).toBe(200);
    const price = (await call(sim, '/v1/tron/price?rentalCount=65000&period=1h')).body!;
    expect(price.data).toMatchObject({ fee: '0', echo: '1h', sun: '65' });
    expect(price.traceId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    // A fresh value for each answer.
    expect((await call(sim, '/v1/tron/price?rentalCount=65000&period=1h')).body!.traceId).not.toBe(
      price.traceId,
    );
    const id = (await post(sim)).body!.data.id as string;
    const history = (await call(sim, `/v1/tron/history?orderId=${id}`)).body!.data;
    expect(history.expireAt).toBe(history.createdAt + 3600);
    expect(history.address).toBe(ADDRESS);
    expect(history.payTx).toMatch(/^[0-9a-f]{64}$/);
    expect(history.extra.seq).toMatch(/^[1-9]\d{7}$/);
    expect((await call(sim, '/v1/account')).body!.data.vip).toEqual({ level: 2 });
  });

  it('adds none by default, and leaves an answer without them byte for byte as before', async () => {
    const plain = createSimulator({ clock: 'manual' });
    const other = createSimulator({ clock: 'manual' });
    await patch(other, { extraFields: { getAccount: [{ path: '/data/vip', constant: 1 }] } });
    const price = await call(plain, '/v1/tron/price?rentalCount=65000&period=1h');
    expect(price.text).toBe((await call(other, '/v1/tron/price?rentalCount=65000&period=1h')).text);
    expect(Object.keys(price.body!.data)).toEqual([
      'sun',
      'trxPrice',
      'period',
      'resourceType',
      'rentalCount',
    ]);
  });

  it('refuses an extra field with two sources or an order field the Order schema lacks, naming it', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const two = await patch(sim, {
      extraFields: { getPrice: [{ path: '/data/x', constant: 1, generate: 'uuid' }] },
    });
    expect(two.status).toBe(400);
    expect(two.body.msg).toMatch(
      /'extraFields\.getPrice\.0' must have exactly one of its alternatives, not several/,
    );
    const none = await patch(sim, { extraFields: { getPrice: [{ path: '/data/x' }] } });
    expect(none.body.msg).toMatch(
      /'extraFields\.getPrice\.0' must have exactly one of constant, copyParameter, copyOrderField, createdAtOffsetMs, generate/,
    );
    const field = await patch(sim, {
      extraFields: { getOrderHistory: [{ path: '/data/x', copyOrderField: 'colour' }] },
    });
    expect(field.status).toBe(400);
    expect(field.body.msg).toContain('extraFields.getOrderHistory.0.copyOrderField must be one of orderId');
  });
});

describe("each rejection's whole answer", () => {
  it('answers a wrong method with status 405 and an empty body when the catalogue says so', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await patch(sim, { errors: { methodNotAllowed: { status: 405, body: '' } } });
    const reply = await call(sim, '/v1/account', { method: 'DELETE', headers: KEY });
    expect(reply).toMatchObject({ status: 405, text: '', type: null });
  });

  it('answers a non-JSON body of its content type, with the parameter and the rule filled in', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await patch(sim, {
      errors: {
        parameterInvalid: { status: 422, contentType: 'text/plain', body: 'bad {parameter}: {message}' },
        parameterMissing: {
          status: 400,
          contentType: 'application/json',
          body: '{"error":"{parameter} is required","detail":"{message}","code":{code}}',
        },
      },
    });
    const invalid = await call(sim, '/v1/tron/price?rentalCount=abc&period=1h');
    expect(invalid.status).toBe(422);
    expect(invalid.type).toBe('text/plain');
    expect(invalid.text).toMatch(/^bad rentalCount: Parameter 'rentalCount' must be/);
    const missing = await call(sim, '/v1/tron/price?rentalCount=65000');
    expect(missing.body).toEqual({
      error: 'period is required',
      detail: "Missing required parameter 'period'.",
      code: 20001,
    });
  });

  it("words a message template with each request's own parameter, not one recorded literal", async () => {
    const sim = createSimulator({ clock: 'manual' });
    await patch(sim, { errors: { parameterInvalid: { code: 1002, msg: 'Invalid parameter: {parameter}' } } });
    expect((await call(sim, '/v1/tron/price?rentalCount=abc&period=1h')).body!.msg).toBe(
      'Invalid parameter: rentalCount',
    );
    expect((await call(sim, '/v1/tron/price?rentalCount=65000&period=2h')).body!.msg).toBe(
      'Invalid parameter: period',
    );
  });

  it('answers the same over a socket: an empty 405 without a content type, extra fields in the text', async () => {
    const sim = await startSimulator({
      scenario: {
        ...DEFAULT_SCENARIO,
        settings: {
          errors: { methodNotAllowed: { status: 405, body: '' } },
          extraFields: { getAccount: [{ path: '/data/vip', constant: 2 }] },
        },
      },
    });
    try {
      const wrong = await fetch(`${sim.url}/v1/account`, { method: 'DELETE', headers: KEY });
      expect(wrong.status).toBe(405);
      expect(wrong.headers.get('content-type')).toBeNull();
      expect(await wrong.text()).toBe('');
      const account = await fetch(`${sim.url}/v1/account`, { headers: KEY });
      expect(((await account.json()) as { data: { vip: number } }).data.vip).toBe(2);
    } finally {
      await sim.stop();
    }
  });

  it('names the identifier an unknown order was looked up by', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await patch(sim, { errors: { orderNotFound: { msg: 'No order has this {parameter}' } } });
    expect((await call(sim, '/v1/tron/history?outOrderNo=nope')).body!.msg).toBe(
      'No order has this outOrderNo',
    );
    expect((await call(sim, '/v1/tron/history?orderId=OR20250312175009BJ1QRQH7')).body!.msg).toBe(
      'No order has this orderId',
    );
  });

  it('keeps the JSON envelope of its own when the catalogue gives no body', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await call(sim, '/v1/account', { method: 'DELETE', headers: KEY });
    expect(reply.status).toBe(405);
    expect(reply.body).toMatchObject({ code: 40500, data: null });
  });
});

describe('statuses the history shows', () => {
  async function lifecycle(settings: unknown): Promise<string[]> {
    const sim = createSimulator({
      clock: 'manual',
      scenario: {
        ...DEFAULT_SCENARIO,
        settings: { failureRate: 1, delaysMs: { processing: 1000, outcome: 2000, refund: 3000 } },
      },
    });
    await patch(sim, settings);
    const id = (await post(sim)).body!.data.id as string;
    const seen: string[] = [];
    for (let i = 0; i < 7; i++) {
      seen.push((await call(sim, `/v1/tron/history?orderId=${id}`)).body!.data.status as string);
      sim.advance(1000);
    }
    return [...new Set(seen)];
  }

  it('shows every status by default', async () => {
    expect(await lifecycle({})).toEqual(['PENDING', 'PROCESSING', 'FAILED', 'REFUNDED']);
  });

  it('skips PROCESSING when hidden, and never shows REFUNDED when hidden', async () => {
    expect(await lifecycle({ hiddenStatuses: ['PROCESSING'] })).toEqual(['PENDING', 'FAILED', 'REFUNDED']);
    expect(await lifecycle({ hiddenStatuses: ['REFUNDED'] })).toEqual(['PENDING', 'PROCESSING', 'FAILED']);
  });

  it('refuses a status that cannot be hidden, naming the setting', async () => {
    const reply = await patch(createSimulator({ clock: 'manual' }), { hiddenStatuses: ['PENDING'] });
    expect(reply.status).toBe(400);
    expect(reply.body.msg).toContain('hiddenStatuses');
  });
});

describe('which identifier wins in the history', () => {
  it('is orderId by default and outOrderNo when set so', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const first = (await post(sim, `${ORDER}&outOrderNo=first`)).body!.data.id as string;
    const second = (await post(sim, `${ORDER}&outOrderNo=second`)).body!.data.id as string;
    const both = `/v1/tron/history?orderId=${first}&outOrderNo=second`;
    expect((await call(sim, both)).body!.data.orderId).toBe(first);
    await patch(sim, { historyPrefers: 'outOrderNo' });
    expect((await call(sim, both)).body!.data.orderId).toBe(second);
  });
});

describe('payment when TRX is short', () => {
  const poor = { accounts: [{ apiKey: 'demo-key', balance: { trx: '1', usdt: '100' } }] };

  it('pays in USDT by default', async () => {
    const sim = createSimulator({ clock: 'manual', scenario: poor });
    expect((await post(sim)).body!.data.currency).toBe('USDT');
  });

  it('refuses the order as insufficientBalance when set to reject', async () => {
    const sim = createSimulator({
      clock: 'manual',
      scenario: { ...poor, settings: { whenTrxShort: 'reject' } },
    });
    const reply = await post(sim);
    expect(reply.status).toBe(402);
    expect(reply.body).toMatchObject({ code: 30001, msg: expect.stringContaining('paid in TRX only') });
  });
});

describe('the new settings as a whole', () => {
  const ALL = {
    envelopeTimeUnit: 'ms' as const,
    decimals: { trxPrice: 6, 'balance.available.usdt': 'trimmed' as const },
    extraFields: { getPrice: [{ path: '/data/fee', constant: '0' }] },
    hiddenStatuses: ['PROCESSING' as const],
    historyPrefers: 'outOrderNo' as const,
    whenTrxShort: 'reject' as const,
    errors: { methodNotAllowed: { status: 405, body: '' } },
  };

  it('are answered by GET /_sim/config with their defaults, valid against the Settings schema', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const config = await call(sim, '/_sim/config');
    expect(control.schema('Settings')(config.body)).toBe(true);
    expect(config.body).toMatchObject({
      envelopeTimeUnit: 's',
      decimals: {},
      extraFields: {},
      hiddenStatuses: [],
      historyPrefers: 'orderId',
      whenTrxShort: 'pay-usdt',
    });
    await patch(sim, ALL);
    expect((await call(sim, '/_sim/config')).body).toMatchObject(ALL);
  });

  it('round-trip through a state file', () => {
    const engine = createEngine({
      clock: createManualClock(),
      seed: 3,
      scenario: toEngineScenario({ settings: ALL }),
    });
    const saved = JSON.parse(JSON.stringify(engine.snapshot())) as ReturnType<typeof engine.snapshot>;
    expect(control.schema('StateFile')(saved)).toBe(true);
    const restored = createEngine({ clock: createManualClock(), seed: 3, restore: saved });
    expect(restored.settings()).toEqual(engine.settings());
    expect(restored.settings()).toMatchObject(ALL);
  });
});
