/** Schemas inferred from a recording's answers per operation, status class and code; values never matter. */
import { isTronAddress } from '../src/tron-address.ts';
import { statusPaths, timeUnit, type TimeUnit } from '../recording/order-observations.ts';
import type { Interaction, Recording, Timing } from '../recording/recording.ts';

export type JsonType = 'null' | 'boolean' | 'integer' | 'number' | 'string' | 'object' | 'array';
export type StringFormat =
  | 'empty'
  | 'tron-address'
  | 'order-id'
  | 'hex64'
  | 'uuid'
  | 'key-alias'
  | 'integer-string'
  | 'decimal-string'
  | 'iso-datetime'
  | 'text';

export interface FieldShape {
  path: string;
  types: Set<JsonType>;
  formats: Set<StringFormat>;
  /** Decimal places of the decimal strings seen. */
  decimals?: { min: number; max: number };
  /** Whether a decimal string kept a trailing zero ('3.80'): proof of a fixed number of decimals. */
  zeroPadded: boolean;
  /** Units of a time field (a name such as time, createdAt, at), numbers or numeric strings. */
  timeUnits: Set<TimeUnit>;
  /** Distinct string values (the first 50), for enum checks. */
  values: Set<string>;
  /** One value seen, for messages. */
  example: unknown;
  /** How often the path was present; how often it held an object. */
  count: number;
  objects: number;
}

export interface ResponseShape {
  operation: string;
  statusClass: string;
  /** The envelope's `code`, null when the body has none. */
  code: number | null;
  statuses: Set<number>;
  samples: number;
  fields: Map<string, FieldShape>;
  /** Message templates (values replaced by placeholders) → the first message seen. */
  messages: Map<string, string>;
}

export interface InferredRecording {
  /** Keyed by 'getPrice 2xx code 0'. */
  responses: Map<string, ResponseShape>;
  operations: Set<string>;
  /** `operation\nHTTP status` → codes seen. */
  codes: Map<string, Set<number | null>>;
  /** `case\noperation\nparameters` (per-run values left out) → 'status/code/accepted' (or refused) seen. */
  caseResponses: Map<string, Set<string>>;
  statusPaths: Map<string, number>;
  timing: Timing['summary'];
  /** The recorded simulator's clock: a manual one moves in polling steps, over a short status. */
  clock?: string;
}

/** 'HTTP 2xx, code 0', for reports. */
export const describeResponse = (shape: Pick<ResponseShape, 'statusClass' | 'code'>): string =>
  `HTTP ${shape.statusClass}${shape.code === null ? '' : `, code ${shape.code}`}`;

const TIME_FIELD = /^(time|timestamp|date|at)$|[a-z](At|Time|Date)$/;
const ORDER_ID = /^OR\d{14}[A-Z0-9]{8}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;
const MAX_VALUES = 50;

/**
 * The format of a string, the most specific first.
 * @example
 *   stringFormat('4.23'); // 'decimal-string'
 *   stringFormat('OR20250312175009BJ1QRQH7'); // 'order-id'
 */
export function stringFormat(value: string): StringFormat {
  if (value === '') return 'empty';
  if (value.length === 34 && value[0] === 'T' && isTronAddress(value)) return 'tron-address';
  if (ORDER_ID.test(value)) return 'order-id';
  if (/^[0-9a-f]{64}$/.test(value)) return 'hex64';
  if (UUID.test(value)) return 'uuid';
  if (/^key-\d+$/.test(value)) return 'key-alias';
  if (/^-?\d+$/.test(value)) return 'integer-string';
  if (/^-?\d+\.\d+$/.test(value)) return 'decimal-string';
  if (ISO_DATETIME.test(value)) return 'iso-datetime';
  return 'text';
}

/**
 * A message with its values replaced, so that messages differing by value are one.
 * @example
 *   messageTemplate("Order not found: no order of this account has orderId 'OR20000101000000ZZZZZZZZ'."); // "Order not found: no order of this account has orderId '…'."
 */
export function messageTemplate(msg: string): string {
  return msg
    .replace(/'[^']*'/g, "'…'")
    .replace(/"[^"]*"/g, '"…"')
    .replace(/\bOR\d{14}[A-Z0-9]{8}\b/g, '<order-id>')
    .replace(/\bT[1-9A-HJ-NP-Za-km-z]{33}\b/g, '<address>')
    .replace(/\b[0-9a-f]{64}\b/g, '<hex>')
    .replace(/\bkey-\d+\b/g, '<key>')
    .replace(/(?<![\w.])-?\d+(\.\d+)?(?!\w|\.\d)/g, '#');
}

/** The JSON path of a child, JSON Pointer style ('/data/status'); array items are '*'. */
export const childPath = (parent: string, key: string): string =>
  `${parent}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;

function jsonType(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value as JsonType;
}

/** The map's value at a key, made and set when there is none. */
function entry<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  if (!map.has(key)) map.set(key, make());
  return map.get(key)!;
}

function noteValue(fields: Map<string, FieldShape>, path: string, value: unknown): void {
  const field = entry(fields, path, (): FieldShape => ({
    path,
    types: new Set(),
    formats: new Set(),
    timeUnits: new Set(),
    values: new Set(),
    example: value,
    count: 0,
    objects: 0,
    zeroPadded: false,
  }));
  field.count++;
  field.types.add(jsonType(value));
  const isTime = TIME_FIELD.test(path.slice(path.lastIndexOf('/') + 1));
  if (typeof value === 'string') {
    const format = stringFormat(value);
    field.formats.add(format);
    if (format === 'decimal-string') {
      const places = value.length - value.indexOf('.') - 1;
      field.decimals = field.decimals
        ? { min: Math.min(field.decimals.min, places), max: Math.max(field.decimals.max, places) }
        : { min: places, max: places };
      if (value.endsWith('0')) field.zeroPadded = true;
    }
    if (isTime && format === 'integer-string') field.timeUnits.add(timeUnit(Number(value)));
    if (field.values.size < MAX_VALUES) field.values.add(value);
  } else if (typeof value === 'number' && isTime) {
    field.timeUnits.add(timeUnit(value));
  } else if (Array.isArray(value)) {
    for (const item of value) noteValue(fields, `${path}/*`, item);
  } else if (typeof value === 'object' && value !== null) {
    field.objects++;
    for (const [key, child] of Object.entries(value)) noteValue(fields, childPath(path, key), child);
  }
}

/** The shape of every JSON path of these values together. */
export function inferFields(values: unknown[]): Map<string, FieldShape> {
  const fields = new Map<string, FieldShape>();
  for (const value of values) noteValue(fields, '', value);
  return fields;
}

/** The envelope's `code` of an answer, null when it has none. */
const codeOf = (body: unknown): number | null => {
  const code = typeof body === 'object' && body !== null ? (body as { code?: unknown }).code : undefined;
  return typeof code === 'number' ? code : null;
};

/** Infers the shape of every response of a recording. */
export function inferResponses(interactions: Interaction[]): Map<string, ResponseShape> {
  const responses = new Map<string, ResponseShape>();
  for (const { operation, response } of interactions) {
    if (!response) continue;
    const body = response.body !== undefined ? response.body : response.text;
    const code = codeOf(body);
    const statusClass = `${Math.floor(response.status / 100)}xx`;
    const shape = entry(responses, `${operation} ${statusClass} code ${code ?? 'none'}`, () => ({
      operation,
      statusClass,
      code,
      statuses: new Set<number>(),
      samples: 0,
      fields: new Map(),
      messages: new Map(),
    }));
    shape.samples++;
    shape.statuses.add(response.status);
    noteValue(shape.fields, '', body);
    const msg = (body as { msg?: unknown } | undefined)?.msg;
    if (typeof msg === 'string' && !shape.messages.has(messageTemplate(msg)))
      shape.messages.set(messageTemplate(msg), msg);
  }
  return responses;
}

/** All `drift` compares of a recording: `inferRecording(r).responses.get('getPrice 2xx code 0')`. */
export function inferRecording(recording: Recording): InferredRecording {
  const codes = new Map<string, Set<number | null>>();
  const caseResponses = new Map<string, Set<string>>();
  for (const interaction of recording.interactions) {
    const { operation, response } = interaction;
    if (!response) continue;
    const code = codeOf(response.body);
    entry(codes, `${operation}\n${response.status}`, () => new Set()).add(code);
    const accepted = response.status < 300 && (code === 0 || (code === 1 && operation === 'getAccount'));
    entry(
      caseResponses,
      `${interaction.case}\n${operation}\n${requestShape(interaction)}`,
      () => new Set(),
    ).add(`${response.status}/${code ?? 'none'}/${accepted ? 'accepted' : 'refused'}`);
  }
  return {
    responses: inferResponses(recording.interactions),
    operations: new Set(recording.interactions.map((i) => i.operation)),
    codes,
    caseResponses,
    statusPaths: statusPaths(recording.interactions),
    timing: recording.timing.summary,
    ...(recording.target?.clock ? { clock: recording.target.clock } : {}),
  };
}

/** Parameters whose values are made afresh per run (ids, addresses), left out of requestShape. */
const PER_RUN = new Set(['outOrderNo', 'orderId', 'pledgeAddress']);

/** A request's parameters (query and form), those made afresh per run aside, as one sorted text. */
function requestShape({ request }: Interaction): string {
  const params = { ...request.query, ...request.form };
  return Object.keys(params)
    .filter((name) => !PER_RUN.has(name))
    .sort()
    .map((name) => `${name}=${String(params[name])}`)
    .join('&');
}

/** Whether a field was in every object it could have been in. */
export function isAlwaysPresent(fields: Map<string, FieldShape>, field: FieldShape): boolean {
  const parent = fields.get(field.path.slice(0, field.path.lastIndexOf('/')));
  return !parent || field.count >= parent.objects;
}

/** 'integer', 'string (decimal-string, 2 decimals)', 'null or object', for reports. */
export function describeShape(field: FieldShape): string {
  return [...field.types]
    .sort()
    .map((type) => {
      if (type !== 'string') return type;
      const formats = [...field.formats]
        .sort()
        .map((f) =>
          f === 'decimal-string' && field.decimals ? `${f}, ${describeDecimals(field.decimals)}` : f,
        );
      return `string (${formats.join(', ')})`;
    })
    .join(' or ');
}

/** The number of decimals every numeric string has, proven fixed by a kept trailing zero ('3.80'). */
export function fixedDecimals(field: FieldShape): number | undefined {
  const d = field.decimals;
  return d && d.min === d.max && field.zeroPadded && !field.formats.has('integer-string') ? d.min : undefined;
}

/** The decimals of every numeric string of a field, integer strings counting 0. */
export function decimalRange(field: FieldShape): { min: number; max: number } | undefined {
  const d = field.decimals;
  if (!field.formats.has('integer-string')) return d;
  return d ? { min: 0, max: d.max } : { min: 0, max: 0 };
}

export function describeDecimals(d: { min: number; max: number }): string {
  return d.min === d.max ? `${d.min} decimal${d.min === 1 ? '' : 's'}` : `${d.min} to ${d.max} decimals`;
}
