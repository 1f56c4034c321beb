/** The order lifecycle as one table: from each open status, the status it moves to and when. */
import type { Order, OrderStatusCode, TimelineStep } from './order.ts';
import { PERIOD_MS } from './pricing.ts';

interface Transition {
  /** The status the order moves to. */
  to(order: Order): OrderStatusCode;
  /** When, Unix ms: the order's planned delay from its creation. */
  dueAt(order: Order): number;
}

const TRANSITIONS: Partial<Record<OrderStatusCode, Transition>> = {
  PENDING: { to: () => 'PROCESSING', dueAt: (o) => o.createdAt + o.processingAfter },
  // The outcome was drawn at creation; a limited supply may still turn it FAILED on entering PROCESSING.
  PROCESSING: { to: (o) => o.outcome, dueAt: (o) => o.createdAt + o.outcomeAfter },
  FAILED: { to: () => 'REFUNDED', dueAt: (o) => o.createdAt + o.refundAfter },
};

/** A step an order will take: the status it moves to, and when. */
export type NextStep = Omit<TimelineStep, 'note'>;

/**
 * The next status change of an order, or undefined when its status is final.
 *
 * @example
 *   nextStep(order); // { status: 'PROCESSING', at: order.createdAt + order.processingAfter } while PENDING
 */
export function nextStep(order: Order): NextStep | undefined {
  const transition = TRANSITIONS[order.status];
  return transition && { status: transition.to(order), at: transition.dueAt(order) };
}

/**
 * When the engine must next look at an order: its next step, or the end of a rental holding supply.
 *
 * @example
 *   wakeAt(completedReservedOrder); // order.outcomeAt + PERIOD_MS[order.period]
 */
export function wakeAt(order: Order): number | undefined {
  const next = TRANSITIONS[order.status];
  if (next) return next.dueAt(order);
  return order.status === 'COMPLETED' && order.reserved
    ? order.outcomeAt + PERIOD_MS[order.period]
    : undefined;
}
