/** The fixtures tests share: addresses, order helpers, the error envelope; one name per concept. */
import { expect } from 'vitest';
import { createValidators, loadSpec } from '../../src/spec/loader.ts';
import type { Simulator } from '../simulator.ts';
import { call, callGet, expectValid, get, send, type Reply } from './http-test-support.ts';

/** The spec's demo receiving address (activated in the default scenario). */
export const ADDRESS = 'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3';
/** A second valid address, for tests that tell two receivers apart. */
export const OTHER_ADDRESS = 'TAcN9gFvXZAxsWQQzWWbydBmscBHnEi5nZ';
/** The simulated energy pool that delegates to receivers. */
export const POOL = 'TJR2XHNAFojq68V2Y6H1ESQy75LaUnB7ji';
/** The USDT contract the simulated node answers for. */
export const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
/** An address holding TRX in the simulated chain. */
export const HOLDER = 'TLsV52sRDL79HXGGm9yzwKibb6BeruhUzy';
/** One valid order: 65000 energy for 1h to ADDRESS (4.23 TRX at the default 65 sun). */
export const ORDER_QUERY = `pledgeAddress=${ADDRESS}&rentalCount=65000&period=1h`;

const api = createValidators(loadSpec('api'));
const control = createValidators(loadSpec('control'));

/** POSTs an order with `query` (ORDER_QUERY unless told): `await postOrder(sim, query)`. */
export const postOrder = (
  sim: Simulator,
  query = ORDER_QUERY,
  apiKey = 'demo-key',
  init: RequestInit = {},
): Promise<Reply> =>
  send(sim, `/v1/tron/order${query ? `?${query}` : ''}`, {
    method: 'POST',
    ...init,
    headers: { 'API-KEY': apiKey, ...init.headers },
  });

/** Creates an order of 65000 energy for 1h (plus `extra` query text) and answers its id. */
export async function order(
  sim: Simulator,
  pledgeAddress = ADDRESS,
  extra = '',
  apiKey = 'demo-key',
): Promise<string> {
  const query = `pledgeAddress=${pledgeAddress}&rentalCount=65000&period=1h${extra}`;
  const reply = await postOrder(sim, query, apiKey);
  expect(reply.status).toBe(200);
  return reply.body.data.id;
}

/** An order's status as history shows it. */
export async function statusOf(sim: Simulator, orderId: string, apiKey = 'demo-key'): Promise<string> {
  return (await callGet(sim, `/v1/tron/history?orderId=${orderId}`, apiKey)).body.data.status;
}

/** The account's orders as the control plane lists them. */
export const ordersOf = async (sim: Simulator, apiKey = 'demo-key') =>
  (await get(sim, '/_sim/orders', apiKey)).body.orders as { orderId: string; status: string }[];

/** Creates an account via the control plane: `const { apiKey } = await createAccount(sim, { balance })`. */
export async function createAccount(
  sim: Simulator,
  request: Record<string, unknown>,
): Promise<{ apiKey: string; walletAddress: string }> {
  const reply = await call(sim, 'POST', '/_sim/accounts', { body: request });
  expect(reply.status).toBe(201);
  return reply.body;
}

/** The account's TRX, available and frozen. */
export async function trxOf(
  sim: Simulator,
  apiKey = 'demo-key',
): Promise<{ available: string; frozen: string }> {
  const { balance } = (await callGet(sim, '/v1/account', apiKey)).body.data;
  return { available: balance.available.trx, frozen: balance.frozen.trx };
}

/** Fails unless the reply is the error envelope of that status, code and `msg`, valid in both documents. */
export function expectError(reply: Reply, status: number, code: number, msg?: RegExp): void {
  expect(reply.status).toBe(status);
  expect(reply.body).toEqual({
    code,
    msg: msg ? expect.stringMatching(msg) : expect.any(String),
    time: expect.stringMatching(/^\d+$/),
    data: null,
  });
  expectValid(api.schema('ErrorEnvelope'), reply.body);
  expectValid(control.schema('Error'), reply.body);
}
