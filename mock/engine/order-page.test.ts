import { describe, expect, it } from 'vitest';
import { createOrderPages, ORDER_NUMBERS, OrderPage, ROWS_PER_PAGE, TX_ID_BYTES } from './order-page.ts';

const START = 1_741_801_809_000;
const HEX = 'a'.repeat(8) + '0123456789abcdef'.repeat(3) + 'f'.repeat(8);

describe('order page', () => {
  it('reads back every number of a row exactly as it was set', () => {
    const page = new OrderPage(4);
    const row = page.takeRow();
    page.set(row, ORDER_NUMBERS.createdAt, START);
    const values = {
      amount: 4_230_000,
      processingAfter: 1_435,
      outcomeAfter: 3_586,
      refundAfter: 5_672,
      processingAt: START + 1_435,
      outcomeAt: START + 3_586,
      refundedAt: START + 5_672,
    };
    for (const [name, value] of Object.entries(values))
      page.set(row, ORDER_NUMBERS[name as keyof typeof values], value);
    for (const [name, value] of Object.entries(values))
      expect(page.get(row, ORDER_NUMBERS[name as keyof typeof values])).toBe(value);
    expect(page.get(row, ORDER_NUMBERS.createdAt)).toBe(START);
  });

  it('starts every number of a new row at 0, and keeps 0 for a step time set back to 0', () => {
    const page = new OrderPage(2);
    const row = page.takeRow();
    page.set(row, ORDER_NUMBERS.createdAt, START);
    for (const which of Object.values(ORDER_NUMBERS))
      if (which !== ORDER_NUMBERS.createdAt) expect(page.get(row, which)).toBe(0);
    page.set(row, ORDER_NUMBERS.outcomeAt, START);
    expect(page.get(row, ORDER_NUMBERS.outcomeAt)).toBe(START);
    page.set(row, ORDER_NUMBERS.outcomeAt, 0);
    expect(page.get(row, ORDER_NUMBERS.outcomeAt)).toBe(0);
  });

  it('keeps values that do not fit 32 bits, or are not whole, exact', () => {
    const page = new OrderPage(2);
    const row = page.takeRow();
    page.set(row, ORDER_NUMBERS.createdAt, START);
    const odd = [
      [ORDER_NUMBERS.processingAt, START + 40 * 86_400_000], // a restart 40 days later
      [ORDER_NUMBERS.outcomeAt, START - 2 ** 31 - 5], // long before creation
      [ORDER_NUMBERS.refundedAt, START + 0.5], // a fraction of a ms
      [ORDER_NUMBERS.processingAfter, Number.MAX_SAFE_INTEGER],
      [ORDER_NUMBERS.outcomeAfter, -(2 ** 31)],
      [ORDER_NUMBERS.refundAfter, 2 ** 31 - 1],
      [ORDER_NUMBERS.amount, 2 ** 40 + 1],
    ] as const;
    for (const [which, value] of odd) page.set(row, which, value);
    for (const [which, value] of odd) expect(page.get(row, which)).toBe(value);
    page.set(row, ORDER_NUMBERS.processingAt, START + 1);
    expect(page.get(row, ORDER_NUMBERS.processingAt)).toBe(START + 1);
  });

  it('keeps the rows of a page apart', () => {
    const page = new OrderPage(3);
    const rows = [page.takeRow(), page.takeRow(), page.takeRow()];
    rows.forEach((row, i) => {
      page.set(row, ORDER_NUMBERS.createdAt, START + i);
      page.set(row, ORDER_NUMBERS.outcomeAt, START + 1000 * i);
      page.setTxIdHex(row, String(i).repeat(64));
    });
    rows.forEach((row, i) => {
      expect(page.get(row, ORDER_NUMBERS.createdAt)).toBe(START + i);
      expect(page.get(row, ORDER_NUMBERS.outcomeAt)).toBe(START + 1000 * i);
      expect(page.txIdHex(row)).toBe(String(i).repeat(64));
    });
  });

  it('stores a txId as 32 bytes and renders it back as the same 64 hex digits', () => {
    const page = new OrderPage(2);
    const row = page.takeRow();
    expect(page.setTxIdHex(row, HEX)).toBe(true);
    expect(page.txIdHex(row)).toBe(HEX);
    const bytes = Uint8Array.from({ length: TX_ID_BYTES }, (_, i) => i * 8);
    page.setTxIdBytes(row, bytes);
    expect(page.txIdHex(row)).toBe(Buffer.from(bytes).toString('hex'));
  });

  it('refuses a txId that is not 64 lower-case hex digits, keeping the one it had', () => {
    const page = new OrderPage(1);
    const row = page.takeRow();
    page.setTxIdHex(row, HEX);
    for (const bad of ['', HEX.toUpperCase(), HEX.slice(1), `${HEX}0`, `x${HEX.slice(1)}`])
      expect(page.setTxIdHex(row, bad)).toBe(false);
    expect(page.txIdHex(row)).toBe(HEX);
    expect(() => page.setTxIdBytes(row, new Uint8Array(31))).toThrow(/32 bytes/);
  });

  it('hands out each row once and opens a new page when the current one is full', () => {
    const page = new OrderPage(2);
    expect([page.takeRow(), page.takeRow()]).toEqual([0, 1]);
    expect(page.full).toBe(true);
    expect(() => page.takeRow()).toThrow(/no free row/);
    const pages = createOrderPages();
    const seen = new Set<string>();
    let first: OrderPage | undefined;
    for (let i = 0; i <= ROWS_PER_PAGE; i++) {
      const p = pages.pageWithFreeRow();
      first ??= p;
      const row = p.takeRow();
      seen.add(`${p === first ? 'first' : 'next'}:${row}`);
    }
    expect(seen.size).toBe(ROWS_PER_PAGE + 1);
    expect([...seen].some((key) => key.startsWith('next:'))).toBe(true);
  });

  it('gives each allocator pages of its own, even when they are used in turn', () => {
    const [a, b] = [createOrderPages(), createOrderPages()];
    const pagesOf = { a: new Set<OrderPage>(), b: new Set<OrderPage>() };
    for (let i = 0; i < ROWS_PER_PAGE * 2 + 3; i++) {
      for (const [name, pages] of [
        ['a', a],
        ['b', b],
      ] as const) {
        const page = pages.pageWithFreeRow();
        page.takeRow();
        pagesOf[name].add(page);
      }
    }
    expect(pagesOf.a.size).toBe(3);
    expect(pagesOf.b.size).toBe(3);
    for (const page of pagesOf.a) expect(pagesOf.b.has(page)).toBe(false);
  });

  it('keeps rare parts by row: a row without any reads none', () => {
    const page = new OrderPage(3);
    const [first, second] = [page.takeRow(), page.takeRow()];
    expect(page.rareParts(first)).toBeUndefined();
    page.rarePartsToFill(second).failureReason = 'insufficient supply';
    expect(page.rarePartsToFill(second)).toEqual({ failureReason: 'insufficient supply' });
    expect(page.rareParts(second)).toEqual({ failureReason: 'insufficient supply' });
    expect(page.rareParts(first)).toBeUndefined();
  });
});
