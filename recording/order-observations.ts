/** Each order's lifecycle in a recording: the statuses its history answers showed, when by the server's clock. */
import { TIMED_STATUSES, type Interaction, type TimedStatus, type Timing } from './recording.ts';

export interface OrderObservation {
  /** The test file: each file of an in-process run has a simulator of its own, so ids repeat across files. */
  file: string;
  orderId: string;
  /** Creation time, Unix seconds (fractional). */
  createdAt: number;
  /** Each history response, in the order the server answered. */
  seen: Array<{ status: string; time: number }>;
}

export type TimeUnit = 'seconds' | 'milliseconds' | 'microseconds';

/** The unit of a Unix time by its magnitude. */
export function timeUnit(value: number): TimeUnit {
  const magnitude = Math.abs(value);
  return magnitude >= 1e14 ? 'microseconds' : magnitude >= 1e11 ? 'milliseconds' : 'seconds';
}

const PER_SECOND = { seconds: 1, milliseconds: 1e3, microseconds: 1e6 };

/** Unix seconds from a number or numeric string in seconds, milliseconds or microseconds. */
export function toUnixSeconds(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d+(\.\d+)?$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) ? n / PER_SECOND[timeUnit(n)] : undefined;
}

/**
 * Collects every order seen in successful history responses.
 *
 * @example
 *   observeOrders(recording.interactions)[0].seen.map((s) => s.status); // ['PENDING', 'PROCESSING', 'COMPLETED']
 */
export function observeOrders(interactions: Interaction[]): OrderObservation[] {
  const orders = new Map<string, OrderObservation>();
  for (const { operation, response, file } of interactions) {
    if (operation !== 'getOrderHistory' || !response || response.status >= 300) continue;
    const body = response.body as { time?: unknown; data?: Record<string, unknown> | null } | undefined;
    const { orderId, status, createdAt } = body?.data ?? {};
    const time = toUnixSeconds(body?.time);
    const created = toUnixSeconds(createdAt);
    if (
      typeof orderId !== 'string' ||
      typeof status !== 'string' ||
      time === undefined ||
      created === undefined
    )
      continue;
    const key = `${file}\n${orderId}`;
    if (!orders.has(key)) orders.set(key, { file, orderId, createdAt: created, seen: [] });
    orders.get(key)!.seen.push({ status, time });
  }
  // Server time first (concurrent polls may finish out of order), then recorded order: sort is stable.
  for (const order of orders.values()) order.seen.sort((a, b) => a.time - b.time);
  return [...orders.values()];
}

/** The distinct statuses an order went through, e.g. 'PENDING → PROCESSING → COMPLETED'. */
export function statusPath(order: OrderObservation): string[] {
  const path: string[] = [];
  for (const { status } of order.seen) if (path.at(-1) !== status) path.push(status);
  return path;
}

/** Every status path of a recording, with how many orders took it. */
export function statusPaths(interactions: Interaction[]): Map<string, number> {
  const paths = new Map<string, number>();
  for (const order of observeOrders(interactions)) {
    const key = statusPath(order).join(' → ');
    paths.set(key, (paths.get(key) ?? 0) + 1);
  }
  return paths;
}

const round3 = (n: number): number => Math.round(n * 1000) / 1000;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return round3(sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2);
}

/** A recording's timing: per order, seconds from creation to the first answer of each status; medians. */
export function computeTiming(interactions: Interaction[]): Timing {
  const orders: Timing['orders'] = [];
  let wholeSeconds = false;
  for (const order of observeOrders(interactions)) {
    const secondsToStatus: Partial<Record<TimedStatus, number>> = {};
    for (const { status, time } of order.seen) {
      const timed = status as TimedStatus;
      if (!TIMED_STATUSES.includes(timed) || secondsToStatus[timed] !== undefined) continue;
      // A time in whole seconds is the second the answer left in: `createdAt` is floored to match.
      const whole = Number.isInteger(time);
      if (whole) wholeSeconds = true;
      secondsToStatus[timed] = round3(time - (whole ? Math.floor(order.createdAt) : order.createdAt));
    }
    orders.push({ orderId: order.orderId, file: order.file, secondsToStatus });
  }
  const medianSecondsTo: Partial<Record<TimedStatus, number>> = {};
  for (const status of TIMED_STATUSES) {
    const values = orders.map((o) => o.secondsToStatus[status]).filter((v): v is number => v !== undefined);
    if (values.length > 0) medianSecondsTo[status] = median(values);
  }
  return {
    orders,
    summary: { orders: orders.length, medianSecondsTo },
    resolutionSeconds: wholeSeconds || orders.length === 0 ? 1 : 0.001,
  };
}
