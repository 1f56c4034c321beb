/** How validators are compiled (ajv options, wrapper schema, pointers); loader and generate share it. */
import { createRequire } from 'node:module';
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import type { FormatsPlugin } from 'ajv-formats';
import type { ReferenceObject, SchemaObject } from './openapi-types.ts';
import { specFormats, type SpecFormats } from './formats.ts';
import type { DocumentName, LoadedSpec, OperationInfo } from './spec-document.ts';

export interface ValidatorOptions {
  /** Coerce strings to the schema's types, as query strings and form bodies need (never for answers). */
  coerceTypes?: boolean;
  /** Keep the failing schema and value on each error, for messages that show both. */
  verbose?: boolean;
  /** The format definitions the validators call (`specFormats` by default). */
  formats?: SpecFormats;
}

// Keywords of OpenAPI 3.1 or of the wrapper document that strict ajv must be told of.
const OPENAPI_KEYWORDS = [
  'example',
  'discriminator',
  'xml',
  'externalDocs',
  'x-unverified',
  'x-modes',
  'x-lifecycle',
  'components',
  'operations',
];

/** The name under which precompiled code reaches its formats object (the parameter of each set's factory). */
export const FORMATS_IDENTIFIER = 'specFormats';

// ajv's compiler is loaded on the first compile (a start needs none); by require, as compiling is synchronous.
const require = createRequire(import.meta.url);

/** A configured ajv instance; `source` keeps the generated code, for standalone output. */
export function createAjv(options: ValidatorOptions, source = false): Ajv2020 {
  const { Ajv2020: AjvClass, Name } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  const { default: addFormats } = require('ajv-formats') as { default: FormatsPlugin };
  const ajv = new AjvClass({
    allErrors: true,
    coerceTypes: options.coerceTypes ?? false,
    verbose: options.verbose ?? false,
    strict: true,
    strictRequired: false,
    validateSchema: false, // linted by npm run lint:spec
    allowUnionTypes: true,
    // Standalone code names every format through this object (ajv-formats' module lacks tron-address).
    code: { source, formats: new Name(FORMATS_IDENTIFIER) },
  });
  addFormats(ajv);
  ajv.addFormat('tron-address', (options.formats ?? specFormats)['tron-address']);
  ajv.addVocabulary(OPENAPI_KEYWORDS);
  return ajv;
}

/** The schema every validator of a document points into, and its responses by operation. */
export interface ValidatorDocument {
  base: string;
  schema: Record<string, unknown>;
  /** JSON response schemas by operation and status. */
  responses: Record<string, Record<string, unknown>>;
}

/** One wrapper schema of the components and every operation's schemas, so '#/components/…' resolves in each. */
export function validatorDocument(spec: LoadedSpec): ValidatorDocument {
  const base = `https://energy-rental-kit.local/${spec.name}.json`;
  const responses: ValidatorDocument['responses'] = {};
  const operations: Record<string, unknown> = {};
  for (const op of spec.operations) {
    responses[op.operationId] = Object.fromEntries(
      Object.entries(op.responses)
        .map(([status, response]) => [status, response.content?.['application/json']?.schema])
        .filter(([, schema]) => schema),
    );
    operations[op.operationId] = {
      request: requestSchemaOf(op),
      responses: responses[op.operationId],
      ...(op.jsonBodySchema ? { body: op.jsonBodySchema } : {}),
    };
  }
  return { base, schema: { $id: base, components: spec.document.components ?? {}, operations }, responses };
}

const escape = (segment: string): string => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** Where each kind of validator points in the wrapper schema. */
export const validatorPointer = {
  request: (operationId: string) => `/operations/${escape(operationId)}/request`,
  jsonBody: (operationId: string) => `/operations/${escape(operationId)}/body`,
  response: (operationId: string, status: string) =>
    `/operations/${escape(operationId)}/responses/${escape(status)}`,
  schema: (name: string) => `/components/schemas/${escape(name)}`,
};

/** Compiles the validator at `pointer`, registered under it (once: callers cache) as standalone code names it. */
export function compileAt(ajv: Ajv2020, document: ValidatorDocument, pointer: string): ValidateFunction {
  ajv.addSchema({ $ref: `${document.base}#${pointer}` }, pointer);
  return ajv.getSchema(pointer)!;
}

/** The validator sets `npm run generate` precompiles: what a simulator needs; the rest is compiled on use. */
export const PRECOMPILED_SETS: {
  document: DocumentName;
  options: ValidatorOptions;
  /** A set of its own for a few pointers needed without the rest: a set is instantiated whole. */
  part?: string;
  pointers(spec: LoadedSpec): string[];
}[] = [
  // Query strings and form bodies of the API and the control plane.
  ...(['api', 'control'] as const).map((document) => ({
    document,
    options: { coerceTypes: true },
    pointers: (spec: LoadedSpec) => spec.operations.map((op) => validatorPointer.request(op.operationId)),
  })),
  // The control plane's JSON bodies, and the files of `serve --config`, `--state` and `--replay`.
  {
    document: 'control',
    options: {},
    pointers: (spec) => [
      ...spec.operations
        .filter((op) => op.jsonBodySchema)
        .map((op) => validatorPointer.jsonBody(op.operationId)),
      validatorPointer.schema('Scenario'),
      validatorPointer.schema('StateFile'),
      validatorPointer.schema('Recording'),
      validatorPointer.schema('RecordingHeader'),
      validatorPointer.schema('RecordingInteractionLine'),
    ],
  },
  // The engine's settings apart: a start with a timing and no scenario needs them alone.
  {
    document: 'control',
    options: {},
    part: 'settings',
    pointers: () => [validatorPointer.schema('EngineSettings')],
  },
  // The API's answers, verbose: response-check.ts shows the failing schema and value.
  {
    document: 'api',
    options: { verbose: true },
    pointers: (spec) => [
      ...spec.operations.flatMap((op) =>
        Object.entries(op.responses)
          .filter(([, response]) => response.content?.['application/json']?.schema)
          .map(([status]) => validatorPointer.response(op.operationId, status)),
      ),
      validatorPointer.schema('ErrorEnvelope'),
      validatorPointer.schema('Envelope'),
    ],
  },
];

/**
 * The name of the precompiled set (or of its `part`) for these options.
 *
 * @example
 *   precompiledSetName('api', { verbose: true }); // 'api:plain:verbose'
 */
export function precompiledSetName(document: DocumentName, options: ValidatorOptions, part?: string): string {
  const kind = `${options.coerceTypes ? 'coerce' : 'plain'}${options.verbose ? ':verbose' : ''}`;
  return `${document}:${kind}${part ? `:${part}` : ''}`;
}

/**
 * The precompiled set of a pointer for these options: the part that holds it, else the document's.
 *
 * @example
 *   precompiledSetOf(loadSpec('control'), {}, validatorPointer.schema('EngineSettings')); // 'control:plain:settings'
 */
export function precompiledSetOf(spec: LoadedSpec, options: ValidatorOptions, pointer: string): string {
  const whole = precompiledSetName(spec.name, options);
  // A set is for these options when its name without the part is this one.
  const part = PRECOMPILED_SETS.find(
    (set) =>
      set.part !== undefined &&
      precompiledSetName(set.document, set.options) === whole &&
      set.pointers(spec).includes(pointer),
  );
  return part ? precompiledSetName(spec.name, options, part.part) : whole;
}

/** The object schema of an operation's parameters: its form body's, else one of its query parameters. */
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
