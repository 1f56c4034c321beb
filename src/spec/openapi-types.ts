/** The OpenAPI 3.1 parts the kit reads, typed here: no devDependency may reach published declarations. */

/** `{ $ref: '#/components/…' }`. */
export interface ReferenceObject {
  $ref: string;
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
  minLength?: number;
  maxLength?: number;
  required?: string[];
  properties?: Record<string, SchemaObject | ReferenceObject>;
  allOf?: Array<SchemaObject | ReferenceObject>;
  oneOf?: Array<SchemaObject | ReferenceObject>;
  default?: unknown;
  [keyword: string]: unknown;
}

export interface ParameterObject {
  name: string;
  in: 'query' | 'header' | 'path' | 'cookie';
  required?: boolean;
  schema?: SchemaObject | ReferenceObject;
  [keyword: string]: unknown;
}

export interface MediaTypeObject {
  schema?: SchemaObject | ReferenceObject;
  [keyword: string]: unknown;
}

export interface RequestBodyObject {
  content: Record<string, MediaTypeObject>;
  [keyword: string]: unknown;
}

export interface ResponseObject {
  description: string;
  content?: Record<string, MediaTypeObject>;
  [keyword: string]: unknown;
}

/** One operation (a method of a path). */
export interface OperationObject {
  operationId?: string;
  parameters?: Array<ParameterObject | ReferenceObject>;
  requestBody?: RequestBodyObject | ReferenceObject;
  responses?: Record<string, ResponseObject | ReferenceObject>;
  [keyword: string]: unknown;
}

/** The operations of one path, by lower-case method. */
export type PathItemObject = { parameters?: Array<ParameterObject | ReferenceObject> } & Partial<
  Record<'get' | 'put' | 'post' | 'delete' | 'patch' | 'head' | 'options', OperationObject>
>;

export interface OpenAPIObject {
  servers?: Array<{ url: string; description?: string; [keyword: string]: unknown }>;
  paths?: Record<string, PathItemObject>;
  components?: {
    schemas?: Record<string, SchemaObject | ReferenceObject>;
    [keyword: string]: unknown;
  };
  [keyword: string]: unknown;
}
