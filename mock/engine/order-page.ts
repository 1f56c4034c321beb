/**
 * Where an order keeps its numbers and its txId: one row of a page of typed arrays,
 * rather than fields of the order object, because a million stored orders must fit in
 * 400 bytes each.
 *
 * - A time in Unix ms does not fit a small integer, so as a field it is a boxed
 *   HeapNumber (16 B more than its 8 B field). Here the creation time and the amount
 *   take 8 B each in a Float64Array (exact for any number; an amount above 2^31 units
 *   as a field would box too, and then every order's amount field would), and the
 *   planned delays and the times of the later steps, kept as offsets from creation, 4 B
 *   each in an Int32Array.
 * - A txId is 64 hex digits: 80 B as a string, 32 B as bytes here.
 *
 * An offset that does not fit 32 bits or is not a whole number (a restart after weeks,
 * a clock with fractions of a ms) is kept exactly in a small map of its page instead, so
 * nothing is ever rounded.
 *
 * Rows are never reused. The orders on a page are what keeps it alive (an engine's
 * allocator, `createOrderPages()`, holds only the page it is filling), so once they are
 * all evicted or dropped by a reset the garbage collector frees the page, and an order
 * that someone still holds after its eviction still reads its own values. Each engine
 * has its own allocator, so the orders of two engines never share a page.
 */

/** The numbers of a row. */
export const ORDER_NUMBERS = {
  createdAt: 0,
  amount: 1,
  processingAfter: 2,
  outcomeAfter: 3,
  refundAfter: 4,
  processingAt: 5,
  outcomeAt: 6,
  refundedAt: 7,
} as const;
export type OrderNumber = (typeof ORDER_NUMBERS)[keyof typeof ORDER_NUMBERS];

/** createdAt and amount, 8 B each. */
const WIDE_PER_ROW = 2;
/** The rest, 4 B each: the delays as they are, the step times as offsets from createdAt. */
const NARROW_PER_ROW = 6;
/** The first number kept narrow, and the first of those kept relative to createdAt. */
const FIRST_NARROW = ORDER_NUMBERS.processingAfter;
const FIRST_STEP_TIME = ORDER_NUMBERS.processingAt;
/** A narrow slot holding this means the number is 0 (a step not reached yet). */
const ZERO = -(2 ** 31);
/** A narrow slot holding this means the number is in the page's `overflow` map. */
const OVERFLOW = ZERO + 1;

export const TX_ID_BYTES = 32;
const ROW_BYTES = WIDE_PER_ROW * 8 + NARROW_PER_ROW * 4 + TX_ID_BYTES;
/** 18 KB a page: few pages, so their own objects cost little; small, so an order kept long (an open one) holds little else alive. */
export const ROWS_PER_PAGE = 256;

const HEX_DIGITS = '0123456789abcdef';
const TX_ID_HEX = /^[0-9a-f]{64}$/;

/**
 * What few orders have: a failure reason (only supply shortage gives one) and a txId
 * that is not 64 hex digits (only a hand-made state file could hold one). Kept aside, by
 * row in the order's page, so that the other orders spend no field on them.
 */
export interface RareParts {
  failureReason?: string;
  plannedTxId?: string;
  /** A rule's delegation length on chain, instead of the period. */
  delegationMs?: number;
}

/**
 * A page of order rows.
 *
 * @example
 *   const page = new OrderPage();
 *   const row = page.takeRow();
 *   page.set(row, ORDER_NUMBERS.createdAt, 1_741_801_809_000);
 *   page.set(row, ORDER_NUMBERS.processingAt, 1_741_801_810_435); // stored as 1435
 *   page.get(row, ORDER_NUMBERS.processingAt); // 1741801810435
 */
export class OrderPage {
  private readonly wide: Float64Array;
  private readonly narrow: Int32Array;
  private readonly txIds: Uint8Array;
  /** Numbers that do not fit a narrow slot, by row * NARROW_PER_ROW + slot. */
  private overflow: Map<number, number> | undefined;
  /** The rare parts of the rows that have any, by row; created with the first. */
  private rare: Map<number, RareParts> | undefined;
  /** Rows handed out so far. */
  private used = 0;

  constructor(readonly rows: number = ROWS_PER_PAGE) {
    // One allocation for the three arrays, so a page costs one backing store.
    const buffer = new ArrayBuffer(rows * ROW_BYTES);
    this.wide = new Float64Array(buffer, 0, rows * WIDE_PER_ROW);
    this.narrow = new Int32Array(buffer, rows * WIDE_PER_ROW * 8, rows * NARROW_PER_ROW);
    this.txIds = new Uint8Array(buffer, rows * (WIDE_PER_ROW * 8 + NARROW_PER_ROW * 4), rows * TX_ID_BYTES);
    this.narrow.fill(ZERO);
  }

  get full(): boolean {
    return this.used === this.rows;
  }

  /** Hands out the next unused row (all its numbers 0). */
  takeRow(): number {
    if (this.used === this.rows) throw new Error('OrderPage: no free row');
    return this.used++;
  }

  /** A number of a row. */
  get(row: number, which: OrderNumber): number {
    if (which < FIRST_NARROW) return this.wide[row * WIDE_PER_ROW + which]!;
    const slot = row * NARROW_PER_ROW + (which - FIRST_NARROW);
    const value = this.narrow[slot]!;
    if (value === ZERO) return 0;
    if (value === OVERFLOW) return this.overflow!.get(slot)!;
    return which < FIRST_STEP_TIME ? value : this.wide[row * WIDE_PER_ROW + ORDER_NUMBERS.createdAt]! + value;
  }

  /** Sets a number of a row; a step time needs the row's createdAt set first, and createdAt must not change after. */
  set(row: number, which: OrderNumber, value: number): void {
    if (which < FIRST_NARROW) {
      this.wide[row * WIDE_PER_ROW + which] = value;
      return;
    }
    const slot = row * NARROW_PER_ROW + (which - FIRST_NARROW);
    this.overflow?.delete(slot);
    if (value === 0) {
      this.narrow[slot] = ZERO;
      return;
    }
    const base = which < FIRST_STEP_TIME ? 0 : this.wide[row * WIDE_PER_ROW + ORDER_NUMBERS.createdAt]!;
    const offset = value - base;
    if (Number.isInteger(offset) && offset > OVERFLOW && offset <= 2 ** 31 - 1 && base + offset === value) {
      this.narrow[slot] = offset;
    } else {
      this.narrow[slot] = OVERFLOW;
      (this.overflow ??= new Map()).set(slot, value);
    }
  }

  /** The row's txId as 64 lower-case hex digits. */
  txIdHex(row: number): string {
    const bytes = this.txIds;
    const start = row * TX_ID_BYTES;
    // Built as codes and turned into a string in one call, the txId is one flat string
    // rather than a tree of concatenations. A txId is rendered only when an order is read,
    // so the array is made per call rather than kept anywhere.
    const codes = new Array<number>(TX_ID_BYTES * 2);
    for (let i = 0; i < TX_ID_BYTES; i++) {
      const byte = bytes[start + i]!;
      codes[2 * i] = HEX_DIGITS.charCodeAt(byte >> 4);
      codes[2 * i + 1] = HEX_DIGITS.charCodeAt(byte & 15);
    }
    return String.fromCharCode.apply(null, codes);
  }

  /** Stores a txId given as its 32 bytes. */
  setTxIdBytes(row: number, bytes: Uint8Array): void {
    if (bytes.length !== TX_ID_BYTES)
      throw new Error(`OrderPage: a txId is ${TX_ID_BYTES} bytes (got ${bytes.length})`);
    this.txIds.set(bytes, row * TX_ID_BYTES);
  }

  /** Stores a txId given as 64 lower-case hex digits; false, storing nothing, for any other string. */
  setTxIdHex(row: number, hex: string): boolean {
    if (!TX_ID_HEX.test(hex)) return false;
    const start = row * TX_ID_BYTES;
    for (let i = 0; i < TX_ID_BYTES; i++)
      this.txIds[start + i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
    return true;
  }

  /** The rare parts of a row, if it has any. */
  rareParts(row: number): RareParts | undefined {
    return this.rare?.get(row);
  }

  /** The rare parts of a row, made empty on first use. */
  rarePartsToFill(row: number): RareParts {
    const rare = (this.rare ??= new Map());
    let parts = rare.get(row);
    if (!parts) {
      parts = {};
      rare.set(row, parts);
    }
    return parts;
  }
}

/** Where an engine's new orders take their rows. */
export interface OrderPages {
  /** The page to take a new order's row from (a fresh one when the last is full). */
  pageWithFreeRow(): OrderPage;
}

/**
 * An engine's page allocator: one per engine, so the orders of two engines never share a
 * page, and a reset can start on a fresh one.
 *
 * @example
 *   const pages = createOrderPages();
 *   const page = pages.pageWithFreeRow();
 *   const row = page.takeRow();
 */
export function createOrderPages(): OrderPages {
  // Only the page being filled: the full ones are kept alive by their orders alone.
  let filling = new OrderPage();
  return {
    pageWithFreeRow() {
      if (filling.full) filling = new OrderPage();
      return filling;
    },
  };
}
