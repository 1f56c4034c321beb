/** Compares two recordings through their inferred schemas, per operation and JSON path. */
import { finding, type Finding } from './finding.ts';
import {
  decimalRange,
  describeDecimals,
  describeResponse,
  describeShape,
  fixedDecimals,
  inferRecording,
  isAlwaysPresent,
  type FieldShape,
  type InferredRecording,
  type ResponseShape,
  type StringFormat,
} from './infer-schema.ts';
import type { Recording } from '../recording/recording.ts';
import { documentedResponse, documentedStatusPaths, schemaAt, type SchemaNode } from './spec-schema.ts';

export interface CompareOptions {
  /** Median seconds to a status may move this much before it is reported. Default 2. */
  timingThresholdSeconds?: number;
}

export const DEFAULT_TIMING_THRESHOLD = 2;

/** Whether `fields` has the container a path hangs from (an object, or an array for '*'). */
function hasContainer(fields: Map<string, FieldShape>, path: string): boolean {
  const parent = fields.get(path.slice(0, path.lastIndexOf('/')));
  return parent?.types.has(path.endsWith('/*') ? 'array' : 'object') === true;
}

const isNumeric = (f: FieldShape): boolean => f.types.has('integer') || f.types.has('number');
const isNumericString = (f: FieldShape): boolean =>
  f.formats.has('integer-string') || f.formats.has('decimal-string');

/** Integer and decimal strings are one family: whether '1000' or '996.16' comes up is the value's doing. */
const family = (format: StringFormat): string =>
  format === 'integer-string' || format === 'decimal-string' ? 'numeric-string' : format;

const list = (values: Iterable<string>): string => [...values].sort().join(', ');

/** Type, format, time unit and decimals of a path on both sides (a decimal against an integer pattern). */
function compareField(
  operation: string,
  response: string,
  old: FieldShape,
  next: FieldShape,
  documented?: SchemaNode,
): Finding[] {
  const at = { operation, response, path: old.path };
  const e = `(e.g. ${JSON.stringify(next.example)})`;
  const newTypes = [...next.types].filter(
    (t) => !old.types.has(t) && !(t === 'integer' && old.types.has('number')),
  );
  if (newTypes.length > 0) {
    const [before, after] = [describeShape(old), describeShape(next)];
    const change =
      isNumeric(old) && !old.types.has('string') && next.types.has('string') && isNumericString(next)
        ? `a number became a ${next.formats.has('decimal-string') ? 'decimal' : 'numeric'} string`
        : old.types.has('string') && isNumericString(old) && isNumeric(next)
          ? 'a numeric string became a number'
          : 'the type changed';
    const message = `${operation} ${old.path}: ${change} (${before} → ${after}).`;
    return [finding('breaking', 'type-changed', at, before, after, message)];
  }
  const findings: Finding[] = [];
  const changed = (before: string, after: string, message: string): number =>
    findings.push(finding('breaking', 'format-changed', at, before, after, message));
  if (old.types.has('string') && next.types.has('string')) {
    const oldFamilies = new Set([...old.formats].map(family));
    const newFormats = [...next.formats].filter((f) => !oldFamilies.has(family(f)));
    const integersOnly = documented?.pattern !== undefined && !new RegExp(documented.pattern).test('1.5');
    if (integersOnly && next.formats.has('decimal-string') && !old.formats.has('decimal-string'))
      newFormats.push('decimal-string');
    if (newFormats.length > 0) {
      const idish = [...old.formats].some((f) => ['order-id', 'uuid', 'hex64', 'tron-address'].includes(f));
      const what = idish ? 'the id format changed' : 'the string format changed';
      const message = `${operation} ${old.path}: ${what}, now ${newFormats.join(', ')} where OLD had ${list(old.formats)} ${e}.`;
      changed(list(old.formats), list(next.formats), message);
    }
    // Decimals differ only where one side proves a fixed number (fixedDecimals) that the other breaks.
    const [was, now] = [decimalRange(old), decimalRange(next)];
    const [oldFixed, newFixed] = [fixedDecimals(old), fixedDecimals(next)];
    if (
      was &&
      now &&
      (oldFixed !== undefined
        ? now.min !== oldFixed || now.max !== oldFixed
        : newFixed !== undefined && was.max > newFixed)
    ) {
      const before = `${oldFixed !== undefined ? 'always ' : ''}${describeDecimals(was)}`;
      const after = `${newFixed !== undefined ? 'always ' : ''}${describeDecimals(now)}`;
      changed(
        before,
        after,
        `${operation} ${old.path}: the number of decimals changed, ${before} → ${after} ${e}.`,
      );
    }
  }
  if (old.timeUnits.size > 0 && [...next.timeUnits].some((u) => !old.timeUnits.has(u))) {
    const [before, after] = [[...old.timeUnits].join(', '), [...next.timeUnits].join(', ')];
    const message = `${operation} ${old.path}: the time unit changed, ${before} → ${after} ${e}.`;
    changed(`time in ${before}`, `time in ${after}`, message);
  }
  return findings;
}

/** The spec's schema of a path of a response, when the document has the response. */
function documentedNode(shape: ResponseShape, path: string): SchemaNode | undefined {
  const status = [...shape.statuses][0];
  const documented = status === undefined ? undefined : documentedResponse(shape.operation, status);
  return documented ? schemaAt(documented.schema, path) : undefined;
}

/** Whether `path` is `known` with some statuses left out (polling can miss a short status). */
export function isSubsequence(path: string[], known: string[]): boolean {
  let i = 0;
  for (const status of known) if (status === path[i]) i++;
  return i === path.length;
}

const transient = (status: number): boolean => status === 429 || status >= 500;

/** An answer of caseResponses ('status/code/outcome'). */
function answerOf(pair: string): { status: number; text: string; outcome: string } {
  const [status, code, outcome] = pair.split('/') as [string, string, string];
  return { status: Number(status), text: `HTTP ${status} (code ${code})`, outcome };
}

/** Compares two inferred recordings: `compareInferred(inferRecording(a), inferRecording(b)); // [] alike`. */
export function compareInferred(
  old: InferredRecording,
  next: InferredRecording,
  options: CompareOptions = {},
): Finding[] {
  const threshold = options.timingThresholdSeconds ?? DEFAULT_TIMING_THRESHOLD;
  const findings: Finding[] = [];
  const add = (...args: Parameters<typeof finding>): number => findings.push(finding(...args));

  for (const operation of old.operations)
    if (!next.operations.has(operation)) {
      const message = `${operation} was recorded in OLD but never called in NEW, so it could not be compared.`;
      add('non-breaking', 'operation-unobserved', { operation, path: '' }, undefined, undefined, message);
    }

  for (const [key, shape] of next.responses) {
    const before = old.responses.get(key);
    // Enum values in NEW that the document does not list for that field (and OLD never showed).
    for (const field of shape.fields.values()) {
      const listed = documentedNode(shape, field.path)?.enum;
      const unknown = [...field.values].filter(
        (v) => !listed?.includes(v) && !before?.fields.get(field.path)?.values.has(v),
      );
      if (!listed || !field.types.has('string') || unknown.length === 0) continue;
      const values = unknown.map((v) => `'${v}'`).join(', ');
      const message = `${shape.operation} ${field.path}: ${values} ${unknown.length === 1 ? 'is' : 'are'} not among the values the spec lists (${listed.join(', ')}).`;
      const at = { operation: shape.operation, response: describeResponse(shape), path: field.path };
      add('breaking', 'unknown-enum-value', at, listed.join(', '), unknown.join(', '), message);
    }
    if (!before) continue;
    const { operation } = shape;
    const response = describeResponse(shape);
    for (const [path, field] of before.fields) {
      const now = shape.fields.get(path);
      const was = describeShape(field);
      if (now) findings.push(...compareField(operation, response, field, now, documentedNode(shape, path)));
      // A field OLD showed only sometimes, or items of an array NEW saw empty, may just not have come up.
      else if (
        path !== '' &&
        !path.endsWith('/*') &&
        hasContainer(shape.fields, path) &&
        isAlwaysPresent(before.fields, field)
      ) {
        const message = `${operation} ${path} is gone: OLD always had it in ${response} responses (${was}), NEW never has.`;
        add('breaking', 'field-removed', { operation, response, path }, was, 'absent', message);
      }
    }
    for (const [path, field] of shape.fields) {
      if (path === '' || before.fields.has(path) || !hasContainer(before.fields, path)) continue;
      const shown = describeShape(field);
      const message = `${operation} ${path} is new in ${response} responses (${shown}, e.g. ${JSON.stringify(field.example)}).`;
      add('non-breaking', 'field-added', { operation, response, path }, 'absent', shown, message);
    }
    const oldMessages = [...before.messages.values()];
    for (const [template, msg] of oldMessages.length > 0 ? shape.messages : []) {
      if (before.messages.has(template)) continue;
      const message = `${operation} (${response}) says ${JSON.stringify(msg)} where OLD said ${oldMessages.map((m) => JSON.stringify(m)).join(' or ')}.`;
      add(
        'non-breaking',
        'message-changed',
        { operation, response, path: '/msg' },
        oldMessages.join(' | '),
        msg,
        message,
      );
    }
  }

  const show = (codes: Iterable<number | null>): string =>
    [...codes].map((c) => String(c ?? 'none')).join(', ');
  for (const [key, codes] of next.codes) {
    const oldCodes = old.codes.get(key);
    const added = [...codes].filter((c) => oldCodes && !oldCodes.has(c));
    if (!oldCodes || added.length === 0) continue;
    const [operation, status] = key.split('\n') as [string, string];
    const message = `${operation} HTTP ${status}: code ${show(added)} is new; OLD answered this status with code ${show(oldCodes)}.`;
    const at = { operation, response: `HTTP ${status}`, path: '/code' };
    add('breaking', 'code-changed', at, show(oldCodes), show(codes), message);
  }

  // A case's request answered with a status it never had, or accepted where OLD refused it (or the reverse).
  type Change = { operation: string; old: string; now: ReturnType<typeof answerOf>; flip: string };
  const changes = new Map<string, Change & { cases: string[] }>();
  for (const [caseKey, pairs] of next.caseResponses) {
    const before = [...(old.caseResponses.get(caseKey) ?? [])].map(answerOf);
    // A request OLD only ever got a transient answer to (a 429 or 503 given up on) shows nothing to compare.
    if (before.every((a) => transient(a.status))) continue;
    const [caseName, operation] = caseKey.split('\n') as [string, string];
    const oldText = [...new Set(before.map((a) => a.text))].join(' or ');
    for (const now of [...pairs].map(answerOf)) {
      const flip = before.some((a) => a.outcome === now.outcome)
        ? ''
        : `; ${now.outcome} where OLD ${now.outcome === 'accepted' ? 'refused' : 'accepted'} it`;
      if (!flip && before.some((a) => a.status === now.status)) continue;
      const key = `${operation}\n${oldText}\n${now.text}\n${now.outcome}`;
      const entry = changes.get(key) ?? { operation, old: oldText, now, flip, cases: [] };
      if (!entry.cases.includes(caseName)) entry.cases.push(caseName);
      changes.set(key, entry);
    }
  }
  for (const { operation, old: before, now, flip, cases } of changes.values()) {
    const plural = cases.length === 1 ? '' : 's';
    const message = `${operation} answered ${now.text} where OLD answered ${before}${flip}, in ${cases.length} case${plural} (e.g. "${cases[0]}")${transient(now.status) ? '; a transient status' : ''}.`;
    const severity = transient(now.status) ? 'non-breaking' : 'breaking';
    add(severity, 'response-changed', { operation, path: '' }, before, now.text, message);
  }

  const history = { operation: 'getOrderHistory', path: '/data/status' };
  const known = [...old.statusPaths.keys()].join(' | ') || 'none';
  const oldPaths = [...old.statusPaths.keys()].map((p) => p.split(' → '));
  const lifecycles = documentedStatusPaths();
  for (const [path, count] of next.statusPaths) {
    if (old.statusPaths.has(path)) continue;
    const statuses = path.split(' → ');
    const partial = oldPaths.some((known) => isSubsequence(statuses, known));
    // With a manual clock on either side, a path within OLD's, or both within one lifecycle, is sampling.
    const sampled =
      !partial &&
      (old.clock === 'manual' || next.clock === 'manual') &&
      (oldPaths.some((known) => isSubsequence(known, statuses)) ||
        lifecycles.some(
          (full) => isSubsequence(statuses, full) && oldPaths.some((known) => isSubsequence(known, full)),
        ));
    const went = `${count} order${count === 1 ? '' : 's'} went ${path}`;
    let message = `${went}, a status path OLD never showed (OLD: ${known}).`;
    if (partial) message = `${went}: a known path with statuses left out (polling can miss a short status).`;
    if (sampled)
      message = `${went}: a sample of a path OLD showed, with a manual clock on one side (it moves in polling steps and steps over a short status).`;
    add(partial || sampled ? 'non-breaking' : 'breaking', 'new-status-path', history, known, path, message);
  }

  for (const [status, after] of Object.entries(next.timing.medianSecondsTo)) {
    const before = old.timing.medianSecondsTo[status as keyof typeof old.timing.medianSecondsTo];
    if (before === undefined || after === undefined || Math.abs(after - before) <= threshold) continue;
    const message = `Orders reach ${status} after a median ${after} s where OLD took ${before} s (more than the ${threshold} s threshold).`;
    add('non-breaking', 'timing-shift', history, `${before} s`, `${after} s`, message);
  }
  return findings;
}

/** Compares two recordings, each without the 429s a paced run waited out and retried (as an unpaced run). */
export function compareRecordings(old: Recording, next: Recording, options: CompareOptions = {}): Finding[] {
  const settled = (r: Recording): Recording => ({
    ...r,
    interactions: r.interactions.filter((i) => !i.retried),
  });
  return compareInferred(inferRecording(settled(old)), inferRecording(settled(next)), options);
}
