/** Fields the service sends that the API document does not list (settings.extraFields), added to an answer. */
import { encodeTronAddress } from '../../src/tron-address.ts';
import type { Settings } from '../engine/index.ts';
import { orderIdAt } from '../engine/order-id.ts';
import type { RandomSource } from '../engine/random-source.ts';

export type ExtraField = NonNullable<Settings['extraFields'][keyof Settings['extraFields']]>[number];

/** What an extra field's value may come from. */
export interface ExtraFieldContext {
  /** The request's checked parameters. */
  params: Readonly<Record<string, unknown>>;
  /** The order's history record (with `outOrderNo` when it has one), for the order operations. */
  order?: Readonly<Record<string, unknown>> | undefined;
  /** The order's creation, Unix ms. */
  createdAtMs?: number | undefined;
  /** The simulator's clock, Unix ms (the time of a generated order id). */
  now: number;
  random: RandomSource;
}

/**
 * The value of one extra field; undefined (left out) when its source has none here.
 *
 * @example
 *   extraFieldValue({ path: '/data/fee', constant: '0' }, context); // '0'
 */
export function extraFieldValue(field: ExtraField, context: ExtraFieldContext): unknown {
  if ('constant' in field) return field.constant;
  if (field.copyParameter !== undefined) {
    const value = context.params[field.copyParameter];
    return value === undefined ? undefined : String(value);
  }
  if (field.copyOrderField !== undefined) return context.order?.[field.copyOrderField];
  if (field.createdAtOffsetMs !== undefined) {
    if (context.createdAtMs === undefined) return undefined;
    const at = context.createdAtMs + field.createdAtOffsetMs;
    return field.unit === 's' ? Math.floor(at / 1000) : at;
  }
  return generated(field, context);
}

function generated(field: ExtraField, { random, now }: ExtraFieldContext): unknown {
  const digits = (length: number): string =>
    String(random.int(1, 9)) + Array.from({ length: length - 1 }, () => random.int(0, 9)).join('');
  switch (field.generate) {
    case 'uuid': {
      const hex = random.hex(32);
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    }
    case 'hex64':
      return random.hex(64);
    case 'order-id':
      return orderIdAt(now, random);
    case 'tron-address':
      return encodeTronAddress(random.bytes(20));
    case 'integer-string':
      return digits(field.length ?? 10);
    case 'integer':
      // Past 15 digits a number is no longer exact in JSON readers.
      return Number(digits(Math.min(field.length ?? 6, 15)));
    case 'decimal-string':
      return `${random.int(0, 999)}.${Array.from({ length: field.decimals ?? 2 }, () => random.int(0, 9)).join('')}`;
    case 'text':
    default:
      return random.alphanumeric(field.length ?? 12);
  }
}

/**
 * Adds the extra fields to an answer's body, in place; one whose parent is no object is left out.
 *
 * @example
 *   addExtraFields(body, [{ path: '/data/fee', constant: '0' }], context); // body.data.fee === '0'
 */
export function addExtraFields(
  body: Record<string, unknown>,
  fields: readonly ExtraField[],
  context: ExtraFieldContext,
): void {
  for (const field of fields) {
    const value = extraFieldValue(field, context);
    if (value === undefined) continue;
    const segments = field.path
      .split('/')
      .slice(1)
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    const last = segments.pop()!;
    let node: unknown = body;
    for (const segment of segments) {
      if (!isRecord(node)) break;
      node = node[segment] ??= {};
    }
    if (isRecord(node)) node[last] = value;
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
