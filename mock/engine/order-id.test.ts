import { describe, expect, it } from 'vitest';
import { orderIdAt } from './order-id.ts';
import { createRandomSource } from './random-source.ts';

const AT = Date.UTC(2025, 2, 12, 17, 50, 9, 999);

describe('order id', () => {
  it('is OR, the UTC second of creation and the eight characters of one base-36 draw', () => {
    const id = orderIdAt(AT, createRandomSource(3));
    expect(id).toBe(`OR20250312175009${createRandomSource(3).base36(8)}`);
    expect(id).toMatch(/^OR\d{14}[A-Z0-9]{8}$/);
  });

  it('follows the clock from one second to the next and back', () => {
    const random = createRandomSource(4);
    expect(orderIdAt(AT, random).slice(0, 16)).toBe('OR20250312175009');
    expect(orderIdAt(AT + 1, random).slice(0, 16)).toBe('OR20250312175010');
    expect(orderIdAt(Date.UTC(1999, 11, 31, 23, 59, 59), random).slice(0, 16)).toBe('OR19991231235959');
    expect(orderIdAt(AT, random).slice(0, 16)).toBe('OR20250312175009');
  });

  it('gives the same ids for the same seed', () => {
    const a = createRandomSource(9);
    const b = createRandomSource(9);
    const ids = [orderIdAt(AT, a), orderIdAt(AT, a), orderIdAt(AT + 5_000, a)];
    expect([orderIdAt(AT, b), orderIdAt(AT, b), orderIdAt(AT + 5_000, b)]).toEqual(ids);
    expect(new Set(ids).size).toBe(3);
  });
});
