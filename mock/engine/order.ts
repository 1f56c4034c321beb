/** One order; its timeline is derived from the times of its steps, so it cannot be reordered. */
import type { components } from '../../src/generated/control.ts';
import { ORDER_STATUSES } from '../../src/generated/lists.ts';
import type { Account } from './accounts.ts';
import type { CurrencyCode } from './money.ts';
import type { Outcome } from './outcome-rules.ts';
import type { PeriodCode } from './pricing.ts';

/** spec/openapi.yaml's OrderStatus enum. */
export { ORDER_STATUSES };
export type OrderStatusCode = (typeof ORDER_STATUSES)[number];

export type TimelineStep = components['schemas']['TimelineStep'];

/** What a caller asks for when it creates an order (the API's create order parameters). */
export interface CreateOrderInput {
  pledgeAddress: string;
  rentalCount: number;
  period: PeriodCode;
  outOrderNo?: string | undefined;
}

/** An order as the state file keeps it: spec/control.yaml's StateOrder. */
export type OrderSnapshot = components['schemas']['StateOrder'];

/** Everything an order is created with: the request, and what the engine decided about it. */
type OrderInit = Omit<
  OrderSnapshot,
  'accountId' | 'status' | 'processingAt' | 'outcomeAt' | 'refundedAt' | 'refunds' | 'reserved'
> & {
  account: Account;
  delegationMs?: number | undefined;
};

export class Order {
  declare readonly id: string;
  declare readonly account: Account;
  declare readonly pledgeAddress: string;
  declare readonly rentalCount: number;
  declare readonly period: PeriodCode;
  declare readonly outOrderNo: string | undefined;
  declare readonly currency: CurrencyCode;
  /** Charged, in smallest units. */
  declare readonly amount: number;
  declare readonly createdAt: number;
  /** Drawn at creation, so the same seed gives the same txIds whatever the timing. */
  declare readonly plannedTxId: string;
  /** What the order comes to; supply shortage may turn COMPLETED into FAILED while processing. */
  declare outcome: Outcome;
  /** A rule or a Prefer decided the outcome: supply shortage does not override it. */
  declare readonly forced: boolean;
  /** It activates its pledge address when processing starts. */
  declare readonly activates: boolean;
  /** Planned delays from creation, ms. */
  declare readonly processingAfter: number;
  declare readonly outcomeAfter: number;
  declare readonly refundAfter: number;
  /** How long its energy stays delegated when a rule said so; the period when undefined. */
  declare readonly delegationMs: number | undefined;
  status: OrderStatusCode = 'PENDING';
  /** Times of each step, Unix ms; 0 until `status` has reached the step. */
  processingAt = 0;
  outcomeAt = 0;
  refundedAt = 0;
  /** Refunds booked: exactly one for a REFUNDED order. */
  refunds = 0;
  /** Energy reserved from a limited supply, returned when the rental ends. */
  reserved = false;
  failureReason: string | undefined = undefined;

  /**
   * @example
   *   const order = new Order({ id, account, pledgeAddress, rentalCount: 65_000, period: '1h', currency: 'TRX',
   *     amount: 4_230_000, createdAt: clock.now(), plannedTxId, outcome: 'COMPLETED', forced: false,
   *     activates: false, processingAfter: 500, outcomeAfter: 3000, refundAfter: 5000 });
   *   order.status; // 'PENDING'
   */
  constructor(init: OrderInit) {
    Object.assign(this, init);
  }

  /** The delegation's transaction id, once delegation happened. */
  get txId(): string {
    return this.status === 'COMPLETED' ? this.plannedTxId : '';
  }

  timeline(): TimelineStep[] {
    // Which steps happened follows from the status alone; the times say when.
    const status = this.status;
    const steps: TimelineStep[] = [{ status: 'PENDING', at: this.createdAt }];
    if (status === 'PENDING') return steps;
    steps.push(
      this.activates
        ? { status: 'PROCESSING', at: this.processingAt, note: 'activated the pledge address' }
        : { status: 'PROCESSING', at: this.processingAt },
    );
    if (status === 'PROCESSING') return steps;
    const outcome: TimelineStep = { status: this.outcome, at: this.outcomeAt };
    if (this.failureReason) outcome.note = this.failureReason;
    steps.push(outcome);
    if (status === 'REFUNDED') steps.push({ status: 'REFUNDED', at: this.refundedAt });
    return steps;
  }

  /**
   * The order as the state file keeps it.
   *
   * @example
   *   JSON.stringify(order.toSnapshot()); // one element of a state file's orders
   */
  toSnapshot(): OrderSnapshot {
    return {
      id: this.id,
      accountId: this.account.id,
      pledgeAddress: this.pledgeAddress,
      rentalCount: this.rentalCount,
      period: this.period,
      currency: this.currency,
      amount: this.amount,
      createdAt: this.createdAt,
      ...(this.outOrderNo !== undefined ? { outOrderNo: this.outOrderNo } : {}),
      plannedTxId: this.plannedTxId,
      outcome: this.outcome,
      forced: this.forced,
      activates: this.activates,
      processingAfter: this.processingAfter,
      outcomeAfter: this.outcomeAfter,
      refundAfter: this.refundAfter,
      status: this.status,
      processingAt: this.processingAt,
      outcomeAt: this.outcomeAt,
      refundedAt: this.refundedAt,
      refunds: this.refunds,
      reserved: this.reserved,
      ...(this.failureReason !== undefined ? { failureReason: this.failureReason } : {}),
      ...(this.delegationMs !== undefined ? { delegationMs: this.delegationMs } : {}),
    };
  }

  /** Sets what a step of the saved order changed: its status, the times of its steps and its books' marks. */
  restoreProgress(saved: OrderSnapshot): void {
    this.status = saved.status;
    this.outcome = saved.outcome;
    this.processingAt = saved.processingAt;
    this.outcomeAt = saved.outcomeAt;
    this.refundedAt = saved.refundedAt;
    this.refunds = saved.refunds;
    this.reserved = saved.reserved;
    this.failureReason = saved.failureReason;
  }

  /**
   * An order back from the state file, on its account, as far along as it was saved.
   *
   * @example
   *   const order = Order.fromSnapshot(account, saved.orders[0]);
   */
  static fromSnapshot(account: Account, { accountId: _id, ...saved }: OrderSnapshot): Order {
    return new Order({ ...saved, account });
  }
}
