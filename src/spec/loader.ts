/**
 * The one loader of the kit's OpenAPI documents. It types them with openapi3-ts
 * (`oas31`) and compiles ajv validators from them, so the simulator's request
 * validation and the contract suite's response validation share one source.
 *
 * The documents come from the JSON copies that `npm run generate` writes next to the
 * generated models; a test fails when those copies are stale.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import type {
  OpenAPIObject,
  OperationObject,
  ParameterObject,
  ReferenceObject,
  RequestBodyObject,
  ResponseObject,
  SchemaObject,
} from 'openapi3-ts/oas31';
import apiDocument from '../generated/openapi.json' with { type: 'json' };
import controlDocument from '../generated/control.json' with { type: 'json' };
import { isTronAddress } from '../tron-address.ts';

export type { ErrorObject, ValidateFunction };
export type DocumentName = 'api' | 'control';

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

const documents: Record<DocumentName, OpenAPIObject> = {
  api: apiDocument as unknown as OpenAPIObject,
  control: controlDocument as unknown as OpenAPIObject,
};

/**
 * Loads one of the kit's documents.
 *
 * @example
 *   const spec = loadSpec('api');
 *   spec.operation('getPrice').parameters.map((p) => p.name); // ['rentalCount', 'period']
 */
export function loadSpec(name: DocumentName = 'api'): LoadedSpec {
  const document = documents[name];
  const operations: OperationInfo[] = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation?.operationId) continue;
      const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map((p) =>
        resolve<ParameterObject>(document, p),
      );
      const body = operation.requestBody ? resolve<RequestBodyObject>(document, operation.requestBody) : undefined;
      const responses: Record<string, ResponseObject> = {};
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        responses[status] = resolve<ResponseObject>(document, response as ResponseObject | ReferenceObject);
      }
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
      if (!found) {
        throw new Error(`No operation '${operationId}' in the ${name} document; known: ${[...byId.keys()].join(', ')}.`);
      }
      return found;
    },
  };
}

function resolve<T>(document: OpenAPIObject, value: T | ReferenceObject): T {
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

/** Options of a validator set. */
export interface ValidatorOptions {
  /**
   * Coerce strings to the schema's types, as query strings and form bodies need.
   * Never set it for response validation: a number sent as a string must fail there.
   */
  coerceTypes?: boolean;
  /** Keep the failing schema and value on each error, for messages that show both. */
  verbose?: boolean;
}

/** ajv validators of one document, compiled once and cached. */
export interface SpecValidators {
  spec: LoadedSpec;
  /**
   * Validates an operation's request parameters (query, or form body, merged into one
   * object). Required parameters and `x-required-one-of` come from the document.
   */
  request(operationId: string): ValidateFunction;
  /** Validates an operation's JSON body (control plane). */
  jsonBody(operationId: string): ValidateFunction;
  /**
   * Validates a response body of an operation for an HTTP status; falls back to the
   * `default` response. Returns undefined when the document defines no JSON body there.
   */
  response(operationId: string, status: number | string): ValidateFunction | undefined;
  /** Validates against a named component schema. */
  schema(name: string): ValidateFunction;
}

// Keywords that are legal in OpenAPI 3.1 schemas or in the wrapper document but are
// not JSON Schema validation keywords; ajv's strict mode must know them.
const OPENAPI_KEYWORDS = ['example', 'discriminator', 'xml', 'externalDocs', 'x-unverified', 'components', 'operations'];

/**
 * Compiles validators for one document.
 *
 * @example
 *   const validators = createValidators(loadSpec('api'));
 *   const validate = validators.response('getPrice', 200)!;
 *   if (!validate(body)) console.log(validate.errors);
 */
export function createValidators(spec: LoadedSpec, options: ValidatorOptions = {}): SpecValidators {
  const ajv = new Ajv2020({
    allErrors: true,
    coerceTypes: options.coerceTypes ?? false,
    verbose: options.verbose ?? false,
    strict: true,
    strictRequired: false,
    // The documents are linted (npm run lint:spec) and compiled in strict mode; checking
    // them against the meta-schema again at every start cost ~30 ms per validator set.
    validateSchema: false,
    allowUnionTypes: true,
  });
  addFormatsPlugin.default(ajv);
  ajv.addFormat('tron-address', { type: 'string', validate: isTronAddress });
  ajv.addVocabulary(OPENAPI_KEYWORDS);

  // One wrapper schema holds the components and every schema of every operation, so the
  // document's own '#/components/…' references resolve unchanged wherever they sit, and
  // each validator is compiled from a JSON pointer into it.
  const base = `https://energy-rental-kit.local/${spec.name}.json`;
  const operations: Record<string, { request: SchemaObject; body?: SchemaObject | ReferenceObject; responses: Record<string, unknown> }> = {};
  for (const op of spec.operations) {
    const responses: Record<string, unknown> = {};
    for (const [status, response] of Object.entries(op.responses)) {
      const schema = response.content?.['application/json']?.schema;
      if (schema) responses[status] = schema;
    }
    operations[op.operationId] = { request: requestSchemaOf(op), responses, ...(op.jsonBodySchema ? { body: op.jsonBodySchema } : {}) };
  }
  ajv.addSchema({ $id: base, components: spec.document.components ?? {}, operations });

  const cache = new Map<string, ValidateFunction>();
  const compiled = (pointer: string): ValidateFunction => {
    let fn = cache.get(pointer);
    if (!fn) {
      fn = ajv.compile({ $ref: `${base}#${pointer}` });
      cache.set(pointer, fn);
    }
    return fn;
  };
  const escape = (segment: string): string => segment.replace(/~/g, '~0').replace(/\//g, '~1');

  return {
    spec,
    request(operationId) {
      spec.operation(operationId);
      return compiled(`/operations/${escape(operationId)}/request`);
    },
    jsonBody(operationId) {
      if (!spec.operation(operationId).jsonBodySchema) throw new Error(`Operation '${operationId}' takes no JSON body.`);
      return compiled(`/operations/${escape(operationId)}/body`);
    },
    response(operationId, status) {
      spec.operation(operationId);
      const responses = operations[operationId]!.responses;
      const key = String(status);
      const found = [key, `${key[0]}XX`, 'default'].find((k) => k in responses);
      return found === undefined ? undefined : compiled(`/operations/${escape(operationId)}/responses/${escape(found)}`);
    },
    schema(name) {
      if (!spec.schemas[name]) throw new Error(`No schema '${name}' in the ${spec.name} document.`);
      return compiled(`/components/schemas/${escape(name)}`);
    },
  };
}

/**
 * The object schema of an operation's parameters. With a form body, the body's schema
 * is the rule and the query parameters are its alternative carrier, so it is used as is.
 */
function requestSchemaOf(op: OperationInfo): SchemaObject {
  if (op.formBodySchema) return op.formBodySchema as SchemaObject;
  const properties: Record<string, SchemaObject | ReferenceObject> = {};
  const required: string[] = [];
  for (const p of op.parameters) {
    if (p.in !== 'query' || !p.schema) continue;
    properties[p.name] = p.schema;
    if (p.required) required.push(p.name);
  }
  const schema: SchemaObject = { type: 'object', properties, required };
  const oneOf = (op.operation as Record<string, unknown>)['x-required-one-of'];
  if (Array.isArray(oneOf)) schema.anyOf = oneOf.map((name: string) => ({ required: [name] }));
  return schema;
}
