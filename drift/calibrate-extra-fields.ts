/** The fields the service sends that the document does not list, each with a source for every sample. */
import type { components } from '../src/generated/control.ts';
import { API_OPERATION_IDS } from '../src/generated/lists.ts';
import { timeUnit, toUnixSeconds } from '../recording/order-observations.ts';
import type { Interaction } from '../recording/recording.ts';
import {
  combine,
  isObject,
  json,
  learnt,
  short,
  type Learning,
  type Learnt,
  type Unreproduced,
} from './calibrate-answers.ts';
import { childPath, inferFields, type FieldShape } from './infer-schema.ts';
import { bodyOf, evidence, isSuccess, param, paramsOf, sentTo } from './recorded-exchange.ts';
import { documentedResponse, schemaAt, valueAt } from './spec-schema.ts';

type Control = components['schemas'];
type ExtraField = Control['ExtraField'];

/** The order record an answer is about, by the history's field names, for copies. */
function orderRecordOf(operation: string, i: Interaction): Record<string, unknown> | undefined {
  const data = bodyOf(i)?.data;
  if (!isObject(data)) return undefined;
  if (operation === 'getOrderHistory') {
    // The documented fields only: an undocumented one is what is being explained.
    const documented = documentedResponse('getOrderHistory', 200)?.schema;
    const record: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(data))
      if (documented && schemaAt(documented, `/data/${name}`) !== undefined) record[name] = value;
    const outOrderNo = param(i, 'outOrderNo');
    if (outOrderNo !== undefined) record.outOrderNo = outOrderNo;
    return record;
  }
  if (operation === 'createOrder') {
    const record: Record<string, unknown> = { orderId: data.id, currency: data.currency };
    for (const name of ['pledgeAddress', 'rentalCount', 'period', 'outOrderNo']) {
      const sent = param(i, name);
      if (sent !== undefined) record[name] = sent;
    }
    if (typeof data.outOrderNo === 'string') record.outOrderNo = data.outOrderNo;
    return record;
  }
  return undefined;
}

/** The first name `from` gives whose value equals the field's in every sample. */
function common(
  samples: Array<{ i: Interaction; value: unknown }>,
  from: (i: Interaction) => Record<string, unknown> | undefined,
  equal: (a: unknown, b: unknown) => boolean,
): string | undefined {
  return Object.keys(from(samples[0]!.i) ?? {}).find((n) =>
    samples.every((s) => equal(from(s.i)?.[n], s.value)),
  );
}

/** A field's source: a constant, a copied parameter or order field, createdAt + offset, a generated value. */
function extraSource(
  operation: string,
  path: string,
  samples: Array<{ i: Interaction; value: unknown }>,
  field: FieldShape,
): { source: Omit<ExtraField, 'path'>; observed: string } | { why: string } {
  const first = samples[0]!.value;
  if (samples.every((s) => json(s.value) === json(first)))
    return { source: { constant: first }, observed: `${samples.length}× ${short(first)}` };
  const parameter = common(samples, paramsOf, (a, b) => typeof b === 'string' && a === b);
  if (parameter)
    return {
      source: { copyParameter: parameter },
      observed: `equals the request's ${parameter} in ${samples.length} answers`,
    };
  const copied = common(
    samples,
    (i) => orderRecordOf(operation, i),
    (a, b) => json(a) === json(b),
  );
  if (copied)
    return {
      source: { copyOrderField: copied },
      observed: `equals the order's ${copied} in ${samples.length} answers`,
    };
  // A Unix time (by magnitude) at one offset from the order's creation.
  if (operation === 'getOrderHistory' && samples.every((s) => typeof s.value === 'number')) {
    const unit = timeUnit(first as number);
    const offsets = samples.map((s) => {
      const createdAt = toUnixSeconds((bodyOf(s.i)?.data as Record<string, unknown> | undefined)?.createdAt);
      const at = toUnixSeconds(s.value);
      return createdAt === undefined || at === undefined ? undefined : Math.round((at - createdAt) * 1000);
    });
    const offset = offsets[0];
    if (
      (first as number) >= 1e9 &&
      unit !== 'microseconds' &&
      offset !== undefined &&
      Math.abs(offset) <= 31_536_000_000 &&
      offsets.every((o) => o === offset)
    )
      return {
        source: { createdAtOffsetMs: offset, unit: unit === 'milliseconds' ? 'ms' : 's' },
        observed: `createdAt + ${offset} ms in ${samples.length} answers`,
      };
  }
  const types = [...field.types];
  if (types.length !== 1) return { why: `its type varies (${types.sort().join(', ')})` };
  const example = String(first);
  if (types[0] === 'integer')
    return {
      source: { generate: 'integer', length: Math.min(15, String(Math.abs(first as number)).length) },
      observed: `integers such as ${example}`,
    };
  if (types[0] !== 'string') return { why: `${types[0]} values that vary cannot be drawn` };
  const formats = [...field.formats];
  if (formats.length !== 1) return { why: `its formats vary (${formats.sort().join(', ')})` };
  const format = formats[0]!;
  const observed = `${format === 'decimal-string' ? 'decimal strings' : `${format} values`} such as ${json(first)}`;
  if (['uuid', 'hex64', 'order-id', 'tron-address'].includes(format))
    return { source: { generate: format as 'uuid' }, observed };
  if (format === 'integer-string' || format === 'text')
    return { source: { generate: format, length: Math.min(64, example.length) }, observed };
  if (format === 'decimal-string')
    return { source: { generate: format, decimals: Math.max(1, field.decimals?.max ?? 2) }, observed };
  return { why: `${format} values cannot be drawn` };
}

/**
 * The undocumented fields of each operation's successes, with their sources.
 * @example
 *   learnExtraFields(interactions).settings.extraFields; // { getPrice: [{ path: '/data/fee', constant: '0' }] }
 */
export function learnExtraFields(interactions: Interaction[]): Learning {
  const found = combine(
    API_OPERATION_IDS.flatMap((operation) => {
      const answers = interactions.filter((i) => sentTo(i, operation) && isSuccess(i));
      const documented = documentedResponse(operation, 200)?.schema;
      if (answers.length === 0 || !documented) return [];
      const { fields, ...rest } = extraFieldsOf(answers, documented, {
        operation,
        setting: `extraFields.${operation}`,
      });
      return [{ settings: fields.length > 0 ? { extraFields: { [operation]: fields } } : {}, ...rest }];
    }),
  );
  return found.settings.extraFields ? found : combine([found, learnt('extraFields')]);
}

/**
 * The fields of some answers that `documented` does not declare, with their sources; what
 * none reproduces is reported. `operation` names them, and lets an order's copy its fields.
 * @example
 *   extraFieldsOf(rejections, envelope, { operation: 'errors.apiKeyMissing', setting: 'errors.apiKeyMissing.extraFields' }).fields;
 *   // [{ path: '/traceId', generate: 'hex64' }]
 */
export function extraFieldsOf(
  answers: Interaction[],
  documented: NonNullable<ReturnType<typeof schemaAt>>,
  { operation, setting }: { operation: string; setting: string },
): { fields: ExtraField[]; table: Learnt[]; unreproduced: Unreproduced[] } {
  const out = { fields: [] as ExtraField[], table: [] as Learnt[], unreproduced: [] as Unreproduced[] };
  const shapes = inferFields(answers.map((i) => i.response?.body));
  // The roots of what the document does not list: undeclared paths of declared parents, items aside.
  const roots = [...shapes.keys()].filter(
    (path) =>
      path !== '' &&
      !path.includes('/*') &&
      schemaAt(documented, path) === undefined &&
      schemaAt(documented, path.slice(0, path.lastIndexOf('/'))) !== undefined,
  );
  const visit = (path: string): void => {
    const samples = answers
      .map((i) => ({ i, value: valueAt(i.response?.body, path) }))
      .filter((s) => s.value !== undefined);
    const field = shapes.get(path);
    if (samples.length === 0 || !field) return;
    const where = `${operation} ${path}`;
    if (samples.length < answers.length)
      out.unreproduced.push({
        what: where,
        why: `present in ${samples.length} of ${answers.length} answers; the simulator sends it in every one`,
        evidence: evidence(samples[0]!.i, short(samples[0]!.value)),
      });
    const allObjects = samples.every((s) => isObject(s.value));
    const allEqual = samples.every((s) => json(s.value) === json(samples[0]!.value));
    if (allObjects && !allEqual) {
      const keys = new Set(samples.flatMap((s) => Object.keys(s.value as object)));
      for (const key of keys) visit(childPath(path, key));
      return;
    }
    const found = extraSource(operation, path, samples, field);
    if ('why' in found) {
      out.unreproduced.push({
        what: where,
        why: `${found.why}; the simulator leaves it out`,
        evidence: evidence(samples[0]!.i, short(samples[0]!.value)),
      });
      return;
    }
    const entry = { path, ...found.source } as ExtraField;
    out.table.push({
      setting: `${setting}.${out.fields.length}`,
      value: entry,
      evidence: evidence(samples[0]!.i, `${path}: ${found.observed}`),
    });
    out.fields.push(entry);
  };
  for (const root of roots.sort()) visit(root);
  return out;
}
