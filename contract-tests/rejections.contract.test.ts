import { describe, expect } from 'vitest';
import { EnergyRentalError } from '../src/client/index.ts';
import type { Period } from '../src/models.ts';
import { contractTest as test } from './contract-test.ts';

/**
 * Against the real service a rejection is asserted only as "code ≠ 0 with a message",
 * because its error codes are unpublished; a simulator must give its documented code
 * and HTTP status exactly.
 */
async function expectRejection(
  call: Promise<unknown>,
  simulator: boolean,
  documented: { code: number; status: number; mentions: RegExp },
): Promise<void> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'the call must be rejected').toBeInstanceOf(EnergyRentalError);
  const rejection = error as EnergyRentalError;
  expect(rejection.code, `code of the rejection: ${rejection.message}`).toBeTypeOf('number');
  expect(rejection.code).not.toBe(0);
  expect(rejection.msg, 'the rejection carries a message').toMatch(/\S/);
  if (simulator) {
    expect({ code: rejection.code, status: rejection.status }).toEqual({
      code: documented.code,
      status: documented.status,
    });
    expect(rejection.msg).toMatch(documented.mentions);
  }
}

/** A raw request the client has no method for: its status and, when JSON, its code. */
async function raw(
  target: { fetch: typeof fetch; apiKey: string; info: { baseUrl: string } },
  method: string,
  path: string,
): Promise<{ status: number; code: unknown }> {
  const res = await target.fetch(`${target.info.baseUrl}${path}`, {
    method,
    headers: { 'API-KEY': target.apiKey },
  });
  const text = await res.text();
  let code: unknown;
  try {
    code = (JSON.parse(text) as { code?: unknown }).code;
  } catch {
    code = undefined; // an HTML page, as a web server answers
  }
  return { status: res.status, code };
}

describe('rejections', () => {
  // Upstream documents neither answer; these only require that neither is a success, and
  // show a recording (and calibration) what the service does.
  test('does not serve a path the API does not have', async ({ target }) => {
    const answer = await raw(target, 'GET', '/v1/tron/no-such-operation');
    expect(
      answer.status >= 400 || (answer.code !== undefined && answer.code !== 0),
      `an unknown path is no success (${JSON.stringify(answer)})`,
    ).toBe(true);
    if (target.info.simulator) expect(answer).toEqual({ status: 404, code: 40400 });
  });

  test('does not serve a method the API does not offer', async ({ target }) => {
    const answer = await raw(target, 'DELETE', '/v1/account');
    expect(
      answer.status >= 400 || (answer.code !== undefined && answer.code !== 0),
      `a wrong method is no success (${JSON.stringify(answer)})`,
    ).toBe(true);
    if (target.info.simulator) expect(answer).toEqual({ status: 405, code: 40500 });
  });

  test('rejects a call without an API key', async ({ clientFor, target }) => {
    await expectRejection(
      clientFor(undefined).getPrice({ rentalCount: 65000, period: '1h' }),
      target.info.simulator,
      {
        code: 10001,
        status: 401,
        mentions: /API-KEY/,
      },
    );
  });

  test('rejects a call with an unknown API key', async ({ clientFor, target }) => {
    await expectRejection(clientFor('erk-contract-no-such-key').getAccount(), target.info.simulator, {
      code: 10002,
      status: 401,
      mentions: /API-KEY|API key/,
    });
  });

  test('rejects a period outside the seven allowed values', async ({ api, target }) => {
    await expectRejection(
      api.getPrice({ rentalCount: 65000, period: '2h' as Period }),
      target.info.simulator,
      {
        code: 20002,
        status: 400,
        mentions: /'period'.*10min, 1h, 1d, 3d, 7d, 14d, 30d/,
      },
    );
  });

  test('rejects an order below the 64000 minimum', async ({ api, target, orderParams, requireSpend }) => {
    // A valid request would spend; this one must not, but against the real service a
    // changed rule would create an order, so it is guarded like one.
    requireSpend();
    const params = await orderParams();
    await expectRejection(api.createOrder({ ...params, rentalCount: 63999 }), target.info.simulator, {
      code: 20002,
      status: 400,
      mentions: /'rentalCount'.*64000/,
    });
  });

  test('rejects a lookup of an unknown order', async ({ api, target }) => {
    await expectRejection(
      api.getOrderHistory({ orderId: 'OR20000101000000ZZZZZZZZ' }),
      target.info.simulator,
      {
        code: 40401,
        status: 404,
        mentions: /OR20000101000000ZZZZZZZZ/,
      },
    );
  });
});
