/** The documents' response schemas read by JSON path, `$ref` and `allOf` followed, and their examples. */
import type { OpenAPIObject, SchemaObject } from '../src/spec/openapi-types.ts';
import { loadSpec, type LoadedSpec } from '../src/spec/loader.ts';
import { resolveReference } from '../src/spec/spec-document.ts';

type SchemaPart = SchemaObject & { $ref?: string };

/** A field's schema: every part `$ref` and `allOf` join into it, its own first, and what they say. */
export interface SchemaNode {
  document: OpenAPIObject;
  parts: SchemaPart[];
  /** The values it lists (`enum`, or `const` as one). */
  enum?: unknown[];
  pattern?: string;
  /** Whether a part is marked `x-unverified`. */
  unverified: boolean;
}

const specs: Partial<Record<'api' | 'control', LoadedSpec>> = {};
const spec = (name: 'api' | 'control'): LoadedSpec => (specs[name] ??= loadSpec(name));

function partsOf(document: OpenAPIObject, raw: unknown): SchemaPart[] {
  if (typeof raw !== 'object' || raw === null) return [];
  const schema = raw as SchemaPart;
  return [
    schema,
    ...(schema.$ref ? partsOf(document, resolveReference(document, { $ref: schema.$ref })) : []),
    ...(schema.allOf ?? []).flatMap((part) => partsOf(document, part)),
  ];
}

/** The node of these schemas together; undefined when there is none. */
function nodeOf(document: OpenAPIObject, schemas: unknown[]): SchemaNode | undefined {
  const parts = schemas.flatMap((schema) => partsOf(document, schema));
  if (parts.length === 0) return undefined;
  const first = <K extends 'enum' | 'const' | 'pattern'>(key: K): SchemaPart[K] =>
    parts.find((part) => part[key] !== undefined)?.[key];
  return {
    document,
    parts,
    enum: first('enum') ?? (first('const') === undefined ? undefined : [first('const')]),
    pattern: first('pattern'),
    unverified: parts.some((part) => part['x-unverified'] === true),
  };
}

/**
 * A response's schema: the status's own, else the named fallback, as the contract suite picks it.
 * @example
 *   documentedResponse('getPrice', 200)?.example; // the provider's published answer
 */
export function documentedResponse(
  operationId: string,
  status: number,
  fallback?: 'ErrorEnvelope' | 'Envelope',
): { schema: SchemaNode; example?: unknown } | undefined {
  for (const { operations, document } of [spec('api'), spec('control')]) {
    const info = operations.find((op) => op.operationId === operationId);
    if (!info) continue;
    const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => k in info.responses);
    const own = key === undefined || fallback === 'Envelope' ? undefined : info.responses[key]!.content;
    const json = own?.['application/json'];
    const schema = nodeOf(document, [json?.schema]);
    if (schema) return { schema, example: json!.example };
    const envelope = fallback && nodeOf(document, [{ $ref: `#/components/schemas/${fallback}` }]);
    return envelope && { schema: envelope };
  }
  return undefined;
}

/** The node at a JSON path ('/data/status', '/data/timeline/*' for items); undefined when undeclared. */
export function schemaAt(root: SchemaNode, path: string): SchemaNode | undefined {
  let node: SchemaNode | undefined = root;
  for (const segment of splitPath(path)) {
    if (!node) return undefined;
    const children = node.parts.map((p) => (segment === '*' ? p.items : p.properties?.[segment]));
    node = nodeOf(node.document, children);
  }
  return node;
}

/** The value at a JSON path of an example ('*' takes the first item). */
export function valueAt(value: unknown, path: string): unknown {
  let node = value;
  for (const segment of splitPath(path)) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = segment === '*' && Array.isArray(node) ? node[0] : (node as Record<string, unknown>)[segment];
  }
  return node;
}

function splitPath(path: string): string[] {
  if (path === '' || path === '/') return [];
  return path
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The lifecycle paths the OrderStatus description names ("PENDING → PROCESSING → COMPLETED, or …"). */
export function documentedStatusPaths(): string[][] {
  const description = String(spec('api').schemas.OrderStatus?.description ?? '');
  return [...description.replace(/\s+/g, ' ').matchAll(/[A-Z]+(?: → [A-Z]+)+/g)].map((m) =>
    m[0].split(' → '),
  );
}
