/**
 * One order. Its timeline is derived from the times of its steps rather than stored
 * as a list, which keeps a stored order small and its history impossible to reorder.
 *
 * A million stored orders must fit in 400 bytes each, so the object holds 7 fields
 * (80 B) where it had 23 (208 B, plus 16 B for each time boxed as a HeapNumber): its
 * times, planned delays, amount and txId live in a row of an `OrderPage` (typed arrays,
 * 72 B, see order-page.ts), and its row, status, outcome, period, currency, booleans and
 * refund count are packed into one small integer. The getters and setters below give
 * callers the same properties as plain fields did. The page comes from the engine's
 * allocator (`createOrderPages()`), so nothing here is shared between engines.
 */
import type { components } from '../../src/generated/control.ts';
import { ORDER_STATUSES } from '../../src/generated/lists.ts';
import type { Account } from './accounts.ts';
import type { CurrencyCode } from './money.ts';
import {
  ORDER_NUMBERS,
  ROWS_PER_PAGE,
  type OrderNumber,
  type OrderPage,
  type OrderPages,
  type RareParts,
} from './order-page.ts';
import type { Outcome } from './outcome-rules.ts';
import { PERIODS, type PeriodCode } from './pricing.ts';

/** spec/openapi.yaml's OrderStatus enum. */
export { ORDER_STATUSES };
export type OrderStatusCode = (typeof ORDER_STATUSES)[number];
export const TERMINAL_STATUSES: ReadonlySet<OrderStatusCode> = new Set(['COMPLETED', 'REFUNDED']);

export interface TimelineStep {
  status: OrderStatusCode;
  at: number;
  note?: string;
}

// The bits of `Order.flags`. It stays below 2^30, a small integer (no heap box), and
// every field it replaces would have cost 8 B.
const ROW_MASK = 0xff; // the order's row in its page
const STATUS_SHIFT = 8;
const STATUS_MASK = 0b111 << STATUS_SHIFT; // index in ORDER_STATUSES
const OUTCOME_FAILED = 1 << 11; // else COMPLETED
const PERIOD_SHIFT = 12;
const PERIOD_MASK = 0b111 << PERIOD_SHIFT; // index in PERIODS
const CURRENCY_USDT = 1 << 15; // else TRX
const FORCED = 1 << 16;
const ACTIVATES = 1 << 17;
const RESERVED = 1 << 18;
const HAS_RARE = 1 << 19; // has rare parts on its page (see RareParts in order-page.ts)
const REFUND_SHIFT = 20; // the refund count, from this bit up
const MAX_REFUNDS = 2 ** (30 - REFUND_SHIFT) - 1;
const CURRENCIES: readonly CurrencyCode[] = ['TRX', 'USDT'];
const OUTCOMES: readonly Outcome[] = ['COMPLETED', 'FAILED'];
if (
  ROWS_PER_PAGE - 1 > ROW_MASK ||
  ORDER_STATUSES.length - 1 > STATUS_MASK >> STATUS_SHIFT ||
  PERIODS.length - 1 > PERIOD_MASK >> PERIOD_SHIFT
) {
  throw new Error('Order: the packed flags are too narrow for the rows, statuses or periods');
}

function indexIn<T>(list: readonly T[], value: T, what: string): number {
  const index = list.indexOf(value);
  if (index === -1)
    throw new Error(`Order: unknown ${what} '${String(value)}'; expected one of ${list.join(', ')}.`);
  return index;
}

/** A new order's status bits: PENDING sits wherever the spec's enum lists it. */
const PENDING_FLAGS = indexIn<OrderStatusCode>(ORDER_STATUSES, 'PENDING', 'status') << STATUS_SHIFT;
/** One bit per status index, set for the open ones, so `isOpen` reads the flags without a lookup. */
const OPEN_STATUSES = (['PENDING', 'PROCESSING', 'FAILED'] as const).reduce(
  (bits, status) => bits | (1 << indexIn<OrderStatusCode>(ORDER_STATUSES, status, 'status')),
  0,
);

/** What a caller asks for when it creates an order (the API's create order parameters). */
export interface CreateOrderInput {
  pledgeAddress: string;
  rentalCount: number;
  period: PeriodCode;
  outOrderNo?: string | undefined;
}

/** What the engine decides about a new order; with its CreateOrderInput, all an order is created with. */
export interface OrderMade {
  id: string;
  account: Account;
  currency: CurrencyCode;
  /** Charged amount in smallest units (sun or micro-USDT). */
  amount: number;
  /** Unix ms. */
  createdAt: number;
  /** Drawn at creation so that the same seed gives the same txIds whatever the timing: 32 bytes, or 64 hex digits. */
  plannedTxId: Uint8Array | string;
  outcome: Outcome;
  /** True when a rule decided the outcome; supply shortage then does not override it. */
  forced: boolean;
  /** True when this order activates its pledge address when processing starts. */
  activates: boolean;
  /** Planned delays from creation, ms. */
  processingAfter: number;
  outcomeAfter: number;
  refundAfter: number;
  /** How long its energy stays delegated on chain, when a rule says so instead of the period. */
  delegationMs?: number | undefined;
}

/** What an order is created with; everything else follows from its steps. */
export interface OrderInit extends CreateOrderInput, OrderMade {}

/**
 * An order as the state file keeps it: spec/control.yaml's StateOrder. A stored field is
 * added in the spec, and read and written in `toSnapshot` and `fromSnapshot`.
 */
export type OrderSnapshot = components['schemas']['StateOrder'];

export class Order {
  /** Row in the page, status, outcome, period, currency, booleans and refund count; see the bits above. */
  private flags: number;
  private readonly page: OrderPage;

  readonly id: string;
  readonly account: Account;
  readonly pledgeAddress: string;
  readonly rentalCount: number;
  readonly outOrderNo: string | undefined;

  /**
   * @example
   *   const pages = createOrderPages(); // one per engine
   *   const order = new Order(pages, { id, account, pledgeAddress, rentalCount: 65_000, period: '1h', currency: 'TRX',
   *     amount: 4_230_000, createdAt: clock.now(), plannedTxId: txIdBytes, outcome: 'COMPLETED', forced: false,
   *     activates: false, processingAfter: 500, outcomeAfter: 3000, refundAfter: 5000 });
   *   order.status; // 'PENDING'
   */
  constructor(pages: OrderPages, init: OrderInit);
  /** The engine's form: what the caller asked for apart from what the engine made of it. */
  constructor(pages: OrderPages, made: OrderMade, request: CreateOrderInput);
  constructor(
    /** The engine's page allocator, where the order takes its row. */
    pages: OrderPages,
    made: OrderMade,
    request: CreateOrderInput = made as OrderInit,
  ) {
    const {
      currency,
      amount,
      createdAt,
      plannedTxId,
      outcome,
      forced,
      activates,
      processingAfter,
      outcomeAfter,
      refundAfter,
    } = made;
    const { period } = request;
    this.id = made.id;
    this.account = made.account;
    this.pledgeAddress = request.pledgeAddress;
    this.rentalCount = request.rentalCount;
    this.outOrderNo = request.outOrderNo;
    const page = pages.pageWithFreeRow();
    this.page = page;
    this.flags =
      page.takeRow() |
      PENDING_FLAGS |
      (indexIn(PERIODS, period, 'period') << PERIOD_SHIFT) |
      (indexIn(CURRENCIES, currency, 'currency') === 1 ? CURRENCY_USDT : 0) |
      (indexIn(OUTCOMES, outcome, 'outcome') === 1 ? OUTCOME_FAILED : 0) |
      (forced ? FORCED : 0) |
      (activates ? ACTIVATES : 0);
    // createdAt first: the later step times are kept relative to it.
    this.setNumber(ORDER_NUMBERS.createdAt, createdAt);
    this.setNumber(ORDER_NUMBERS.amount, amount);
    this.setNumber(ORDER_NUMBERS.processingAfter, processingAfter);
    this.setNumber(ORDER_NUMBERS.outcomeAfter, outcomeAfter);
    this.setNumber(ORDER_NUMBERS.refundAfter, refundAfter);
    if (typeof plannedTxId !== 'string') page.setTxIdBytes(this.row, plannedTxId);
    else if (!page.setTxIdHex(this.row, plannedTxId)) this.rareParts().plannedTxId = plannedTxId;
    if (made.delegationMs !== undefined) this.rareParts().delegationMs = made.delegationMs;
  }

  get status(): OrderStatusCode {
    return ORDER_STATUSES[(this.flags & STATUS_MASK) >> STATUS_SHIFT]!;
  }
  set status(status: OrderStatusCode) {
    this.flags = (this.flags & ~STATUS_MASK) | (indexIn(ORDER_STATUSES, status, 'status') << STATUS_SHIFT);
  }

  /** What the order comes to; supply shortage may turn COMPLETED into FAILED while processing. */
  get outcome(): Outcome {
    return this.flags & OUTCOME_FAILED ? 'FAILED' : 'COMPLETED';
  }
  set outcome(outcome: Outcome) {
    this.flags =
      indexIn(OUTCOMES, outcome, 'outcome') === 1
        ? this.flags | OUTCOME_FAILED
        : this.flags & ~OUTCOME_FAILED;
  }

  get period(): PeriodCode {
    return PERIODS[(this.flags & PERIOD_MASK) >> PERIOD_SHIFT]!;
  }

  get currency(): CurrencyCode {
    return this.flags & CURRENCY_USDT ? 'USDT' : 'TRX';
  }

  /** True when a rule decided the outcome; supply shortage then does not override it. */
  get forced(): boolean {
    return (this.flags & FORCED) !== 0;
  }

  /** True when this order activates its pledge address when processing starts. */
  get activates(): boolean {
    return (this.flags & ACTIVATES) !== 0;
  }

  /** Energy reserved from a limited supply, returned when the rental ends. */
  get reserved(): boolean {
    return (this.flags & RESERVED) !== 0;
  }
  set reserved(reserved: boolean) {
    this.flags = reserved ? this.flags | RESERVED : this.flags & ~RESERVED;
  }

  /** How many refunds were booked: the invariant is exactly one for a REFUNDED order. */
  get refunds(): number {
    return this.flags >>> REFUND_SHIFT;
  }
  set refunds(count: number) {
    if (!(Number.isInteger(count) && count >= 0 && count <= MAX_REFUNDS))
      throw new Error(
        `Order ${this.id}: refunds must be a whole number from 0 to ${MAX_REFUNDS} (got ${count}).`,
      );
    this.flags = (this.flags & ((1 << REFUND_SHIFT) - 1)) | (count << REFUND_SHIFT);
  }

  get failureReason(): string | undefined {
    return this.flags & HAS_RARE ? this.page.rareParts(this.row)!.failureReason : undefined;
  }
  set failureReason(reason: string | undefined) {
    if (reason === undefined && !(this.flags & HAS_RARE)) return;
    this.rareParts().failureReason = reason;
  }

  /** How long its energy stays delegated on chain when a rule said so; the period when undefined. */
  get delegationMs(): number | undefined {
    return this.flags & HAS_RARE ? this.page.rareParts(this.row)!.delegationMs : undefined;
  }

  /** Charged amount in smallest units (sun or micro-USDT). */
  get amount(): number {
    return this.number(ORDER_NUMBERS.amount);
  }

  /** Times of each step, Unix ms; meaningful once `status` has reached the step. */
  get createdAt(): number {
    return this.number(ORDER_NUMBERS.createdAt);
  }
  get processingAt(): number {
    return this.number(ORDER_NUMBERS.processingAt);
  }
  set processingAt(at: number) {
    this.setNumber(ORDER_NUMBERS.processingAt, at);
  }
  get outcomeAt(): number {
    return this.number(ORDER_NUMBERS.outcomeAt);
  }
  set outcomeAt(at: number) {
    this.setNumber(ORDER_NUMBERS.outcomeAt, at);
  }
  get refundedAt(): number {
    return this.number(ORDER_NUMBERS.refundedAt);
  }
  set refundedAt(at: number) {
    this.setNumber(ORDER_NUMBERS.refundedAt, at);
  }

  /** Planned delays from creation, ms. */
  get processingAfter(): number {
    return this.number(ORDER_NUMBERS.processingAfter);
  }
  get outcomeAfter(): number {
    return this.number(ORDER_NUMBERS.outcomeAfter);
  }
  get refundAfter(): number {
    return this.number(ORDER_NUMBERS.refundAfter);
  }

  /** The txId drawn at creation, 64 hex digits, whatever the status. */
  get plannedTxId(): string {
    if (this.flags & HAS_RARE) {
      const odd = this.page.rareParts(this.row)!.plannedTxId;
      if (odd !== undefined) return odd;
    }
    return this.page.txIdHex(this.row);
  }

  /** The delegation's transaction id, once delegation happened. */
  get txId(): string {
    return this.status === 'COMPLETED' ? this.plannedTxId : '';
  }

  get isOpen(): boolean {
    return ((OPEN_STATUSES >> ((this.flags & STATUS_MASK) >> STATUS_SHIFT)) & 1) === 1;
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
    const reason = this.failureReason;
    if (reason) outcome.note = reason;
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

  /**
   * An order back from the state file, on its account, as far along as it was saved.
   *
   * @example
   *   const order = Order.fromSnapshot(pages, account, saved.orders[0]);
   */
  static fromSnapshot(pages: OrderPages, account: Account, saved: OrderSnapshot): Order {
    const {
      accountId: _accountId,
      status,
      processingAt,
      outcomeAt,
      refundedAt,
      refunds,
      reserved,
      failureReason,
      ...init
    } = saved;
    const order = new Order(pages, { ...init, account });
    order.status = status;
    order.processingAt = processingAt;
    order.outcomeAt = outcomeAt;
    order.refundedAt = refundedAt;
    order.refunds = refunds;
    order.reserved = reserved;
    order.failureReason = failureReason;
    return order;
  }

  private get row(): number {
    return this.flags & ROW_MASK;
  }

  private number(which: OrderNumber): number {
    return this.page.get(this.row, which);
  }

  private setNumber(which: OrderNumber, value: number): void {
    this.page.set(this.row, which, value);
  }

  private rareParts(): RareParts {
    this.flags |= HAS_RARE;
    return this.page.rarePartsToFill(this.row);
  }
}
