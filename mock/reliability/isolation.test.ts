/**
 * Isolation between accounts: one API key can never read or affect another account's
 * orders, through any API operation or any per-account control-plane endpoint, with
 * order ids and outOrderNos guessed or copied from the other account. Every probe is
 * answered exactly as an order that does not exist would be.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../simulator.ts';
import { get, send, type Reply } from '../test-support/http-test-support.ts';
import { ADDRESS, OTHER_ADDRESS } from '../test-support/fixtures.ts';

const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : 20_250_312;
const A = 'demo-key';
const B = 'bravo-key-0001';
const SCENARIO = {
  accounts: [
    { apiKey: A, balance: { trx: '1000', usdt: '100' } },
    { apiKey: B, balance: { trx: '100' } },
  ],
};
/** A well-formed order id that no order has. */
const UNKNOWN_ID = 'OR20250312175009ZZZZZZZZ';
const UNKNOWN_OUT_ORDER_NO = 'never-used-anywhere';

const post = (
  sim: Simulator,
  path: string,
  apiKey: string | undefined,
  body: string,
  type = 'application/json',
) =>
  send(sim, path, {
    method: 'POST',
    headers: { ...(apiKey ? { 'API-KEY': apiKey } : {}), 'content-type': type },
    body,
  });

async function createOrder(
  sim: Simulator,
  apiKey: string,
  outOrderNo?: string,
  pledgeAddress = ADDRESS,
): Promise<Reply> {
  const params = new URLSearchParams({
    pledgeAddress,
    rentalCount: '65000',
    period: '1h',
    ...(outOrderNo ? { outOrderNo } : {}),
  });
  return post(sim, '/v1/tron/order', apiKey, params.toString(), 'application/x-www-form-urlencoded');
}

/** What a caller can observe of an answer, with the probed value (quoted in the message) written as <probe>. */
function observed(reply: Reply, probe: string) {
  return {
    status: reply.status,
    headers: [...reply.headers.keys()].sort(),
    body: { ...reply.body, msg: String(reply.body?.msg).split(`'${probe}'`).join("'<probe>'") },
  };
}

/** Everything account A can see of itself, through every per-account endpoint. */
async function viewOf(sim: Simulator, apiKey: string) {
  const orders = (await get(sim, '/_sim/orders?limit=1000', apiKey)).body.orders as {
    orderId: string;
    outOrderNo?: string;
  }[];
  const histories = [];
  for (const o of orders) {
    histories.push((await get(sim, `/v1/tron/history?orderId=${o.orderId}`, apiKey)).body);
    histories.push((await get(sim, `/_sim/orders/${o.orderId}`, apiKey)).body);
    if (o.outOrderNo)
      histories.push(
        (await get(sim, `/v1/tron/history?outOrderNo=${encodeURIComponent(o.outOrderNo)}`, apiKey)).body,
      );
  }
  return {
    account: (await get(sim, '/v1/account', apiKey)).body,
    ledger: (await get(sim, '/_sim/accounts/me', apiKey)).body,
    orders,
    histories,
  };
}

/** A simulator where A holds orders in every status, with and without outOrderNo. */
async function withOrdersOfA(): Promise<{ sim: Simulator; ids: string[]; outOrderNos: string[] }> {
  const sim = createSimulator({ clock: 'manual', timing: 'realistic', scenario: SCENARIO });
  await post(
    sim,
    '/_sim/rules',
    undefined,
    JSON.stringify({ match: { outOrderNo: 'a-fails' }, outcome: 'FAILED', delayMs: 1000 }),
  );
  const ids: string[] = [];
  for (const out of ['a-done', 'a-fails', undefined]) ids.push((await createOrder(sim, A, out)).body.data.id);
  sim.advance(10_000); // COMPLETED, REFUNDED, COMPLETED
  for (const out of ['a-open', 'shared-no'])
    ids.push((await createOrder(sim, A, out, OTHER_ADDRESS)).body.data.id);
  expect(
    new Set((await get(sim, '/_sim/orders', A)).body.orders.map((o: { status: string }) => o.status)),
  ).toEqual(new Set(['COMPLETED', 'REFUNDED', 'PENDING']));
  return { sim, ids, outOrderNos: ['a-done', 'a-fails', 'a-open', 'shared-no'] };
}

describe('looking up another account’s orders', () => {
  it('answers B’s history lookup of each of A’s order ids exactly as a lookup of an unknown id', async () => {
    const { sim, ids } = await withOrdersOfA();
    const unknown = observed(await get(sim, `/v1/tron/history?orderId=${UNKNOWN_ID}`, B), UNKNOWN_ID);
    expect(unknown).toMatchObject({ status: 404, body: { code: 40401, data: null } });
    for (const id of ids) {
      expect(observed(await get(sim, `/v1/tron/history?orderId=${id}`, B), id)).toEqual(unknown);
      expect(observed(await get(sim, `/api/v1/tron/history?orderId=${id}`, B), id)).toEqual(unknown);
      // orderId wins over an outOrderNo of B's own: still not found, A's order not shown.
      expect(observed(await get(sim, `/v1/tron/history?orderId=${id}&outOrderNo=anything`, B), id)).toEqual(
        unknown,
      );
    }
  });

  it('answers B’s history lookup of each of A’s outOrderNos exactly as a lookup of an unused one', async () => {
    const { sim, outOrderNos } = await withOrdersOfA();
    const unknown = observed(
      await get(sim, `/v1/tron/history?outOrderNo=${UNKNOWN_OUT_ORDER_NO}`, B),
      UNKNOWN_OUT_ORDER_NO,
    );
    expect(unknown).toMatchObject({ status: 404, body: { code: 40401 } });
    for (const out of outOrderNos)
      expect(observed(await get(sim, `/v1/tron/history?outOrderNo=${out}`, B), out)).toEqual(unknown);
  });

  it('answers B’s timeline request for each of A’s order ids exactly as one for an unknown id', async () => {
    const { sim, ids } = await withOrdersOfA();
    const unknown = observed(await get(sim, `/_sim/orders/${UNKNOWN_ID}`, B), UNKNOWN_ID);
    expect(unknown).toMatchObject({ status: 404, body: { code: 40401 } });
    for (const id of ids) expect(observed(await get(sim, `/_sim/orders/${id}`, B), id)).toEqual(unknown);
  });

  it('shows B none of A’s orders in its order list, its account or its ledger', async () => {
    const { sim } = await withOrdersOfA();
    for (const status of ['', '?status=COMPLETED', '?status=PENDING', '?status=REFUNDED', '?limit=1000']) {
      expect((await get(sim, `/_sim/orders${status}`, B)).body).toEqual({ orders: [] });
    }
    const account = (await get(sim, '/v1/account', B)).body.data;
    const own = sim.engine.authenticate(B)!;
    expect(account).toMatchObject({
      walletAddress: own.walletAddress,
      balance: { available: { trx: '100', usdt: '0.000000' }, frozen: { trx: '0' } },
    });
    const ledger = (await get(sim, '/_sim/accounts/me', B)).body;
    expect(ledger).toMatchObject({
      walletAddress: own.walletAddress,
      orders: 0,
      ledger: { trx: { deposited: '100', available: '100', frozen: '0', spent: '0' } },
    });
  });

  it('answers guessed, well-formed order ids and outOrderNos with not found, for every endpoint', async () => {
    const { sim, ids } = await withOrdersOfA();
    const template = {
      history: observed(await get(sim, `/v1/tron/history?orderId=${UNKNOWN_ID}`, B), UNKNOWN_ID),
      timeline: observed(await get(sim, `/_sim/orders/${UNKNOWN_ID}`, B), UNKNOWN_ID),
      byOutOrderNo: observed(
        await get(sim, `/v1/tron/history?outOrderNo=${UNKNOWN_OUT_ORDER_NO}`, B),
        UNKNOWN_OUT_ORDER_NO,
      ),
    };
    // Guesses near A's real ids (same second, same prefix) as well as anywhere.
    const guessedId = fc
      .oneof(
        fc.stringMatching(/^OR\d{14}[A-Z0-9]{8}$/),
        fc
          .tuple(
            fc.constantFrom(...ids),
            fc.nat(7),
            fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'),
          )
          .map(([id, i, c]) => `${id.slice(0, 16 + i)}${c}${id.slice(17 + i)}`),
      )
      .filter((id) => !ids.includes(id));
    const guessedOutOrderNo = fc
      .stringMatching(/^[A-Za-z0-9_-]{1,64}$/)
      .filter((o) => !o.startsWith('a-') && o !== 'shared-no');
    await fc.assert(
      fc.asyncProperty(guessedId, guessedOutOrderNo, async (id, out) => {
        expect(observed(await get(sim, `/v1/tron/history?orderId=${id}`, B), id)).toEqual(template.history);
        expect(observed(await get(sim, `/_sim/orders/${id}`, B), id)).toEqual(template.timeline);
        expect(observed(await get(sim, `/v1/tron/history?outOrderNo=${out}`, B), out)).toEqual(
          template.byOutOrderNo,
        );
      }),
      { seed: SEED, numRuns: 150 },
    );
  });
});

describe('acting on another account’s orders', () => {
  it('leaves everything A can see unchanged whatever B does with A’s ids and outOrderNos', async () => {
    const { sim, ids, outOrderNos } = await withOrdersOfA();
    const before = await viewOf(sim, A);
    const engineBefore = structuredClone(sim.engine.authenticate(A)!.ledger);

    for (const id of ids) {
      await get(sim, `/v1/tron/history?orderId=${id}`, B);
      await get(sim, `/_sim/orders/${id}`, B);
      await post(
        sim,
        `/v1/tron/order?orderId=${id}`,
        B,
        `pledgeAddress=${ADDRESS}&rentalCount=65000&period=1h&outOrderNo=${id}`,
        'application/x-www-form-urlencoded',
      );
    }
    for (const out of outOrderNos) {
      await get(sim, `/v1/tron/history?outOrderNo=${out}`, B);
      await createOrder(sim, B, out);
    }
    await get(sim, '/v1/account', B);
    await get(sim, '/v1/tron/price?rentalCount=65000&period=1h', B);
    await post(sim, '/_sim/accounts/me/deposit', B, '{"trx":"5","usdt":"1"}');
    await get(sim, '/_sim/accounts/me', B);
    await get(sim, '/_sim/orders?limit=1000', B);

    expect(await viewOf(sim, A)).toEqual(before);
    expect(sim.engine.authenticate(A)!.ledger).toEqual(engineBefore);
    expect(sim.engine.checkInvariants()).toEqual([]);
  });

  it('gives B its own order, charged to B, for an outOrderNo A already used, and never A’s', async () => {
    const { sim } = await withOrdersOfA();
    const aOrder = (await get(sim, '/v1/tron/history?outOrderNo=shared-no', A)).body.data;
    const aBefore = await viewOf(sim, A);

    const created = await createOrder(sim, B, 'shared-no');
    expect(created).toMatchObject({
      status: 200,
      body: { code: 0, data: { amount: 4.23, currency: 'TRX', outOrderNo: 'shared-no' } },
    });
    expect(created.body.data.id).not.toBe(aOrder.orderId);
    // A second call returns B's order again (the duplicate rule works per account).
    expect((await createOrder(sim, B, 'shared-no')).body.data.id).toBe(created.body.data.id);

    const bOrder = (await get(sim, '/v1/tron/history?outOrderNo=shared-no', B)).body.data;
    expect(bOrder.orderId).toBe(created.body.data.id);
    expect((await get(sim, '/v1/tron/history?outOrderNo=shared-no', A)).body.data).toEqual(aOrder);
    expect(
      (await get(sim, '/_sim/orders', B)).body.orders.map((o: { orderId: string }) => o.orderId),
    ).toEqual([created.body.data.id]);
    expect((await get(sim, '/_sim/accounts/me', B)).body.ledger.trx).toEqual({
      deposited: '100',
      available: '95.77',
      frozen: '4.23',
      spent: '0',
    });
    expect(await viewOf(sim, A)).toEqual(aBefore);
    // And A cannot see B's order either.
    expect((await get(sim, `/v1/tron/history?orderId=${created.body.data.id}`, A)).body).toMatchObject({
      code: 40401,
      data: null,
    });
  });

  it('keeps each deposit on the account of its own key', async () => {
    const sim = createSimulator({ clock: 'manual', scenario: SCENARIO });
    const aBefore = (await get(sim, '/_sim/accounts/me', A)).body;
    const reply = await post(sim, '/_sim/accounts/me/deposit', B, '{"trx":"7.5"}');
    expect(reply.status).toBe(200);
    expect(reply.body.walletAddress).toBe(sim.engine.authenticate(B)!.walletAddress);
    expect(reply.body.ledger.trx.deposited).toBe('107.5');
    expect((await get(sim, '/_sim/accounts/me', A)).body).toEqual(aBefore);
    // Without a key the per-account endpoints refuse, rather than pick an account.
    for (const [method, path] of [
      ['GET', '/_sim/accounts/me'],
      ['POST', '/_sim/accounts/me/deposit'],
      ['GET', '/_sim/orders'],
      ['GET', `/_sim/orders/${UNKNOWN_ID}`],
    ] as const) {
      const refused = await send(sim, path, {
        method,
        ...(method === 'POST' ? { body: '{"trx":"1"}' } : {}),
      });
      expect(refused).toMatchObject({ status: 401, body: { code: 10001 } });
    }
    expect((await get(sim, '/_sim/accounts/me', A)).body).toEqual(aBefore);
  });
});
