/** Polling the order history until an order settles: creation answers at once, the outcome comes later. */
import type { HistoryQuery, Order, OrderId, OrderStatus, OutOrderNo } from '../models.ts';
import { EnergyRentalError } from './energy-rental-error.ts';

/** Which order to wait for: the id from order creation, or the caller's own number. */
export type OrderRef = { orderId: OrderId } | { outOrderNo: OutOrderNo };

export interface WaitForOrderOptions {
  /** Give up after this many ms of the client's `now` clock. Default 60_000. */
  timeoutMs?: number;
  /** Pause between two lookups, in ms. Default 1_000. */
  intervalMs?: number;
  /** Called with the first status observed, then once on each change. */
  onStatus?: (status: OrderStatus, order: Order) => void;
}

/** The clock polling runs on, injectable so that tests take no real time. */
export interface PollingClock {
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

/**
 * Where a `fetch` may carry the clock its answers run on: a manual-clock simulator's fetch
 * carries one whose `sleep` moves its time, so a client over it waits by moving that clock.
 *
 * @example
 *   const client = createClient({ baseUrl: 'http://sim', apiKey: 'demo-key', fetch: createSimulator({ clock: 'manual' }).fetch });
 *   await client.waitForOrder({ orderId }); // advances the simulator's clock
 */
export const POLLING_CLOCK: unique symbol = Symbol.for('energy-rental-kit.polling-clock') as never;

/** Where polling stops: the spec says to poll until COMPLETED, FAILED or REFUNDED (FAILED comes before REFUNDED). */
export const TERMINAL_STATUSES: ReadonlySet<OrderStatus> = new Set<OrderStatus>([
  'COMPLETED',
  'FAILED',
  'REFUNDED',
]);

/**
 * Looks the order up every `intervalMs` until COMPLETED, FAILED or REFUNDED; errors as `poll`'s.
 *
 * @example
 *   const order = await waitForOrder(client.getOrderHistory, { now: Date.now, sleep }, { orderId: 'OR20250312175009BJ1QRQH7' }, {
 *     onStatus: (status) => console.log(status),
 *   });
 */
export async function waitForOrder(
  getOrderHistory: (query: HistoryQuery) => Promise<Order>,
  clock: PollingClock,
  ref: OrderRef,
  options: WaitForOrderOptions = {},
): Promise<Order> {
  const query: HistoryQuery = 'orderId' in ref ? { orderId: ref.orderId } : { outOrderNo: ref.outOrderNo };
  const named = 'orderId' in ref ? `order '${ref.orderId}'` : `order with outOrderNo '${ref.outOrderNo}'`;
  const { onStatus } = options;
  return poll(clock, 'waitForOrder', options, {
    read: () => getOrderHistory(query),
    shown: (order) => order.status,
    onChange: onStatus && ((order) => onStatus(order.status, order)),
    done: (order) => TERMINAL_STATUSES.has(order.status),
    timedOut: (timeoutMs, last) =>
      `${named} did not reach COMPLETED, FAILED or REFUNDED within ${timeoutMs} ms (timeout); ${last === undefined ? 'no status seen' : `last status seen: ${last.status}`}`,
  });
}

/**
 * Reads every `intervalMs` until `done`, telling each change of `shown`; transient failures (network,
 * timeout, invalid body, 5xx, 429) are retried until the deadline, then a `timeout` error says `timedOut`.
 *
 * @example
 *   await poll(clock, 'waitForEnergy', { timeoutMs: 5000 }, { read, shown: (n) => n, done: (n) => n > 0, timedOut });
 */
export async function poll<T>(
  clock: PollingClock,
  operation: 'waitForOrder' | 'waitForEnergy',
  { timeoutMs = 60_000, intervalMs = 1_000 }: { timeoutMs?: number; intervalMs?: number },
  step: {
    read: () => Promise<T>;
    shown: (value: T) => unknown;
    onChange?: ((value: T) => void) | undefined;
    done: (value: T) => boolean;
    timedOut: (timeoutMs: number, last: T | undefined) => string;
  },
): Promise<T> {
  // A zero interval would hammer the service in a tight loop.
  if (!(intervalMs > 0))
    throw new RangeError(`${operation}: intervalMs must be positive (got ${intervalMs}).`);
  if (!(timeoutMs >= 0))
    throw new RangeError(`${operation}: timeoutMs must not be negative (got ${timeoutMs}).`);
  const deadline = clock.now() + timeoutMs;
  let last: T | undefined;
  let lastError: EnergyRentalError | undefined;
  for (;;) {
    try {
      const value = await step.read();
      if (last === undefined || step.shown(value) !== step.shown(last)) step.onChange?.(value);
      last = value;
      if (step.done(value)) return value;
    } catch (error) {
      if (!isTransient(error)) throw error;
      lastError = error;
    }
    const remaining = deadline - clock.now();
    if (remaining <= 0) {
      const failure = lastError ? `; last error: ${lastError.message}` : '';
      throw new EnergyRentalError(`${step.timedOut(timeoutMs, last)}${failure}`, {
        operation,
        kind: 'timeout',
        cause: lastError,
      });
    }
    await clock.sleep(Math.min(intervalMs, remaining));
  }
}

function isTransient(error: unknown): error is EnergyRentalError {
  if (!(error instanceof EnergyRentalError)) return false;
  if (error.kind === 'network' || error.kind === 'timeout' || error.kind === 'invalid-body') return true;
  return error.kind === 'http' && error.status !== undefined && (error.status >= 500 || error.status === 429);
}
