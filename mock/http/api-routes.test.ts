/**
 * The four operations of the simulated Energy Rental API, over HTTP, in-process.
 * Every successful body is checked against spec/openapi.yaml.
 */
import { describe, expect, it } from 'vitest';
import { createValidators, loadSpec } from '../../src/spec/loader.ts';
import { createSimulator } from '../simulator.ts';
import { expectValid, get } from '../test-support/http-test-support.ts';
import {
  ADDRESS,
  ORDER_QUERY,
  OTHER_ADDRESS,
  createAccount,
  expectError,
  ordersOf,
  postOrder,
} from '../test-support/fixtures.ts';

const ORDER_ID = /^OR\d{14}[A-Z0-9]{8}$/;
/** The manual clock starts at the upstream example's creation time. */
const START_MS = 1_741_801_809_000;
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

const api = createValidators(loadSpec('api'));

describe('getPrice', () => {
  it('quotes 65000 energy for 1h at 65 sun per unit and 4.23 TRX, as the spec describes', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await get(sim, '/v1/tron/price?rentalCount=65000&period=1h');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    expect(reply.body).toEqual({
      code: 0,
      msg: 'Get price successfully',
      time: String(START_MS / 1000),
      data: { sun: '65', trxPrice: '4.23', period: '1h', resourceType: 'ENERGY', rentalCount: 65000 },
    });
    expect(typeof reply.body.data.rentalCount).toBe('number');
    expectValid(api.response('getPrice', 200), reply.body);
  });

  it('prices every period from its own sun rate', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await get(sim, '/v1/tron/price?rentalCount=100000&period=30d');
    expect(reply.body.data).toEqual({
      sun: '100',
      trxPrice: '10.00',
      period: '30d',
      resourceType: 'ENERGY',
      rentalCount: 100000,
    });
    expectValid(api.response('getPrice', 200), reply.body);
  });

  it('answers under the /api prefix of the real service as well', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await get(sim, '/api/v1/tron/price?rentalCount=65000&period=1h');
    expect(reply.status).toBe(200);
    expect(reply.body.data.trxPrice).toBe('4.23');
  });

  it('rejects rentalCount 0 with code 20002, naming the parameter and its minimum of 1', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await get(sim, '/v1/tron/price?rentalCount=0&period=1h');
    expectError(reply, 400, 20002, /'rentalCount'.*at least 1/);
  });

  it('rejects a missing period with code 20001, naming it', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await get(sim, '/v1/tron/price?rentalCount=65000');
    expectError(reply, 400, 20001, /'period'/);
  });

  it('stamps time with the simulator clock, in Unix seconds', async () => {
    const sim = createSimulator({ clock: 'manual' });
    sim.advance(61_000);
    const reply = await get(sim, '/v1/tron/price?rentalCount=65000&period=1h');
    expect(reply.body.time).toBe(String(START_MS / 1000 + 61));
  });
});

describe('createOrder', () => {
  it('accepts its parameters in the query string and echoes outOrderNo', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await postOrder(sim, `${ORDER_QUERY}&outOrderNo=shop-1`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      code: 0,
      msg: 'Order generated successfully, please check order processing status later',
      time: String(START_MS / 1000),
      data: { id: expect.stringMatching(ORDER_ID), amount: 4.23, currency: 'TRX', outOrderNo: 'shop-1' },
    });
    expect(typeof reply.body.data.amount).toBe('number');
    expect(reply.body.data.id.slice(2, 16)).toBe('20250312175009');
    expectValid(api.response('createOrder', 200), reply.body);
    expect((await ordersOf(sim)).map((o) => o.orderId)).toEqual([reply.body.data.id]);
  });

  it('accepts its parameters as a form body', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await postOrder(sim, '', 'demo-key', {
      headers: FORM,
      body: `${ORDER_QUERY}&outOrderNo=shop-2`,
    });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({
      id: expect.stringMatching(ORDER_ID),
      amount: 4.23,
      currency: 'TRX',
      outOrderNo: 'shop-2',
    });
    expectValid(api.response('createOrder', 200), reply.body);
    const history = await get(sim, `/v1/tron/history?orderId=${reply.body.data.id}`);
    expect(history.body.data).toMatchObject({ pledgeAddress: ADDRESS, rentalCount: '65000', period: '1h' });
  });

  it('accepts a form body whose content type carries a charset', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await postOrder(sim, '', 'demo-key', {
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' },
      body: ORDER_QUERY,
    });
    expect(reply.status).toBe(200);
    expect(reply.body.code).toBe(0);
  });

  it('accepts parameters split between the query string and the form body', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await postOrder(sim, `pledgeAddress=${ADDRESS}`, 'demo-key', {
      headers: FORM,
      body: 'rentalCount=65000&period=1h',
    });
    expect(reply.status).toBe(200);
    expect(reply.body.data.amount).toBe(4.23);
  });

  it('leaves outOrderNo out of the answer when none was sent', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await postOrder(sim, ORDER_QUERY);
    expect(Object.keys(reply.body.data).sort()).toEqual(['amount', 'currency', 'id']);
  });

  it('charges the quoted price, freezing it on the account', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await postOrder(sim, `pledgeAddress=${ADDRESS}&rentalCount=100000&period=30d`);
    const account = await get(sim, '/v1/account');
    expect(account.body.data.balance).toEqual({
      available: { trx: '990', usdt: '100.000000' },
      frozen: { trx: '10' },
    });
  });

  it('gives each order of one second a different id', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++) ids.add((await postOrder(sim, ORDER_QUERY)).body.data.id);
    expect(ids.size).toBe(5);
  });
});

describe('getOrderHistory', () => {
  it('finds an order by orderId, with rentalCount and amount as strings and createdAt in ms', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const { id } = (await postOrder(sim, `${ORDER_QUERY}&outOrderNo=shop-1`)).body.data;
    const reply = await get(sim, `/v1/tron/history?orderId=${id}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      code: 0,
      msg: 'Get order successfully',
      time: String(START_MS / 1000),
      data: {
        orderId: id,
        amount: '4.23',
        currency: 'TRX',
        status: 'PENDING',
        txId: '',
        pledgeAddress: ADDRESS,
        createdAt: START_MS,
        rentalCount: '65000',
        period: '1h',
        resourceType: 'ENERGY',
      },
    });
    expectValid(api.response('getOrderHistory', 200), reply.body);
  });

  it('finds the same order by outOrderNo', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const { id } = (await postOrder(sim, `${ORDER_QUERY}&outOrderNo=shop-1`)).body.data;
    const byId = await get(sim, `/v1/tron/history?orderId=${id}`);
    const byOutOrderNo = await get(sim, '/v1/tron/history?outOrderNo=shop-1');
    expect(byOutOrderNo.status).toBe(200);
    expect(byOutOrderNo.body).toEqual(byId.body);
    expectValid(api.response('getOrderHistory', 200), byOutOrderNo.body);
  });

  it('sends an empty txId until the order is COMPLETED, then 64 hex characters', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const { id } = (await postOrder(sim, ORDER_QUERY)).body.data;
    const before = await get(sim, `/v1/tron/history?orderId=${id}`);
    expect(before.body.data).toMatchObject({ status: 'PENDING', txId: '' });
    sim.advance(7000);
    const after = await get(sim, `/v1/tron/history?orderId=${id}`);
    expect(after.body.data.status).toBe('COMPLETED');
    expect(after.body.data.txId).toMatch(/^[0-9a-f]{64}$/);
    expect(after.body.data.createdAt).toBe(START_MS);
    expectValid(api.response('getOrderHistory', 200), after.body);
  });

  it('looks the order up by orderId when orderId and outOrderNo name different orders', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const first = (await postOrder(sim, `${ORDER_QUERY}&outOrderNo=first`)).body.data.id;
    const second = (
      await postOrder(sim, `pledgeAddress=${OTHER_ADDRESS}&rentalCount=70000&period=1d&outOrderNo=second`)
    ).body.data.id;
    expect(first).not.toBe(second);
    const reply = await get(sim, `/v1/tron/history?orderId=${first}&outOrderNo=second`);
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatchObject({ orderId: first, pledgeAddress: ADDRESS, rentalCount: '65000' });
  });

  it('answers 404 with code 40401 for an unknown orderId, naming it', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await get(sim, '/v1/tron/history?orderId=OR20250312175009AAAAAAAA');
    expectError(reply, 404, 40401, /OR20250312175009AAAAAAAA/);
  });

  it('answers 404 with code 40401 for an unknown outOrderNo, naming it', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await get(sim, '/v1/tron/history?outOrderNo=never-sent');
    expectError(reply, 404, 40401, /'never-sent'/);
  });

  it('rejects a request with neither id with code 20001, naming both', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await get(sim, '/v1/tron/history');
    expectError(reply, 400, 20001, /'orderId'.*'outOrderNo'/);
  });

  it('rejects an orderId of the wrong form with code 20002', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await get(sim, '/v1/tron/history?orderId=12345');
    expectError(reply, 400, 20002, /'orderId'/);
  });
});

describe('getAccount', () => {
  it("describes the key's account: name from the wallet address, balances with USDT to six decimals", async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await get(sim, '/v1/account');
    expect(reply.status).toBe(200);
    const { walletAddress } = reply.body.data;
    expect(reply.body).toEqual({
      code: 0,
      msg: 'Get user information successfully',
      time: String(START_MS / 1000),
      data: {
        name: `User-${walletAddress.slice(0, 6)}`,
        walletAddress: expect.stringMatching(/^T[1-9A-HJ-NP-Za-km-z]{33}$/),
        balance: { available: { trx: '1000', usdt: '100.000000' }, frozen: { trx: '0' } },
        referralCount: 0,
      },
    });
    expectValid(api.response('getAccount', 200), reply.body);
  });

  it('shows the price of an open order as frozen, and spends it when the order completes', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await postOrder(sim, ORDER_QUERY);
    const open = await get(sim, '/v1/account');
    expect(open.body.data.balance).toEqual({
      available: { trx: '995.77', usdt: '100.000000' },
      frozen: { trx: '4.23' },
    });
    expectValid(api.response('getAccount', 200), open.body);
    sim.advance(7000);
    const done = await get(sim, '/v1/account');
    expect(done.body.data.balance).toEqual({
      available: { trx: '995.77', usdt: '100.000000' },
      frozen: { trx: '0' },
    });
  });

  it('reports the referral count the account was created with', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const { apiKey } = await createAccount(sim, { referralCount: 3, balance: { usdt: '0.031748' } });
    const reply = await get(sim, '/v1/account', apiKey);
    expect(reply.body.data.referralCount).toBe(3);
    expect(reply.body.data.balance.available).toEqual({ trx: '0', usdt: '0.031748' });
    expectValid(api.response('getAccount', 200), reply.body);
  });
});
