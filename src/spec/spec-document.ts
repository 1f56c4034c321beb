/** An OpenAPI document's operations, references resolved; apart from loader.ts, so generate can import it. */
import type {
  OpenAPIObject,
  OperationObject,
  ParameterObject,
  ReferenceObject,
  RequestBodyObject,
  ResponseObject,
  SchemaObject,
} from './openapi-types.ts';

/** The kit's documents: the rental API, the control plane, the TRON node subset. */
export type DocumentName = 'api' | 'control' | 'node';

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;
type HttpMethod = (typeof HTTP_METHODS)[number];

/** One operation of a document, with its references resolved. */
export interface OperationInfo {
  operationId: string;
  method: Uppercase<HttpMethod>;
  path: string;
  operation: OperationObject;
  parameters: ParameterObject[];
  /** The form body's schema, when the operation accepts one. */
  formBodySchema?: SchemaObject | ReferenceObject;
  /** The JSON body's schema, when the operation accepts one. */
  jsonBodySchema?: SchemaObject | ReferenceObject;
  /** Response definitions by status ('200', '400', 'default', …). */
  responses: Record<string, ResponseObject>;
}

/** A loaded, typed OpenAPI document and what consumers need from it. */
export interface LoadedSpec {
  name: DocumentName;
  document: OpenAPIObject;
  /** `components.schemas` by name. */
  schemas: Record<string, SchemaObject>;
  operations: OperationInfo[];
  /** The operation with this id; throws with the known ids when there is none. */
  operation(operationId: string): OperationInfo;
}

/** Reads a document (already parsed) as the kit's document `name`. */
export function readSpec(name: DocumentName, document: OpenAPIObject): LoadedSpec {
  const operations: OperationInfo[] = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation?.operationId) continue;
      const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map((p) =>
        resolveReference<ParameterObject>(document, p),
      );
      const body = operation.requestBody
        ? resolveReference<RequestBodyObject>(document, operation.requestBody)
        : undefined;
      const responses: Record<string, ResponseObject> = {};
      for (const [status, response] of Object.entries(operation.responses ?? {}))
        responses[status] = resolveReference(document, response);
      operations.push({
        operationId: operation.operationId,
        method: method.toUpperCase() as Uppercase<HttpMethod>,
        path,
        operation,
        parameters,
        formBodySchema: body?.content['application/x-www-form-urlencoded']?.schema,
        jsonBodySchema: body?.content['application/json']?.schema,
        responses,
      });
    }
  }
  const byId = new Map(operations.map((op) => [op.operationId, op]));
  return {
    name,
    document,
    schemas: (document.components?.schemas ?? {}) as Record<string, SchemaObject>,
    operations,
    operation(operationId) {
      const found = byId.get(operationId);
      if (!found)
        throw new Error(
          `No operation '${operationId}' in the ${name} document; known: ${[...byId.keys()].join(', ')}.`,
        );
      return found;
    },
  };
}

/**
 * A value with its local references followed to what they point at.
 *
 * @example
 *   resolveReference(document, { $ref: '#/components/schemas/Period' }); // { type: 'string', enum: [...] }
 */
export function resolveReference<T>(document: OpenAPIObject, value: T | ReferenceObject): T {
  let current: unknown = value;
  for (let hops = 0; isReference(current); hops++) {
    if (hops > 16) throw new Error(`Reference cycle at ${current.$ref}`);
    current = pointer(document, current.$ref);
  }
  return current as T;
}

function isReference(value: unknown): value is ReferenceObject {
  return typeof value === 'object' && value !== null && typeof (value as ReferenceObject).$ref === 'string';
}

function pointer(document: unknown, ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`Only local references are supported; got '${ref}'.`);
  let node = document;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    node = (node as Record<string, unknown> | undefined)?.[key];
    if (node === undefined) throw new Error(`Unresolvable reference '${ref}'.`);
  }
  return node;
}
