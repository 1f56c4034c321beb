/**
 * Extra fields placed into an answer: each source's value, and what is left out when its
 * source has nothing here or its place is taken by a value that is no object.
 */
import { describe, expect, it } from 'vitest';
import { createRandomSource } from '../engine/random-source.ts';
import { addExtraFields, extraFieldValue, type ExtraFieldContext } from './extra-fields.ts';

const context = (extra: Partial<ExtraFieldContext> = {}): ExtraFieldContext => ({
  params: { period: '1h', rentalCount: 65000 },
  now: 1_741_801_809_000,
  random: createRandomSource(7),
  ...extra,
});

describe('extraFieldValue', () => {
  it('copies a parameter as the string it was sent as', () => {
    expect(extraFieldValue({ path: '/x', copyParameter: 'rentalCount' }, context())).toBe('65000');
  });

  it('gives no value for a parameter not sent, an order field without an order, a time without createdAt', () => {
    const ctx = context();
    expect(extraFieldValue({ path: '/x', copyParameter: 'outOrderNo' }, ctx)).toBeUndefined();
    expect(extraFieldValue({ path: '/x', copyOrderField: 'txId' }, ctx)).toBeUndefined();
    expect(extraFieldValue({ path: '/x', createdAtOffsetMs: 1000 }, ctx)).toBeUndefined();
  });

  it('times from createdAt in ms, or in whole seconds', () => {
    const ctx = context({ createdAtMs: 1_741_801_809_500 });
    expect(extraFieldValue({ path: '/x', createdAtOffsetMs: 600_000 }, ctx)).toBe(1_741_802_409_500);
    expect(extraFieldValue({ path: '/x', createdAtOffsetMs: 600_000, unit: 's' }, ctx)).toBe(1_741_802_409);
  });

  it('draws each format the same way from the same seed', () => {
    const formats = [
      { generate: 'uuid', pattern: /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/ },
      { generate: 'hex64', pattern: /^[0-9a-f]{64}$/ },
      { generate: 'order-id', pattern: /^OR20250312175009[A-Z0-9]{8}$/ },
      { generate: 'tron-address', pattern: /^T[1-9A-HJ-NP-Za-km-z]{33}$/ },
      { generate: 'integer-string', length: 5, pattern: /^[1-9]\d{4}$/ },
      { generate: 'decimal-string', decimals: 3, pattern: /^\d{1,3}\.\d{3}$/ },
      { generate: 'text', length: 7, pattern: /^[0-9A-Za-z]{7}$/ },
    ] as const;
    for (const { pattern, ...field } of formats) {
      const value = extraFieldValue({ path: '/x', ...field }, context());
      expect(value, field.generate).toMatch(pattern);
      expect(extraFieldValue({ path: '/x', ...field }, context())).toBe(value);
    }
    expect(String(extraFieldValue({ path: '/x', generate: 'integer', length: 4 }, context()))).toMatch(
      /^[1-9]\d{3}$/,
    );
  });
});

describe('addExtraFields', () => {
  it('places fields beside the envelope, into data and into objects it creates', () => {
    const body: Record<string, unknown> = { code: 0, data: { sun: '65' } };
    addExtraFields(
      body,
      [
        { path: '/traceId', constant: 't' },
        { path: '/data/fee', constant: '0' },
        { path: '/data/meta/a~1b', constant: 1 },
      ],
      context(),
    );
    expect(body).toEqual({ code: 0, traceId: 't', data: { sun: '65', fee: '0', meta: { 'a/b': 1 } } });
  });

  it('leaves out a field whose parent is no object, and one whose source has no value', () => {
    const body: Record<string, unknown> = { code: 0, data: { sun: '65' } };
    addExtraFields(
      body,
      [
        { path: '/data/sun/x', constant: 1 },
        { path: '/data/no', copyParameter: 'missing' },
      ],
      context(),
    );
    expect(body).toEqual({ code: 0, data: { sun: '65' } });
  });
});
