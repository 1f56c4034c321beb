/**
 * Every answer the two documents describe shows a real example: one that validates
 * against its schema, not a generator's placeholder ("string", 0), so /docs never shows
 * an answer the simulator would not give.
 */
import { describe, expect, it } from 'vitest';
import { createValidators, loadSpec, type DocumentName } from './loader.ts';

interface MediaType {
  schema?: unknown;
  example?: unknown;
  examples?: Record<string, { value?: unknown; $ref?: string }>;
}

function resolve<T>(document: Record<string, unknown>, value: T): T {
  let current: unknown = value;
  while (current && typeof current === 'object' && '$ref' in current) {
    const path = String((current as { $ref: string }).$ref)
      .replace(/^#\//, '')
      .split('/');
    current = path.reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], document);
  }
  return current as T;
}

/** Every JSON answer of a document: where it is, its schema and its examples. */
function answers(
  name: DocumentName,
): Array<{ where: string; operationId: string; status: string; examples: unknown[] }> {
  const spec = loadSpec(name);
  const document = spec.document as unknown as Record<string, unknown>;
  const out: Array<{ where: string; operationId: string; status: string; examples: unknown[] }> = [];
  for (const op of spec.operations) {
    for (const [status, raw] of Object.entries(op.operation.responses ?? {})) {
      const response = resolve(document, raw) as { content?: Record<string, MediaType> };
      const media = response.content?.['application/json'];
      if (!media?.schema) continue;
      const examples = [
        ...(media.example !== undefined ? [media.example] : []),
        ...Object.values(media.examples ?? {}).map((e) => resolve(document, e).value),
      ];
      out.push({
        where: `${name} ${op.operationId} ${status}`,
        operationId: op.operationId,
        status,
        examples,
      });
    }
  }
  return out;
}

/** A value a documentation generator makes up when no example is given. */
function placeholder(value: unknown): string | undefined {
  if (value === 'string') return '"string"';
  if (typeof value === 'object' && value !== null) {
    const body = value as { code?: unknown; msg?: unknown };
    if (body.code === 0 && body.msg === 'string') return 'code 0 with msg "string"';
    for (const v of Object.values(value)) {
      const found = placeholder(v);
      if (found) return found;
    }
  }
  return undefined;
}

describe.each(['api', 'control'] as const)('the examples of spec/%s', (name) => {
  const validators = createValidators(loadSpec(name));
  const all = answers(name);

  // The API's answers are what users read in /docs; the control plane's examples are
  // checked where they are given (most of its answers have none yet).
  it.runIf(name === 'api')('give every JSON answer of every operation an example', () => {
    expect(all.length).toBeGreaterThan(0);
    expect(all.filter((a) => a.examples.length === 0).map((a) => a.where)).toEqual([]);
  });

  it.each(all.filter((a) => a.examples.length > 0).map((a) => [a.where, a] as const))(
    '%s: each example validates and is no placeholder',
    (_where, answer) => {
      const validate = validators.response(answer.operationId, answer.status)!;
      for (const example of answer.examples) {
        expect(placeholder(example), JSON.stringify(example)).toBeUndefined();
        expect(validate(example), JSON.stringify(validate.errors)).toBe(true);
      }
    },
  );
});
