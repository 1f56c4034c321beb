/**
 * The parts of an OpenAPI 3.1 document the kit reads, typed here: they reach the published
 * declarations, so they may not come from a devDependency. Each takes any other keyword too.
 */

/** `{ $ref: '#/components/…' }`. */
export interface ReferenceObject {
  $ref: string;
  summary?: string;
  description?: string;
}

/** A JSON Schema 2020-12 schema, as OpenAPI 3.1 embeds it. */
export interface SchemaObject {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
  required?: string[];
  properties?: Record<string, SchemaObject | ReferenceObject>;
  additionalProperties?: boolean | SchemaObject | ReferenceObject;
  unevaluatedProperties?: boolean | SchemaObject | ReferenceObject;
  items?: SchemaObject | ReferenceObject;
  allOf?: Array<SchemaObject | ReferenceObject>;
  anyOf?: Array<SchemaObject | ReferenceObject>;
  oneOf?: Array<SchemaObject | ReferenceObject>;
  not?: SchemaObject | ReferenceObject;
  description?: string;
  example?: unknown;
  examples?: unknown[];
  default?: unknown;
  [keyword: string]: unknown;
}

/** A parameter of an operation. */
export interface ParameterObject {
  name: string;
  in: 'query' | 'header' | 'path' | 'cookie';
  required?: boolean;
  description?: string;
  schema?: SchemaObject | ReferenceObject;
  example?: unknown;
  [keyword: string]: unknown;
}

/** A body's content of one media type. */
export interface MediaTypeObject {
  schema?: SchemaObject | ReferenceObject;
  example?: unknown;
  examples?: Record<string, unknown>;
  [keyword: string]: unknown;
}

/** A request body. */
export interface RequestBodyObject {
  content: Record<string, MediaTypeObject>;
  required?: boolean;
  description?: string;
  [keyword: string]: unknown;
}

/** A response of an operation. */
export interface ResponseObject {
  description: string;
  headers?: Record<string, unknown>;
  content?: Record<string, MediaTypeObject>;
  [keyword: string]: unknown;
}

/** One operation (a method of a path). */
export interface OperationObject {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Array<ParameterObject | ReferenceObject>;
  requestBody?: RequestBodyObject | ReferenceObject;
  responses?: Record<string, ResponseObject | ReferenceObject>;
  [keyword: string]: unknown;
}

/** The operations of one path, by lower-case method. */
export interface PathItemObject {
  parameters?: Array<ParameterObject | ReferenceObject>;
  get?: OperationObject;
  put?: OperationObject;
  post?: OperationObject;
  delete?: OperationObject;
  patch?: OperationObject;
  head?: OperationObject;
  options?: OperationObject;
  [keyword: string]: unknown;
}

/** A whole OpenAPI 3.1 document. */
export interface OpenAPIObject {
  openapi: string;
  info: { title: string; version: string; [keyword: string]: unknown };
  servers?: Array<{ url: string; description?: string; [keyword: string]: unknown }>;
  paths?: Record<string, PathItemObject>;
  components?: {
    schemas?: Record<string, SchemaObject | ReferenceObject>;
    parameters?: Record<string, ParameterObject | ReferenceObject>;
    responses?: Record<string, ResponseObject | ReferenceObject>;
    requestBodies?: Record<string, RequestBodyObject | ReferenceObject>;
    [keyword: string]: unknown;
  };
  [keyword: string]: unknown;
}
