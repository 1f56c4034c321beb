/**
 * Compares a recording with spec/openapi.yaml: each API answer validated as the contract
 * suite does, undeclared fields listed, time units and decimals against the provider's
 * examples, status paths against the documented lifecycle.
 */
import { checkAnswer } from '../src/spec/response-check.ts';
import type { Exchange } from '../src/client/index.ts';
import type { OperationId } from '../src/models.ts';
import { isSubsequence } from './compare.ts';
import type { Finding, FindingKind } from './finding.ts';
import {
  describeDecimals,
  describeResponse,
  describeShape,
  fixedDecimals,
  inferResponses,
  stringFormat,
  timeUnit,
  type FieldShape,
} from './infer-schema.ts';
import { statusPaths } from '../recording/order-observations.ts';
import { isApiOperation, type Interaction, type Recording } from '../recording/recording.ts';
import { isSuccess } from './recorded-exchange.ts';
import { documentedResponse, documentedStatusPaths, schemaAt, valueAt } from './spec-schema.ts';

/** What the document cannot tell, so a spec comparison never reports it. */
export const SPEC_NOTES: string[] = [
  'spec/openapi.yaml publishes no error codes, message texts or timing for the real service, so those are not compared; compare two recordings for them.',
];

const KIND_OF_KEYWORD: Record<string, FindingKind> = {
  required: 'field-removed',
  type: 'type-changed',
  pattern: 'format-changed',
  format: 'format-changed',
  enum: 'unknown-enum-value',
  const: 'unknown-enum-value',
};

/**
 * Reports where a recording departs from spec/openapi.yaml.
 *
 * @example
 *   compareWithSpec(loadRecording('recordings/upstream.json')); // [] when the service matches the document
 */
export function compareWithSpec(recording: Recording): Finding[] {
  const simulator = recording.target.simulator;
  const api = recording.interactions.filter((i) => isApiOperation(i.operation) && i.response);
  const findings = new Map<string, Finding & { count: number }>();
  const add = (key: string, finding: Finding): void => {
    const existing = findings.get(key);
    if (existing) existing.count++;
    else findings.set(key, { ...finding, count: 1 });
  };

  for (const interaction of api) {
    const response = interaction.response!;
    const body = response.body !== undefined ? response.body : response.text;
    const code =
      typeof (body as { code?: unknown } | undefined)?.code === 'number'
        ? (body as { code: number }).code
        : null;
    const label = describeResponse({ statusClass: `${Math.floor(response.status / 100)}xx`, code });
    const exchange = {
      operationId: interaction.operation as OperationId,
      method: interaction.request.method,
      url: interaction.request.path,
      requestHeaders: {},
      status: response.status,
      body,
      durationMs: 0,
    } satisfies Exchange;
    for (const violation of checkAnswer(exchange, { simulator })) {
      const kind = KIND_OF_KEYWORD[violation.keyword] ?? 'spec-violation';
      const path = violation.path === '/' ? '' : violation.path;
      const schema = violation.schema as
        { type?: unknown; pattern?: unknown; format?: unknown; enum?: unknown } | undefined;
      const expected =
        kind === 'field-removed'
          ? 'required'
          : kind === 'type-changed'
            ? String(schema?.type ?? '')
            : kind === 'format-changed'
              ? String(schema?.format ?? schema?.pattern ?? '')
              : kind === 'unknown-enum-value' && Array.isArray(schema?.enum)
                ? schema.enum.join(', ')
                : violation.message;
      const actual = kind === 'field-removed' ? 'absent' : JSON.stringify(violation.actual);
      add(`${interaction.operation}\n${label}\n${path}\n${kind}`, {
        severity: 'breaking',
        kind,
        operation: interaction.operation,
        response: label,
        path,
        old: expected,
        new: actual,
        message: `${interaction.operation} ${path || '(body)'}: ${violation.message} (the document: ${expected}; recorded: ${actual}).`,
      });
    }
  }

  // Fields the document does not declare, and time units and decimals against the
  // provider's published examples. A rejection the document does not describe is read
  // against the fullest description of one, the ErrorEnvelope.
  const byResponse = new Map<string, Interaction[]>();
  for (const interaction of api) {
    const fallback = isSuccess(interaction) ? '' : 'ErrorEnvelope';
    const key = `${interaction.operation}\n${interaction.response!.status}\n${fallback}`;
    byResponse.set(key, [...(byResponse.get(key) ?? []), interaction]);
  }
  for (const [key, interactions] of byResponse) {
    const [operation, statusText, fallback] = key.split('\n') as [string, string, string];
    const documented = documentedResponse(
      operation,
      Number(statusText),
      (fallback || undefined) as 'ErrorEnvelope' | undefined,
    );
    if (!documented) continue;
    for (const shape of inferResponses(interactions).values()) {
      const label = describeResponse(shape);
      for (const field of shape.fields.values()) {
        if (field.path === '') continue;
        const node = schemaAt(documented.schema, field.path);
        const parent = schemaAt(documented.schema, field.path.slice(0, field.path.lastIndexOf('/')));
        if (!node) {
          // Only the topmost undeclared field: its children are undeclared with it.
          if (parent)
            add(`${operation}\n${label}\n${field.path}\nfield-added`, {
              severity: 'non-breaking',
              kind: 'field-added',
              operation,
              response: label,
              path: field.path,
              old: 'not in the document',
              new: describeShape(field),
              message: `${operation} ${field.path} is not in spec/openapi.yaml (${describeShape(field)}, e.g. ${JSON.stringify(field.example)}).`,
            });
          continue;
        }
        const example =
          documented.example === undefined ? undefined : valueAt(documented.example, field.path);
        for (const finding of againstExample(operation, label, field, example, node.unverified))
          add(`${operation}\n${label}\n${field.path}\n${finding.old}`, finding);
      }
    }
  }

  const documentedPaths = documentedStatusPaths();
  for (const [path, count] of statusPaths(recording.interactions)) {
    const statuses = path.split(' → ');
    if (documentedPaths.some((known) => isSubsequence(statuses, known))) continue;
    add(`status\n${path}`, {
      severity: 'breaking',
      kind: 'new-status-path',
      operation: 'getOrderHistory',
      path: '/data/status',
      old: documentedPaths.map((p) => p.join(' → ')).join(' | '),
      new: path,
      message: `${count} order${count === 1 ? '' : 's'} went ${path}, which the document's lifecycle (${documentedPaths.map((p) => p.join(' → ')).join(', or ')}) does not allow.`,
    });
  }
  return [...findings.values()].map(({ count, ...finding }) =>
    count > 1 ? { ...finding, message: `${finding.message} Seen ${count} times.` } : finding,
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
  const exampleNumber =
    typeof example === 'number'
      ? example
      : typeof example === 'string' && /^\d+$/.test(example)
        ? Number(example)
        : undefined;
  if (field.timeUnits.size > 0 && exampleNumber !== undefined) {
    const expected = timeUnit(exampleNumber);
    const seen = [...field.timeUnits].filter((u) => u !== expected);
    if (seen.length > 0) {
      findings.push({
        severity: 'breaking',
        kind: 'format-changed',
        operation,
        response,
        path: field.path,
        old: `time in ${expected}`,
        new: `time in ${[...field.timeUnits].join(', ')}`,
        message: `${operation} ${field.path}: time in ${seen.join(', ')} where the document's example is in ${expected} (${JSON.stringify(example)} vs ${JSON.stringify(field.example)}).${note}`,
      });
    }
  }
  // Only a recording proven to keep N decimals (a trailing zero kept) contradicts the example's.
  const fixed = fixedDecimals(field);
  if (typeof example === 'string' && stringFormat(example) === 'decimal-string' && fixed !== undefined) {
    const places = example.length - example.indexOf('.') - 1;
    if (fixed !== places) {
      findings.push({
        severity: 'breaking',
        kind: 'format-changed',
        operation,
        response,
        path: field.path,
        old: `${describeDecimals({ min: places, max: places })} in the example`,
        new: `always ${describeDecimals({ min: fixed, max: fixed })}`,
        message: `${operation} ${field.path}: always ${describeDecimals({ min: fixed, max: fixed })} where the document's example shows ${places} (${JSON.stringify(example)} vs ${JSON.stringify(field.example)}).${note}`,
      });
    }
  }
  return findings;
}
