/** The typed client of the Energy Rental API: each method one operation of spec/openapi.yaml. */
import type {
  Account,
  HistoryQuery,
  Order,
  OrderCreated,
  OrderRequest,
  PriceQuery,
  PriceQuote,
} from '../models.ts';
import type { Exchange } from './exchange.ts';
import { sendRequest, type Transport } from './send-request.ts';
import { waitForEnergy, type TronNode, type WaitForEnergyOptions } from './wait-for-energy.ts';
import {
  POLLING_CLOCK,
  waitForOrder,
  type OrderRef,
  type PollingClock,
  type WaitForOrderOptions,
} from './wait-for-order.ts';

export interface ClientOptions {
  /** e.g. 'https://api.eopen.io/api' or 'http://127.0.0.1:8787'; a trailing slash is tolerated. */
  baseUrl: string;
  /** Sent as the `API-KEY` header; omitted when undefined or empty. */
  apiKey?: string;
  /** The swap point: called with one `Request`. Default `globalThis.fetch`. */
  fetch?: (request: Request) => Promise<Response> | Response;
  /** Per request, until the whole body is read. Default 10_000. */
  timeoutMs?: number;
  /** Called once per HTTP exchange, failed ones included. What it throws reaches the caller. */
  onResponse?: (exchange: Exchange) => void;
  /** Used by `waitForOrder` and `waitForEnergy` only. Default: the clock `fetch` carries (a manual-clock simulator's: waiting moves it), else setTimeout. */
  sleep?: (ms: number) => Promise<void>;
  /** Used by `waitForOrder` and `waitForEnergy` only. Default: the clock `fetch` carries, else Date.now. */
  now?: () => number;
  /**
   * The TRON node `waitForEnergy` reads (java-tron's HTTP API), e.g. 'https://api.trongrid.io'.
   * Default `baseUrl`: a simulator serves the node's subset on its own port.
   */
  tronNode?: string;
  /** Sent to the TRON node as `TRON-PRO-API-KEY` (TronGrid's quota key); never to the rental API. */
  tronProApiKey?: string;
}

/** Every method throws an `EnergyRentalError` when the call fails. */
export interface EnergyRentalClient {
  /**
   * Creates an order (form body). Never retried: a retry after a lost response could
   * place, and pay for, a second order. Pass an `outOrderNo` to look it up later.
   *
   * @example
   *   const { id } = await client.createOrder({ pledgeAddress: 'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3', rentalCount: 65000, period: '1h' });
   */
  createOrder(params: OrderRequest): Promise<OrderCreated>;
  /**
   * Estimates the price of an order.
   *
   * @example
   *   const { trxPrice } = await client.getPrice({ rentalCount: 65000, period: '1h' }); // '4.23'
   */
  getPrice(query: PriceQuery): Promise<PriceQuote>;
  /**
   * Looks one order up by `orderId` or `outOrderNo`.
   *
   * @example
   *   const { status } = await client.getOrderHistory({ orderId: 'OR20250312175009BJ1QRQH7' });
   */
  getOrderHistory(query: HistoryQuery): Promise<Order>;
  /**
   * Reads the account of the key. Also accepts the provider's `code` 1 with a success message.
   *
   * @example
   *   const { balance } = await client.getAccount(); // balance.available.usdt === '0.031748'
   */
  getAccount(): Promise<Account>;
  /**
   * Polls the history until the order is COMPLETED, FAILED or REFUNDED. Transient failures
   * (network, timeout, invalid body, 5xx, 429) are retried until the deadline, then `timeout`.
   *
   * @example
   *   const order = await client.waitForOrder({ orderId: id }, { onStatus: (status) => console.log(status) });
   */
  waitForOrder(ref: OrderRef, options?: WaitForOrderOptions): Promise<Order>;
  /**
   * Reads the TRON node until `address` can spend at least `energy`, and returns what it read;
   * errors as `waitForOrder`'s.
   *
   * @example
   *   await client.waitForEnergy('TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3', 65000, { timeoutMs: 30_000 });
   */
  waitForEnergy(address: string, energy: number, options?: WaitForEnergyOptions): Promise<number>;
}

/**
 * Creates a client. Nothing is sent until a method is called.
 *
 * @example
 *   const client = createClient({ baseUrl: 'http://127.0.0.1:8787', apiKey: 'demo-key' });
 *   const quote = await client.getPrice({ rentalCount: 65000, period: '1h' });
 *
 *   // In-process against a Hono app, no socket:
 *   const local = createClient({ baseUrl: 'http://mock', apiKey: 'demo-key', fetch: (request) => app.request(request) });
 */
export function createClient(options: ClientOptions): EnergyRentalClient {
  const { timeoutMs = 10_000 } = options;
  new URL(options.baseUrl); // throws a TypeError now rather than on the first call
  if (!(timeoutMs > 0)) throw new RangeError(`createClient: timeoutMs must be positive (got ${timeoutMs}).`);

  const transport: Transport = {
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    apiKey: options.apiKey,
    // Looked up at call time and never called as a method, so that it works unbound and under stubs.
    fetch: options.fetch ?? ((request) => globalThis.fetch(request)),
    timeoutMs,
    onResponse: options.onResponse,
  };
  // A simulator's fetch with a manual clock brings that clock: waiting moves it (POLLING_CLOCK).
  const carried = (options.fetch as { [POLLING_CLOCK]?: PollingClock } | undefined)?.[POLLING_CLOCK];
  const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
  const clock = {
    now: options.now ?? carried?.now ?? Date.now,
    sleep: options.sleep ?? carried?.sleep ?? wait,
  };
  const getOrderHistory = (query: HistoryQuery) => sendRequest(transport, 'getOrderHistory', { query });
  const node: TronNode = {
    url: options.tronNode ?? transport.baseUrl,
    fetch: transport.fetch,
    timeoutMs,
    apiKey: options.tronProApiKey,
  };

  return {
    createOrder: (params) => sendRequest(transport, 'createOrder', { form: params }),
    getPrice: (query) => sendRequest(transport, 'getPrice', { query }),
    getOrderHistory,
    getAccount: () => sendRequest(transport, 'getAccount'),
    waitForOrder: (ref, waitOptions) => waitForOrder(getOrderHistory, clock, ref, waitOptions),
    waitForEnergy: (address, energy, waitOptions) => waitForEnergy(node, clock, address, energy, waitOptions),
  };
}
