/**
 * The requests every load and profile sends to the bench scenario's account: one place,
 * so the load rows and the CPU profiles measure the same thing.
 */
import type { LoadTarget } from './load.ts';
import { BENCH_KEY, PLEDGE_ADDRESS, type RunningServer } from './servers.ts';

export const AUTH = { 'API-KEY': BENCH_KEY };
export const FORM_HEADERS = { ...AUTH, 'content-type': 'application/x-www-form-urlencoded' };
/** No outOrderNo: every request creates an order. */
export const ORDER_BODY = `pledgeAddress=${PLEDGE_ADDRESS}&rentalCount=65000&period=1h`;

export const priceTarget = (sim: RunningServer): LoadTarget => ({
  url: `${sim.url}/v1/tron/price?rentalCount=65000&period=1h`,
  headers: AUTH,
});
/** A price read with a key that names no account: every answer the 401 of an unknown key. */
export const unknownKeyTarget = (sim: RunningServer): LoadTarget => ({
  url: `${sim.url}/v1/tron/price?rentalCount=65000&period=1h`,
  headers: { 'API-KEY': 'bench-unknown-key' },
  expect: { status: 401, code: 10002 },
});
export const orderTarget = (sim: RunningServer): LoadTarget => ({
  url: `${sim.url}/v1/tron/order`,
  method: 'POST',
  headers: FORM_HEADERS,
  body: ORDER_BODY,
});
export const accountTarget = (sim: RunningServer): LoadTarget => ({
  url: `${sim.url}/v1/account`,
  headers: AUTH,
});
export const historyTarget = (
  sim: RunningServer,
  by: 'orderId' | 'outOrderNo',
  value: string,
): LoadTarget => ({
  url: `${sim.url}/v1/tron/history?${by}=${value}`,
  headers: AUTH,
});

/** The order the history loads look up. */
export interface HistoryOrder {
  orderId: string;
  outOrderNo: string;
}

/**
 * Creates the order the history loads look up; throws when the simulator refuses it.
 *
 * @example
 *   const { orderId } = await createHistoryOrder(sim);
 */
export async function createHistoryOrder(
  sim: RunningServer,
  outOrderNo = 'bench-history',
): Promise<HistoryOrder> {
  const res = await fetch(`${sim.url}/v1/tron/order`, {
    method: 'POST',
    headers: FORM_HEADERS,
    body: `${ORDER_BODY}&outOrderNo=${outOrderNo}`,
  });
  const body = (await res.json()) as { code: number; data: { id: string } };
  if (res.status !== 200 || body.code !== 0)
    throw new Error(`could not create the history order: HTTP ${res.status} ${JSON.stringify(body)}`);
  return { orderId: body.data.id, outOrderNo };
}
