/** Compares a recording with spec/openapi.yaml: answers, undeclared fields, units, decimals, lifecycle. */
import { checkAnswer } from '../src/spec/response-check.ts';
import { isSubsequence } from './compare.ts';
import { finding, type Finding, type FindingKind } from './finding.ts';
import {
  describeDecimals,
  describeResponse,
  describeShape,
  fixedDecimals,
  inferResponses,
  stringFormat,
  type FieldShape,
} from './infer-schema.ts';
import { statusPaths, timeUnit } from '../recording/order-observations.ts';
import { isApiOperation, type Interaction, type Recording } from '../recording/recording.ts';
import { isSuccess } from './recorded-exchange.ts';
import { documentedResponse, documentedStatusPaths, schemaAt, valueAt } from './spec-schema.ts';

/** What the document cannot tell, so a spec comparison never reports it. */
export const SPEC_NOTES: string[] = [
  'spec/openapi.yaml publishes no error codes, message texts or timing for the real service, so those are not compared; compare two recordings for them.',
];

/** A violated keyword's kind of finding, and what the document asks for, in words. */
const KIND_OF_KEYWORD: Record<string, [FindingKind, (schema: Record<string, unknown>) => unknown]> = {
  required: ['field-removed', () => 'required'],
  type: ['type-changed', (s) => s.type ?? ''],
  pattern: ['format-changed', (s) => s.format ?? s.pattern ?? ''],
  format: ['format-changed', (s) => s.format ?? s.pattern ?? ''],
  enum: ['unknown-enum-value', (s) => (Array.isArray(s.enum) ? s.enum.join(', ') : undefined)],
  const: ['unknown-enum-value', () => undefined],
};

/** Where a recording departs from spec/openapi.yaml: `compareWithSpec(recording); // [] when it matches`. */
export function compareWithSpec(recording: Recording): Finding[] {
  const api = recording.interactions.filter((i) => isApiOperation(i.operation) && i.response);
  const findings = new Map<string, Finding & { count: number }>();
  const add = (found: Finding, distinct: string = found.kind): void => {
    const key = `${found.operation}\n${found.response}\n${found.path}\n${distinct}`;
    const existing = findings.get(key);
    if (existing) existing.count++;
    else findings.set(key, { ...found, count: 1 });
  };

  for (const { operation, response: answer } of api) {
    const body = answer!.body !== undefined ? answer!.body : answer!.text;
    const code = (body as { code?: unknown } | undefined)?.code;
    const response = describeResponse({
      statusClass: `${Math.floor(answer!.status / 100)}xx`,
      code: typeof code === 'number' ? code : null,
    });
    for (const violation of checkAnswer(
      { operationId: operation, status: answer!.status, body },
      recording.target,
    )) {
      const [kind, asked] = KIND_OF_KEYWORD[violation.keyword] ?? ['spec-violation', () => undefined];
      const path = violation.path === '/' ? '' : violation.path;
      const expected = String(
        asked((violation.schema ?? {}) as Record<string, unknown>) ?? violation.message,
      );
      const actual = kind === 'field-removed' ? 'absent' : JSON.stringify(violation.actual);
      const message = `${operation} ${path || '(body)'}: ${violation.message} (the document: ${expected}; recorded: ${actual}).`;
      add(finding('breaking', kind, { operation, response, path }, expected, actual, message));
    }
  }

  // Undeclared fields, time units and decimals against the provider's examples; a rejection the
  // document does not describe is read against the ErrorEnvelope.
  const byResponse = new Map<string, Interaction[]>();
  for (const i of api) {
    const key = `${i.operation}\n${i.response!.status}\n${isSuccess(i) ? '' : 'ErrorEnvelope'}`;
    byResponse.set(key, [...(byResponse.get(key) ?? []), i]);
  }
  for (const [key, interactions] of byResponse) {
    const [operation, status, fallback] = key.split('\n') as [string, string, 'ErrorEnvelope' | ''];
    const documented = documentedResponse(operation, Number(status), fallback || undefined);
    if (!documented) continue;
    for (const shape of inferResponses(interactions).values()) {
      const response = describeResponse(shape);
      for (const field of shape.fields.values()) {
        const node = schemaAt(documented.schema, field.path);
        const parent = schemaAt(documented.schema, field.path.slice(0, field.path.lastIndexOf('/')));
        const example = valueAt(documented.example, field.path);
        if (node && field.path !== '')
          for (const found of againstExample(operation, response, field, example, node.unverified))
            add(found, found.old);
        // Only the topmost undeclared field: its children are undeclared with it.
        if (node || !parent || field.path === '') continue;
        const shown = describeShape(field);
        const message = `${operation} ${field.path} is not in spec/openapi.yaml (${shown}, e.g. ${JSON.stringify(field.example)}).`;
        const at = { operation, response, path: field.path };
        add(finding('non-breaking', 'field-added', at, 'not in the document', shown, message));
      }
    }
  }

  const documentedPaths = documentedStatusPaths();
  for (const [path, count] of statusPaths(recording.interactions)) {
    const statuses = path.split(' → ');
    if (documentedPaths.some((known) => isSubsequence(statuses, known))) continue;
    const lifecycle = documentedPaths.map((p) => p.join(' → '));
    const message = `${count} order${count === 1 ? '' : 's'} went ${path}, which the document's lifecycle (${lifecycle.join(', or ')}) does not allow.`;
    const at = { operation: 'getOrderHistory', path: '/data/status' };
    add(finding('breaking', 'new-status-path', at, lifecycle.join(' | '), path, message), path);
  }
  return [...findings.values()].map(({ count, ...found }) =>
    count > 1 ? { ...found, message: `${found.message} Seen ${count} times.` } : found,
  );
}

/** Time unit and fixed decimals of a field against the document's example value. */
function againstExample(
  operation: string,
  response: string,
  field: FieldShape,
  example: unknown,
  unverified: boolean,
): Finding[] {
  const findings: Finding[] = [];
  const note = unverified
    ? ' The document marks this field x-unverified: the service is the authority, update the spec.'
    : '';
  const vs = `(${JSON.stringify(example)} vs ${JSON.stringify(field.example)}).${note}`;
  const changed = (old: string, now: string, message: string): number =>
    findings.push(
      finding('breaking', 'format-changed', { operation, response, path: field.path }, old, now, message),
    );
  const exampleTime = typeof example === 'string' && /^\d+$/.test(example) ? Number(example) : example;
  if (field.timeUnits.size > 0 && typeof exampleTime === 'number') {
    const expected = timeUnit(exampleTime);
    const seen = [...field.timeUnits].filter((u) => u !== expected);
    if (seen.length > 0)
      changed(
        `time in ${expected}`,
        `time in ${[...field.timeUnits].join(', ')}`,
        `${operation} ${field.path}: time in ${seen.join(', ')} where the document's example is in ${expected} ${vs}`,
      );
  }
  // Only a recording proven to keep N decimals (a trailing zero kept) contradicts the example's.
  const fixed = fixedDecimals(field);
  if (typeof example === 'string' && stringFormat(example) === 'decimal-string' && fixed !== undefined) {
    const places = example.length - example.indexOf('.') - 1;
    const always = `always ${describeDecimals({ min: fixed, max: fixed })}`;
    if (fixed !== places)
      changed(
        `${describeDecimals({ min: places, max: places })} in the example`,
        always,
        `${operation} ${field.path}: ${always} where the document's example shows ${places} ${vs}`,
      );
  }
  return findings;
}
