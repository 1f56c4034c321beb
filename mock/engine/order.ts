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
  /** Times of each step, Unix ms; meaningful once `status` has reached the step. */
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
    // Which steps happened follows from the status alone; the times say when.
    const steps: TimelineStep[] = [{ status: 'PENDING', at: this.createdAt }];
    if (this.status === 'PENDING') return steps;
    steps.push(this.activates ? { status: 'PROCESSING', at: this.processingAt, note: 'activated the pledge address' } : { status: 'PROCESSING', at: this.processingAt });
    if (this.status === 'PROCESSING') return steps;
    const outcome: TimelineStep = { status: this.outcome, at: this.outcomeAt };
    if (this.failureReason) outcome.note = this.failureReason;
    steps.push(outcome);
    if (this.status === 'REFUNDED') steps.push({ status: 'REFUNDED', at: this.refundedAt });
    return steps;
  }
}
