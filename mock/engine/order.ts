/**
 * One order. Its timeline is derived from the times of its steps rather than stored
 * as a list, which keeps a stored order small and its history impossible to reorder.
 */
import type { Account } from './accounts.ts';
import type { CurrencyCode } from './money.ts';
import type { Outcome } from './outcome-rules.ts';
import type { PeriodCode } from './pricing.ts';

export const ORDER_STATUSES = ['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'REFUNDED'] as const;
export type OrderStatusCode = (typeof ORDER_STATUSES)[number];
export const TERMINAL_STATUSES: ReadonlySet<OrderStatusCode> = new Set(['COMPLETED', 'REFUNDED']);

export interface TimelineStep {
  status: OrderStatusCode;
  at: number;
  note?: string;
}

export class Order {
  status: OrderStatusCode = 'PENDING';
  /** Times of each step, Unix ms; 0 until the step happens. */
  processingAt = 0;
  outcomeAt = 0;
  refundedAt = 0;
  /** How many refunds were booked: the invariant is exactly one for a REFUNDED order. */
  refunds = 0;
  /** Energy reserved from a limited supply, returned when the rental ends. */
  reserved = false;
  failureReason: string | undefined = undefined;

  constructor(
    readonly id: string,
    readonly account: Account,
    readonly pledgeAddress: string,
    readonly rentalCount: number,
    readonly period: PeriodCode,
    readonly currency: CurrencyCode,
    /** Charged amount in smallest units (sun or micro-USDT). */
    readonly amount: number,
    readonly createdAt: number,
    readonly outOrderNo: string | undefined,
    /** Drawn at creation so that the same seed gives the same txIds whatever the timing. */
    readonly plannedTxId: string,
    public outcome: Outcome,
    /** True when a rule decided the outcome; supply shortage then does not override it. */
    readonly forced: boolean,
    readonly activates: boolean,
    /** Planned delays from creation, ms. */
    readonly processingAfter: number,
    readonly outcomeAfter: number,
    readonly refundAfter: number,
  ) {}

  /** The delegation's transaction id, once delegation happened. */
  get txId(): string {
    return this.status === 'COMPLETED' ? this.plannedTxId : '';
  }

  get isOpen(): boolean {
    return this.status === 'PENDING' || this.status === 'PROCESSING' || this.status === 'FAILED';
  }

  timeline(): TimelineStep[] {
    const steps: TimelineStep[] = [{ status: 'PENDING', at: this.createdAt }];
    if (this.processingAt) {
      steps.push(this.activates ? { status: 'PROCESSING', at: this.processingAt, note: 'activated the pledge address' } : { status: 'PROCESSING', at: this.processingAt });
    }
    if (this.outcomeAt) {
      const step: TimelineStep = { status: this.outcome, at: this.outcomeAt };
      if (this.failureReason) step.note = this.failureReason;
      steps.push(step);
    }
    if (this.refundedAt) steps.push({ status: 'REFUNDED', at: this.refundedAt });
    return steps;
  }
}
