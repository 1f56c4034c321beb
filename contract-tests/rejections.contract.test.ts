import { describe } from 'vitest';
import type { EnergyRentalClient } from '../src/client/index.ts';
import type { OrderRequest, Period } from '../src/models.ts';
import { contractTest as test, expectRefused, refusalOf, type Refusal } from './contract-test.ts';

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

/** How a refusal reads, numbers and ids in its message aside: two answers alike read alike. */
const reading = (answer: { refused: Refusal } | object): string =>
  'refused' in answer
    ? `HTTP ${answer.refused.status}, code ${answer.refused.code}, ${(answer.refused.msg ?? '').replace(/[0-9a-f-]{8,}|\d+/gi, '#')}`
    : 'accepted';

/** An order no account has, looked up by each operation that needs one. */
const NO_SUCH_ORDER = 'OR20000101000000ZZZZZZZZ';

/** Each operation called as the suite calls it, with the client given (an order only where it may spend). */
const CALLS: Record<
  string,
  { spends: boolean; call: (client: EnergyRentalClient, order: OrderRequest) => Promise<unknown> }
> = {
  getPrice: { spends: false, call: (c) => c.getPrice({ rentalCount: 65000, period: '1h' }) },
  getAccount: { spends: false, call: (c) => c.getAccount() },
  getOrderHistory: { spends: false, call: (c) => c.getOrderHistory({ orderId: NO_SUCH_ORDER }) },
  // Without a key (or with one of no account) no account can pay; it is still an order, so
  // guarded. Its outOrderNo lets a rate-limited one be sent again once the history shows none.
  createOrder: { spends: true, call: (c, order) => c.createOrder(order) },
};

describe('rejections', () => {
  // Upstream documents neither answer: the requests are sent so that a recording (and
  // calibration) shows what the service does; only a simulator is held to its own.
  test('does not serve a path the API does not have', async ({ target, onSimulator }) => {
    const answer = await raw(target, 'GET', '/v1/tron/no-such-operation');
    onSimulator((expect) => expect(answer).toEqual({ status: 404, code: 40400 }));
  });

  test('does not serve a method the API does not offer', async ({ target, onSimulator }) => {
    const answer = await raw(target, 'DELETE', '/v1/account');
    onSimulator((expect) => expect(answer).toEqual({ status: 405, code: 40500 }));
  });

  test.for(Object.keys(CALLS))(
    'refuses %s without an API key, and with a key of no account',
    async (operation, { api, clientFor, orderParams, requireSpend, expectFact, onSimulator }) => {
      const { spends, call } = CALLS[operation]!;
      if (spends) requireSpend();
      const order = spends ? await orderParams() : ({} as OrderRequest);
      const keyless = await call(clientFor(undefined), order).catch(refusalOf);
      expectRefused(
        { expectFact, onSimulator },
        'api-key-required',
        keyless,
        `${operation} without an API key`,
      );
      const unknown = await call(clientFor('erk-contract-no-such-key'), order).catch(refusalOf);
      expectRefused(
        { expectFact, onSimulator },
        'api-key-account',
        unknown,
        `${operation} with a key of no account`,
      );
      onSimulator((expect) => {
        expect([keyless.refused.status, keyless.refused.code]).toEqual([401, 10001]);
        expect(keyless.refused.msg).toMatch(/API-KEY/);
        expect([unknown.refused.status, unknown.refused.code]).toEqual([401, 10002]);
      });
      if (operation !== 'getOrderHistory') return;
      // An unknown order is refused with the key too: without one it must be refused for the key.
      const keyed = await api.getOrderHistory({ orderId: NO_SUCH_ORDER }).catch(refusalOf);
      expectFact(
        'api-key-required',
        reading(keyless),
        'the keyless lookup is answered as the keyed one',
      ).not.toBe(reading(keyed));
      onSimulator((expect) => {
        expect('refused' in keyed && [keyed.refused.status, keyed.refused.code]).toEqual([404, 40401]);
        expect('refused' in keyed && keyed.refused.msg).toMatch(NO_SUCH_ORDER);
      });
    },
  );

  test('rejects a period outside the seven allowed values', async ({ api, expectFact, onSimulator }) => {
    const answer = await api.getPrice({ rentalCount: 65000, period: '2h' as Period }).catch(refusalOf);
    expectRefused({ expectFact, onSimulator }, 'periods', answer, "period '2h'");
    onSimulator((expect) => {
      expect([answer.refused.status, answer.refused.code]).toEqual([400, 20002]);
      expect(answer.refused.msg).toMatch(/'period'.*10min, 1h, 1d, 3d, 7d, 14d, 30d/);
    });
  });

  test('rejects an order below the 64000 minimum, read from a form body and from the query string alike', async ({
    api,
    orderInQuery,
    orderParams,
    requireSpend,
    expectFact,
    onSimulator,
  }) => {
    // A valid request would spend; these must not, but against the real service a changed
    // rule would create an order, so they are guarded like one.
    requireSpend();
    const params = { ...(await orderParams()), rentalCount: 63999 };
    const form = await api.createOrder(params).catch(refusalOf);
    expectRefused({ expectFact, onSimulator }, 'order-minimum', form, 'rentalCount 63999 in a form body');
    const query = await orderInQuery(params).catch(refusalOf);
    expectRefused(
      { expectFact, onSimulator },
      'order-minimum',
      query,
      'rentalCount 63999 in the query string',
    );
    // Read from either, the same parameters are refused for the same reason (not as missing).
    expectFact(
      'order-parameters',
      reading(query),
      'the query-string order is answered as the form-body one',
    ).toBe(reading(form));
    onSimulator((expect) => {
      expect([form.refused.status, form.refused.code]).toEqual([400, 20002]);
      expect(form.refused.msg).toMatch(/'rentalCount'.*64000/);
    });
  });
});
