/**
 * The key index replaces what replaceKeys' pattern per key replaces, in one pass over a
 * text whatever the number of keys, and tells where a text may be cut without splitting one.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { replaceKeys } from '../mock/http/journal-redaction.ts';
import { createKeyIndex } from './key-index.ts';

const TOKEN = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-';

/** `key` with some of its characters percent-encoded, in either case of hex. */
function encoded(key: string, mask: boolean[], lower: boolean): string {
  return [...key]
    .map((ch, i) => {
      if (!mask[i % mask.length]) return ch;
      const hex = ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0');
      return `%${lower ? hex.toLowerCase() : hex}`;
    })
    .join('');
}

// Three keys none of which is a prefix of another (each starts with its own letter).
const keys = fc.tuple(
  ...['K', 'L', 'M'].map((first) =>
    fc.string({ unit: fc.constantFrom(...TOKEN), minLength: 7, maxLength: 14 }).map((rest) => first + rest),
  ),
);
const fragment = (all: string[]) =>
  fc.oneof(
    fc.constantFrom(...all),
    fc
      .tuple(fc.constantFrom(...all), fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }), fc.boolean())
      .map(([key, mask, lower]) => encoded(key, mask, lower)),
    fc.string({ unit: fc.constantFrom(...TOKEN), maxLength: 4 }),
    fc.constantFrom(' ', ',', '.', '/', '=', '"', '&', '%', '%2F', '%2f', '%G1', '%41', '%5F', '%', 'é'),
  );

describe('createKeyIndex', () => {
  it('replaces in any text exactly what a pattern per key replaces', () => {
    fc.assert(
      fc.property(
        keys.chain((all) => fc.tuple(fc.constant(all), fc.array(fragment(all), { maxLength: 12 }))),
        ([all, parts]) => {
          const pairs = all.map((key, i) => [key, `key-${i + 2}`] as [string, string]);
          const index = createKeyIndex({ fewKeys: 0 });
          for (const [key, alias] of pairs) index.add(key, alias);
          const text = parts.join('');
          expect(index.replace(text)).toBe(replaceKeys(text, pairs));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('replaces a key of other characters as replaceKeys does, beside token keys', () => {
    const index = createKeyIndex({ fewKeys: 0 });
    index.add('sk_live_0123456789', 'key-2');
    index.add('k.e.y/with+odd=chars', 'key-3');
    expect(index.replace('a sk_live%5f0123456789, b k.e.y/with+odd=chars c')).toBe('a key-2, b key-3 c');
  });

  it('finds any of 50 000 keys in a text, and leaves a text with none as it is', () => {
    const index = createKeyIndex({ fewKeys: 0 });
    for (let i = 0; i < 50_000; i++) index.add(`sk_live_${String(i).padStart(8, '0')}`, `key-${i + 2}`);
    expect(index.replace('got sk_live_00049999 and sk_live%5F00000007.')).toBe('got key-50001 and key-9.');
    const plain = 'nothing to see here, sk_live_ but no key';
    expect(index.replace(plain)).toBe(plain);
  });

  it('gives the same text with few keys, where it hands them to replaceKeys, as with many', () => {
    const few = createKeyIndex();
    const many = createKeyIndex({ fewKeys: 0 });
    for (const [key, alias] of [
      ['sk_live_0123456789', 'key-2'],
      ['tok-key-EEEE5555', 'key-3'],
    ] as const) {
      few.add(key, alias);
      many.add(key, alias);
    }
    const text = 'a sk_live%5f0123456789, tok-key-EEEE5555%20b tok%2Dkey-EEEE5555x';
    expect(few.replace(text)).toBe(many.replace(text));
    expect(few.replace(text)).toBe('a key-2, key-3%20b tok%2Dkey-EEEE5555x');
  });

  it('ignores keys shorter than the scrubbed length, as replaceKeys does', () => {
    const index = createKeyIndex({ fewKeys: 0 });
    index.add('short', 'key-2');
    expect(index.replace('a short text')).toBe('a short text');
  });

  it('says a cut inside a key or its escape is unsafe, and one between tokens is safe', () => {
    const index = createKeyIndex({ fewKeys: 0 });
    index.add('sk_live_0123456789', 'key-2');
    const text = 'xx sk_live%5F0123456789 yy';
    const start = text.indexOf('sk_');
    for (let at = start + 1; at < text.indexOf(' yy'); at++)
      expect(index.across(text, at), `cut at ${at}`).toBe(start);
    expect(index.across(text, start)).toBe(-1);
    expect(index.across(text, text.indexOf(' yy'))).toBe(-1);
    expect(index.across(text, 1), 'inside a word that is no key: back to its start all the same').toBe(0);
  });
});
