/** The kit's OpenAPI documents and their validators: precompiled where made, else compiled on first use. */
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import type { OpenAPIObject } from './openapi-types.ts';
import apiDocument from '../generated/openapi.json' with { type: 'json' };
import controlDocument from '../generated/control.json' with { type: 'json' };
import nodeDocument from '../generated/tron-node.json' with { type: 'json' };
import { precompiledValidators } from '../generated/validators.ts';
import { specFormats } from './formats.ts';
import { readSpec, type DocumentName, type LoadedSpec } from './spec-document.ts';
import {
  compileAt,
  createAjv,
  precompiledSetOf,
  validatorDocument,
  validatorPointer,
  type ValidatorOptions,
} from './validator-setup.ts';

export type { ErrorObject, ValidateFunction };
export type { DocumentName, LoadedSpec, OperationInfo } from './spec-document.ts';
export type { ValidatorOptions } from './validator-setup.ts';

const documents: Record<DocumentName, OpenAPIObject> = {
  api: apiDocument as unknown as OpenAPIObject,
  control: controlDocument as unknown as OpenAPIObject,
  node: nodeDocument as unknown as OpenAPIObject,
};

/**
 * Loads one of the kit's documents.
 *
 * @example
 *   const spec = loadSpec('api');
 *   spec.operation('getPrice').parameters.map((p) => p.name); // ['rentalCount', 'period']
 */
export function loadSpec(name: DocumentName = 'api'): LoadedSpec {
  return readSpec(name, documents[name]);
}

/** ajv validators of one document, compiled once and cached. */
export interface SpecValidators {
  spec: LoadedSpec;
  /** Validates an operation's request parameters (query or form body, as one object). */
  request(operationId: string): ValidateFunction;
  /** Validates an operation's JSON body (control plane). */
  jsonBody(operationId: string): ValidateFunction;
  /** Validates a response body for a status (else `NXX`, else `default`); undefined without a JSON body. */
  response(operationId: string, status: number | string): ValidateFunction | undefined;
  /** Validates against a named component schema. */
  schema(name: string): ValidateFunction;
}

/**
 * Validators for one document, each made once.
 *
 * @example
 *   const validators = createValidators(loadSpec('api'));
 *   const validate = validators.response('getPrice', 200)!;
 *   if (!validate(body)) console.log(validate.errors);
 */
export function createValidators(spec: LoadedSpec, options: ValidatorOptions = {}): SpecValidators {
  const document = validatorDocument(spec);
  // Precompiled code holds the kit's own documents; a spec read from another is compiled.
  const ownDocument = spec.document === documents[spec.name];
  // Each set is instantiated on the first use of one of its validators.
  const sets = new Map<string, Record<string, ValidateFunction>>();
  let ajv: Ajv2020 | undefined;
  const cache = new Map<string, ValidateFunction>();
  const compiled = (pointer: string): ValidateFunction => {
    let fn = cache.get(pointer);
    if (!fn) {
      const setName = ownDocument ? precompiledSetOf(spec, options, pointer) : undefined;
      if (setName !== undefined && !sets.has(setName))
        sets.set(setName, precompiledValidators[setName]?.(options.formats ?? specFormats) ?? {});
      fn = setName === undefined ? undefined : sets.get(setName)![pointer];
      if (!fn) {
        if (!ajv) {
          ajv = createAjv(options);
          ajv.addSchema(document.schema);
        }
        fn = compileAt(ajv, document, pointer);
      }
      cache.set(pointer, fn);
    }
    return fn;
  };

  return {
    spec,
    request(operationId) {
      spec.operation(operationId);
      return compiled(validatorPointer.request(operationId));
    },
    jsonBody(operationId) {
      if (!spec.operation(operationId).jsonBodySchema)
        throw new Error(`Operation '${operationId}' takes no JSON body.`);
      return compiled(validatorPointer.jsonBody(operationId));
    },
    response(operationId, status) {
      spec.operation(operationId);
      const responses = document.responses[operationId]!;
      const key = String(status);
      const found = [key, `${key[0]}XX`, 'default'].find((k) => k in responses);
      return found === undefined ? undefined : compiled(validatorPointer.response(operationId, found));
    },
    schema(name) {
      if (!spec.schemas[name]) throw new Error(`No schema '${name}' in the ${spec.name} document.`);
      return compiled(validatorPointer.schema(name));
    },
  };
}
