import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addPlainPairs } from './plain-pairs.ts';

const plainText = fc.stringMatching(/^[\w.~=&-]{0,40}$/);

function viaUrlSearchParams(text: string): Record<string, string> | 'conflict' {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of new URLSearchParams(text)) {
    if (out[name] !== undefined && out[name] !== value) return 'conflict';
    out[name] = value;
  }
  return out;
}

describe('addPlainPairs', () => {
  it('reads every plain text exactly as URLSearchParams does', () => {
    fc.assert(
      fc.property(plainText, (text) => {
        const into: Record<string, string> = {};
        const expected = viaUrlSearchParams(text);
        const refused =
          expected === 'conflict' || Object.keys(expected).some((name) => name in Object.prototype);
        expect(addPlainPairs(text, into) ? { ...into } : 'refused').toEqual(
          refused ? 'refused' : { ...expected },
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('leaves percent-encoded, plus-encoded and non-ASCII text to the general parser', () => {
    for (const text of ['a=1%202', 'a=1+2', 'a=ä', 'a=1 2', 'a=<b>'])
      expect(addPlainPairs(text, Object.create(null) as Record<string, string>)).toBe(false);
  });

  it('accepts a parameter repeated with the same value and refuses one repeated with another', () => {
    const into: Record<string, string> = Object.create(null) as Record<string, string>;
    expect(addPlainPairs('period=1h&period=1h', into)).toBe(true);
    expect(addPlainPairs('period=1d', into)).toBe(false);
  });

  it('leaves a parameter named like a prototype member to the general parser', () => {
    for (const text of ['__proto__=x', 'toString=y', 'a=1&constructor=z']) {
      const into: Record<string, string> = {};
      expect(addPlainPairs(text, into)).toBe(false);
      expect(Object.getPrototypeOf(into)).toBe(Object.prototype);
    }
  });
});
