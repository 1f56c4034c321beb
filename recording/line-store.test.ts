/**
 * The line store gives back every text as it was kept, across its buffers and past the
 * size of one, and refuses a number it never gave.
 */
import { describe, expect, it } from 'vitest';
import { createLineStore } from './line-store.ts';

describe('createLineStore', () => {
  it('gives back each text by its number, multi-byte characters and buffer boundaries included', () => {
    const lines = createLineStore();
    const texts = Array.from({ length: 70_000 }, (_, i) => `{"i":${i},"s":"${'é😀x'.repeat(i % 97)}"}`);
    texts.push('y'.repeat(17 * 1024 * 1024), '', 'after the long one');
    const numbers = texts.map((text) => lines.push(text));
    expect(numbers).toEqual(texts.map((_, i) => i));
    expect(lines.length).toBe(texts.length);
    for (const i of [0, 1, 4_095, 30_000, 69_999, 70_000, 70_001, 70_002]) expect(lines.at(i)).toBe(texts[i]);
  });

  it('refuses a number it never gave', () => {
    const lines = createLineStore();
    lines.push('one');
    expect(() => lines.at(1)).toThrow(/no line 1 \(1 kept\)/);
    expect(() => lines.at(-1)).toThrow(RangeError);
  });
});
