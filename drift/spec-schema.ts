/**
 * Reading the documents' response schemas by JSON path: which schema (with `$ref` and
 * `allOf` resolved) the spec gives a field of a response body, its enum, and the
 * provider's published example of the whole response.
 */
import type { SchemaObject } from '../src/spec/openapi-types.ts';
import { loadSpec, type LoadedSpec, type OperationInfo } from '../src/spec/loader.ts';
import { resolveReference } from '../src/spec/spec-document.ts';

export interface SchemaNode {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  format?: string;
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  unverified: boolean;
}

const specs: Partial<Record<'api' | 'control', LoadedSpec>> = {};
const spec = (name: 'api' | 'control'): LoadedSpec => (specs[name] ??= loadSpec(name));

/** Flattens `$ref` and `allOf` into one node (properties merged, the first type, enum and pattern kept). */
export function flatten(document: LoadedSpec['document'], raw: unknown, depth = 0): SchemaNode {
  const node: SchemaNode = { unverified: false };
  if (depth > 32 || typeof raw !== 'object' || raw === null) return node;
  const schema = raw as SchemaObject & { $ref?: string; 'x-unverified'?: boolean };
  const parts: unknown[] = [];
  if (schema.$ref) parts.push(resolveReference(document, { $ref: schema.$ref }));
  for (const part of schema.allOf ?? []) parts.push(part);
  for (const part of parts) {
    const flat = flatten(document, part, depth + 1);
    node.type ??= flat.type;
    node.enum ??= flat.enum;
    if (flat.const !== undefined) node.const ??= flat.const;
    node.pattern ??= flat.pattern;
    node.format ??= flat.format;
    node.items ??= flat.items;
    if (flat.properties) node.properties = { ...node.properties, ...flat.properties };
    node.unverified ||= flat.unverified;
  }
  if (schema.type) node.type = schema.type as string | string[];
  if (schema.enum) node.enum = schema.enum;
  if (schema.const !== undefined) node.const = schema.const;
  if (schema.pattern) node.pattern = schema.pattern;
  if (schema.format) node.format = schema.format;
  if (schema['x-unverified']) node.unverified = true;
  if (schema.items) node.items = flatten(document, schema.items, depth + 1);
  if (schema.properties) {
    const properties: Record<string, SchemaNode> = { ...node.properties };
    for (const [name, value] of Object.entries(schema.properties)) {
      properties[name] = properties[name]
        ? mergeInto(properties[name], flatten(document, value, depth + 1))
        : flatten(document, value, depth + 1);
    }
    node.properties = properties;
  }
  return node;
}

function mergeInto(a: SchemaNode, b: SchemaNode): SchemaNode {
  return {
    ...a,
    ...Object.fromEntries(Object.entries(b).filter(([, v]) => v !== undefined)),
    properties: a.properties || b.properties ? { ...a.properties, ...b.properties } : undefined,
    unverified: a.unverified || b.unverified,
  };
}

function responseOf(
  info: OperationInfo,
  status: number,
): { schema?: unknown; example?: unknown } | undefined {
  const key = String(status);
  const found = [key, `${key[0]}XX`, 'default'].find((k) => k in info.responses);
  const content = found === undefined ? undefined : info.responses[found]!.content?.['application/json'];
  return content ? { schema: content.schema, example: content.example } : undefined;
}

/**
 * The schema the document gives a response of an operation: the status's own, else
 * (for a rejection) the named fallback, as the contract suite's spec check picks it.
 */
export function documentedResponse(
  operationId: string,
  status: number,
  fallback?: 'ErrorEnvelope' | 'Envelope',
): { schema: SchemaNode; example?: unknown } | undefined {
  const key = `${operationId}\n${status}\n${fallback ?? ''}`;
  if (!responses.has(key)) responses.set(key, findResponse(operationId, status, fallback));
  return responses.get(key);
}

const responses = new Map<string, { schema: SchemaNode; example?: unknown } | undefined>();

function findResponse(operationId: string, status: number, fallback?: 'ErrorEnvelope' | 'Envelope') {
  for (const { operations, document } of [spec('api'), spec('control')]) {
    const info = operations.find((op) => op.operationId === operationId);
    if (!info) continue;
    const own = fallback === 'Envelope' ? undefined : responseOf(info, status);
    if (own?.schema) return { schema: flatten(document, own.schema), example: own.example };
    return fallback && { schema: flatten(document, { $ref: `#/components/schemas/${fallback}` }) };
  }
  return undefined;
}

/** The node at a JSON path ('/data/status', '/data/timeline/*' for items); undefined when the document does not declare it. */
export function schemaAt(root: SchemaNode, path: string): SchemaNode | undefined {
  let node: SchemaNode | undefined = root;
  for (const segment of splitPath(path)) {
    if (!node) return undefined;
    node = segment === '*' ? node.items : node.properties?.[segment];
  }
  return node;
}

/** The value at a JSON path of an example ('*' takes the first item). */
export function valueAt(value: unknown, path: string): unknown {
  let node = value;
  for (const segment of splitPath(path)) {
    if (typeof node !== 'object' || node === null) return undefined;
    node =
      segment === '*'
        ? Array.isArray(node)
          ? node[0]
          : undefined
        : (node as Record<string, unknown>)[segment];
  }
  return node;
}

export function splitPath(path: string): string[] {
  return path === '' || path === '/'
    ? []
    : path
        .slice(1)
        .split('/')
        .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/**
 * The lifecycle paths the document describes, read from the OrderStatus description
 * ("PENDING → PROCESSING → COMPLETED, or PENDING → PROCESSING → FAILED → REFUNDED").
 */
export function documentedStatusPaths(): string[][] {
  const description = String(
    (spec('api').schemas.OrderStatus as { description?: string } | undefined)?.description ?? '',
  );
  const paths = [...description.replace(/\s+/g, ' ').matchAll(/[A-Z]+(?: → [A-Z]+)+/g)].map((m) =>
    m[0].split(' → '),
  );
  return paths.length > 0
    ? paths
    : [
        ['PENDING', 'PROCESSING', 'COMPLETED'],
        ['PENDING', 'PROCESSING', 'FAILED', 'REFUNDED'],
      ];
}
