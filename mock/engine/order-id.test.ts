import { describe, expect, it } from 'vitest';
import { createOrderIdMaker } from './order-id.ts';
import { createRandomSource } from './random-source.ts';

const AT = Date.UTC(2025, 2, 12, 17, 50, 9, 999);

describe('order id', () => {
  it('is OR, the UTC second of creation and the eight characters upperAlphanumericInto writes', () => {
    const id = createOrderIdMaker()(AT, createRandomSource(3));
    const codes = new Array<number>(8).fill(0);
    createRandomSource(3).upperAlphanumericInto(codes, 0, 8);
    expect(id).toBe(`OR20250312175009${String.fromCharCode(...codes)}`);
    expect(id).toMatch(/^OR\d{14}[A-Z0-9]{8}$/);
  });

  it('follows the clock from one second to the next and back', () => {
    const orderId = createOrderIdMaker();
    const random = createRandomSource(4);
    expect(orderId(AT, random).slice(0, 16)).toBe('OR20250312175009');
    expect(orderId(AT + 1, random).slice(0, 16)).toBe('OR20250312175010');
    expect(orderId(Date.UTC(1999, 11, 31, 23, 59, 59), random).slice(0, 16)).toBe('OR19991231235959');
    expect(orderId(AT, random).slice(0, 16)).toBe('OR20250312175009');
  });

  it('gives the same ids for the same seed', () => {
    const orderId = createOrderIdMaker();
    const a = createRandomSource(9);
    const b = createRandomSource(9);
    const ids = [orderId(AT, a), orderId(AT, a), orderId(AT + 5_000, a)];
    expect([orderId(AT, b), orderId(AT, b), orderId(AT + 5_000, b)]).toEqual(ids);
    expect(new Set(ids).size).toBe(3);
  });

  it('keeps the second it last saw to itself, so makers used in turn each stamp their own time', () => {
    const [early, late] = [createOrderIdMaker(), createOrderIdMaker()];
    const random = createRandomSource(5);
    for (let i = 0; i < 3; i++) {
      expect(early(AT, random).slice(0, 16)).toBe('OR20250312175009');
      expect(late(AT + 61_000, random).slice(0, 16)).toBe('OR20250312175110');
    }
  });
});
