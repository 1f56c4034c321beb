/**
 * Calibration of how answers look, from small recordings built here: each setting learnt
 * with its evidence, and what the recording shows but the simulator cannot answer alike
 * reported as such.
 */
import { describe, expect, it } from 'vitest';
import type { Interaction } from '../recording/recording.ts';
import {
  baseline,
  bodiesOf,
  dataOf,
  exchange,
  recordingOf,
  VALUES_A,
  type BaselineValues,
} from '../recording/test-support.ts';
import { calibrate } from './calibrate.ts';
import { ADDRESS } from '../mock/test-support/fixtures.ts';

const withPolls = (polls: BaselineValues['polls']): BaselineValues => ({ ...VALUES_A, polls });
const row = (table: ReturnType<typeof calibrate>['table'], setting: string) =>
  table.find((t) => t.setting === setting);

/** A price answer for a period and count, with extra data fields. */
function price(period: string, rentalCount: string, trxPrice: string, extra: Record<string, unknown> = {}) {
  return exchange(
    'getPrice',
    {
      code: 0,
      msg: 'Get price successfully',
      time: '1741801809',
      data: {
        sun: '60',
        trxPrice,
        period,
        resourceType: 'ENERGY',
        rentalCount: Number(rentalCount),
        ...extra,
      },
    },
    { path: '/v1/tron/price', query: { period, rentalCount } },
  );
}

describe('calibrating the envelope time unit', () => {
  it('learns ms from a time in milliseconds, with the value as evidence', () => {
    const recording = baseline(VALUES_A, (interactions) => {
      for (const i of interactions) {
        const body = i.response!.body as { time: string };
        body.time = `${body.time}123`;
      }
    });
    const { settings, table } = calibrate(recording);
    expect(settings.envelopeTimeUnit).toBe('ms');
    expect(row(table, 'envelopeTimeUnit')?.evidence?.observed).toBe('time "1741801809123"');
  });

  it('learns s.sss from a time in seconds with decimals', () => {
    const recording = baseline(VALUES_A, (interactions) => {
      for (const i of interactions) (i.response!.body as { time: string }).time += '.636';
    });
    expect(calibrate(recording).settings.envelopeTimeUnit).toBe('s.sss');
  });

  it('learns s from the baseline, as the simulator answers by default', () => {
    expect(calibrate(baseline()).settings.envelopeTimeUnit).toBe('s');
  });
});

describe('calibrating decimals', () => {
  it('learns a fixed number of decimals from values that keep a trailing zero', () => {
    const recording = baseline({ ...VALUES_A, trx: '795.380000' });
    const { settings, table } = calibrate(recording);
    expect(settings.decimals).toMatchObject({ 'balance.available.trx': 6, 'balance.available.usdt': 6 });
    expect(row(table, 'decimals.balance.available.trx')?.evidence?.observed).toBe(
      '6 decimals, a trailing zero kept, e.g. "795.380000"',
    );
  });

  it('learns trimmed from values of different lengths without a trailing zero', () => {
    const recording = recordingOf([price('1h', '65000', '4.23'), price('10min', '10000', '0.6')]);
    expect(calibrate(recording).settings.decimals).toEqual({ trxPrice: 'trimmed' });
  });

  it('leaves a field at its default when the values fit it', () => {
    const { settings, table } = calibrate(recordingOf([price('1h', '65000', '4.23')]));
    expect(settings.decimals).toBeUndefined();
    expect(row(table, 'decimals.trxPrice')?.value).toBeUndefined();
  });
});

describe('calibrating extra fields', () => {
  const traces = ['6f1c2a8e-3b4d-4c5e-9f60-718293a4b5c6', '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d'];
  const prices = (): Interaction[] => [
    price('1h', '65000', '4.23', { fee: '0', echo: '1h', traceId: traces[0], seq: 1234, ok: true }),
    price('10min', '32000', '1.92', { fee: '0', echo: '10min', traceId: traces[1], seq: 98765, ok: false }),
  ];

  it('learns a constant, a copy of a parameter and generated values of the inferred format', () => {
    const { settings, table } = calibrate(recordingOf(prices()));
    expect(settings.extraFields?.getPrice).toEqual([
      { path: '/data/echo', copyParameter: 'period' },
      { path: '/data/fee', constant: '0' },
      { path: '/data/seq', generate: 'integer', length: 4 },
      { path: '/data/traceId', generate: 'uuid' },
    ]);
    expect(row(table, 'extraFields.getPrice.0')?.evidence?.observed).toBe(
      "/data/echo: equals the request's period in 2 answers",
    );
  });

  it('reports a field it saw but cannot reproduce, never dropping it silently', () => {
    const { settings, unreproduced } = calibrate(recordingOf(prices()));
    expect(settings.extraFields?.getPrice?.some((f) => f.path === '/data/ok')).toBe(false);
    expect(unreproduced).toContainEqual(
      expect.objectContaining({
        what: 'getPrice /data/ok',
        why: 'boolean values that vary cannot be drawn; the simulator leaves it out',
      }),
    );
  });

  it('learns a time at a fixed offset from createdAt, and a copy of an order field', () => {
    const recording = baseline(VALUES_A, (interactions) => {
      // Two orders, so that neither field is one constant.
      for (const [n, body] of bodiesOf(interactions, 'getOrderHistory').entries()) {
        const data = (body as { data: Record<string, unknown> }).data;
        if (n % 2 === 1) {
          data.createdAt = (data.createdAt as number) + 7_000;
          data.pledgeAddress = 'TAnyuZwQdnuFeTeMPikrgLBfrz1raq19iW';
        }
        data.expireAt = (data.createdAt as number) + 3_600_000;
        data.address = data.pledgeAddress;
      }
    });
    expect(calibrate(recording).settings.extraFields?.getOrderHistory).toEqual([
      { path: '/data/address', copyOrderField: 'pledgeAddress' },
      { path: '/data/expireAt', createdAtOffsetMs: 3_600_000, unit: 'ms' },
    ]);
  });

  it('learns the leaves of an undocumented object whose values vary', () => {
    const recording = recordingOf([
      price('1h', '65000', '4.23', { meta: { region: 'eu', node: '1842' } }),
      price('1h', '64000', '4.16', { meta: { region: 'eu', node: '9051' } }),
    ]);
    expect(calibrate(recording).settings.extraFields?.getPrice).toEqual([
      { path: '/data/meta/region', constant: 'eu' },
      { path: '/data/meta/node', generate: 'integer-string', length: 4 },
    ]);
  });

  it('learns none from answers with only documented fields', () => {
    const { settings, table } = calibrate(baseline());
    expect(settings.extraFields).toBeUndefined();
    expect(row(table, 'extraFields')?.value).toBeUndefined();
  });
});

describe('calibrating rejections', () => {
  const refused = (path: string, query: Record<string, string>, msg: string) =>
    exchange('getPrice', { code: 1002, msg, time: '1741801809', data: null }, { status: 400, path, query });

  it('learns a wrong method answered with an empty body, and an unknown path answered with HTML', () => {
    const wrong = exchange('DELETE /v1/account', undefined, {
      method: 'DELETE',
      path: '/v1/account',
      status: 405,
    });
    wrong.response = { status: 405, headers: {}, text: '' };
    const unknown = exchange('GET /v1/tron/no-such-operation', undefined, {
      path: '/v1/tron/no-such-operation',
      status: 404,
    });
    unknown.response = { status: 404, headers: { 'content-type': 'text/html' }, text: '<html>404</html>' };
    const { settings, table } = calibrate(recordingOf([wrong, unknown]));
    expect(settings.errors?.methodNotAllowed).toEqual({ status: 405, body: '' });
    expect(row(table, 'errors.methodNotAllowed')?.evidence?.observed).toBe(
      'HTTP 405, no content type, an empty body',
    );
    expect(settings.errors?.notFound).toEqual({
      status: 404,
      contentType: 'text/html',
      body: '<html>404</html>',
    });
    expect(settings.unknownPath).toBe('html');
  });

  it('learns a message template carrying the parameter from messages that differ only in it', () => {
    const recording = recordingOf([
      refused('/v1/tron/price', { rentalCount: 'abc', period: '1h' }, 'Invalid parameter: rentalCount'),
      refused('/v1/tron/price', { rentalCount: '65000', period: '2h' }, 'Invalid parameter: period'),
    ]);
    expect(calibrate(recording).settings.errors?.parameterInvalid).toEqual({
      status: 400,
      code: 1002,
      msg: 'Invalid parameter: {parameter}',
    });
  });

  it('learns the fields a rejection adds to the envelope: a constant, and a value drawn afresh', () => {
    const traced = (traceId: string) => {
      const i = refused('/v1/tron/price', { rentalCount: '65000', period: '2h' }, '参数错误');
      Object.assign(i.response!.body as object, { success: false, traceId });
      return i;
    };
    const { settings, table } = calibrate(recordingOf([traced('a'.repeat(32)), traced('b'.repeat(32))]));
    expect(settings.errors?.parameterInvalid?.extraFields).toEqual([
      { path: '/success', constant: false },
      { path: '/traceId', generate: 'text', length: 32 },
    ]);
    expect(row(table, 'errors.*.extraFields.1')?.evidence?.observed).toMatch(/^\/traceId: text/);
  });

  it('learns the largest quantity priced as the maximum when a larger one was refused, and the minimum on the price', () => {
    const recording = recordingOf([
      refused('/v1/tron/price', { rentalCount: '987654321', period: '30d' }, '数量超出上限'),
      price('30d', '9876543', '592.59'),
      refused('/v1/tron/price', { rentalCount: '1000', period: '1h' }, '数量低于下限'),
    ]);
    const { settings, table } = calibrate(recording);
    expect(settings).toMatchObject({
      maxRentalCount: 9_876_543,
      priceMinimum: true,
      errors: { aboveMaximum: { status: 400, code: 1002 }, belowMinimum: { status: 400, code: 1002 } },
    });
    expect(row(table, 'maxRentalCount')?.evidence?.observed).toBe(
      'rentalCount 987654321 refused, 9876543 accepted',
    );
    expect(
      calibrate(recordingOf([price('30d', '9876543', '592.59')])).settings.maxRentalCount,
    ).toBeUndefined();
  });

  it("answers the simulator's own message where the recorded one quotes a value of the request, and says so", () => {
    const recording = recordingOf([
      refused(
        '/v1/tron/price',
        { rentalCount: '65000', period: '2h' },
        "Parameter 'period' must be one of 1h (got '2h')",
      ),
    ]);
    const { settings, unreproduced } = calibrate(recording);
    expect(settings.errors?.parameterInvalid).toEqual({ status: 400, code: 1002 });
    expect(unreproduced).toContainEqual(
      expect.objectContaining({
        what: `errors.parameterInvalid: msg "Parameter '{parameter}' must be one of 1h (got '2h')"`,
        why: "it quotes a value the request sent; the simulator's own message, which names what was wrong, is answered",
      }),
    );
  });

  it('keeps a literal message that quotes something the request did not send', () => {
    const missing = exchange(
      'getAccount',
      {
        code: 10001,
        msg: "Missing API key: send it in the 'API-KEY' header.",
        time: '1741801809',
        data: null,
      },
      { path: '/v1/account', status: 401 },
    );
    delete missing.request.apiKeyAlias;
    expect(calibrate(recordingOf([missing])).settings.errors?.apiKeyMissing).toEqual({
      status: 401,
      code: 10001,
      msg: "Missing API key: send it in the 'API-KEY' header.",
    });
  });

  it('learns a body of JSON in a shape of its own as that body', () => {
    const odd = exchange('getAccount', { error: 'unauthorized' }, { path: '/v1/account', status: 401 });
    delete odd.request.apiKeyAlias;
    expect(calibrate(recordingOf([odd])).settings.errors?.apiKeyMissing).toEqual({
      status: 401,
      contentType: 'application/json',
      body: '{"error":"unauthorized"}',
    });
  });
});

describe('calibrating the statuses shown', () => {
  it('hides PROCESSING when orders go from PENDING straight to their outcome', () => {
    const recording = baseline(
      withPolls([
        ['PENDING', 0],
        ['PENDING', 2],
        ['COMPLETED', 4],
      ]),
    );
    const { settings, table } = calibrate(recording);
    expect(settings.hiddenStatuses).toEqual(['PROCESSING']);
    expect(row(table, 'hiddenStatuses')?.evidence?.observed).toBe(
      '1 of 1 orders went from PENDING straight to their outcome',
    );
  });

  it('hides REFUNDED when FAILED orders never show it, and says a later REFUNDED looks the same', () => {
    const recording = baseline(
      withPolls([
        ['PROCESSING', 0],
        ['FAILED', 2],
        ['FAILED', 30],
      ]),
    );
    const { settings, unreproduced } = calibrate(recording);
    expect(settings.hiddenStatuses).toEqual(['REFUNDED']);
    expect(unreproduced).toContainEqual(expect.objectContaining({ what: 'a REFUNDED later than the polls' }));
  });

  it('shows every status when the polls saw them', () => {
    expect(calibrate(baseline()).settings.hiddenStatuses).toBeUndefined();
  });

  it("does not read a manual clock's polls as the service's statuses", () => {
    const recording = baseline(
      withPolls([
        ['PENDING', 0],
        ['COMPLETED', 4],
      ]),
      (interactions) =>
        interactions.push(
          exchange('advanceClock', { now: 1 }, { method: 'POST', path: '/_sim/clock/advance' }),
        ),
    );
    const { settings, unreproduced } = calibrate(recording);
    expect(settings.hiddenStatuses).toBeUndefined();
    expect(unreproduced).toContainEqual(expect.objectContaining({ what: 'the statuses the history shows' }));
  });
});

describe('calibrating the history identifier and payment when TRX is short', () => {
  const created = (id: string, outOrderNo: string, currency = 'TRX') =>
    exchange(
      'createOrder',
      { code: 0, msg: 'ok', time: '1741801809', data: { id, amount: 4.23, currency, outOrderNo } },
      {
        method: 'POST',
        path: '/v1/tron/order',
        query: { pledgeAddress: ADDRESS, rentalCount: '65000', period: '1h', outOrderNo },
      },
    );

  it('learns outOrderNo when a history with both identifiers answered the outOrderNo order', () => {
    const both = baseline(VALUES_A, (interactions) => {
      interactions.push(
        created('OR20250312175009AAAAAAAA', 'first'),
        created('OR20250312175009BBBBBBBB', 'second'),
      );
      const poll = structuredClone(interactions.find((i) => i.operation === 'getOrderHistory')!);
      poll.request.query = { orderId: 'OR20250312175009AAAAAAAA', outOrderNo: 'second' };
      (poll.response!.body as { data: { orderId: string } }).data.orderId = 'OR20250312175009BBBBBBBB';
      interactions.push(poll);
    });
    const { settings, table } = calibrate(both);
    expect(settings.historyPrefers).toBe('outOrderNo');
    expect(row(table, 'historyPrefers')?.evidence?.observed).toContain(
      '"OR20250312175009BBBBBBBB" came back',
    );
  });

  it('learns pay-usdt from an order paid in USDT', () => {
    const recording = recordingOf([created('OR20250312175009AAAAAAAA', 'a', 'USDT')]);
    expect(calibrate(recording).settings.whenTrxShort).toBe('pay-usdt');
  });

  it('learns reject from an order refused while USDT covered it', () => {
    const recording = baseline({ ...VALUES_A, trx: '1', usdt: '100.000000' }, (interactions) => {
      const order = created('x', 'refused');
      order.request.query = { pledgeAddress: ADDRESS, rentalCount: '64000', period: '10min' };
      order.response = {
        status: 402,
        headers: { 'content-type': 'application/json' },
        body: { code: 30001, msg: 'Insufficient balance', time: '1741801809', data: null },
      };
      interactions.splice(2, 1, order);
    });
    const { settings, table } = calibrate(recording);
    expect(settings.whenTrxShort).toBe('reject');
    expect(row(table, 'whenTrxShort')?.evidence?.observed).toBe(
      'refused with 1 TRX and 100 USDT for 3.84 TRX',
    );
  });
});

describe('the calibrated settings', () => {
  it('load into a simulator: every learnt value passes the settings schema', async () => {
    const { createSimulator } = await import('../mock/simulator.ts');
    const recording = baseline({ ...VALUES_A, trx: '795.380000' }, (interactions) => {
      dataOf(interactions, 'getPrice').fee = '0';
    });
    const { settings } = calibrate(recording);
    const sim = createSimulator({ clock: 'manual', scenario: { settings } });
    expect(sim.engine.settings().decimals).toMatchObject({ 'balance.available.trx': 6 });
    expect(sim.engine.settings().extraFields.getPrice).toEqual([{ path: '/data/fee', constant: '0' }]);
  });
});
