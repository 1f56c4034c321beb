/** Checks an API answer against spec/openapi.yaml, each violation by JSON path, rule, schema and value. */
import {
  createValidators,
  loadSpec,
  type ErrorObject,
  type SpecValidators,
  type ValidateFunction,
} from './loader.ts';
import { isSuccess } from '../client/send-request.ts';

export interface SpecViolation {
  path: string;
  /** The JSON Schema keyword that failed: required, type, pattern, enum, … */
  keyword: string;
  message: string;
  schema: unknown;
  actual: unknown;
}

/** An answer to check: its operation, HTTP status and parsed body. */
export interface CheckedAnswer {
  operationId: string;
  status?: number | undefined;
  body?: unknown;
}

let shared: SpecValidators | undefined;
const validators = (): SpecValidators => (shared ??= createValidators(loadSpec('api'), { verbose: true }));

/**
 * Checks an answer: a success by its operation, a rejection by ErrorEnvelope (a service's: Envelope).
 *
 * @example
 *   checkAnswer({ operationId: 'getPrice', status: 200, body }, { simulator: false }); // [] when it fits
 */
export function checkAnswer(answer: CheckedAnswer, target: { simulator: boolean }): SpecViolation[] {
  if (answer.status === undefined) return [];
  const body = answer.body;
  if (typeof body !== 'object' || body === null) {
    const schema = { type: 'object' };
    return [{ path: '', keyword: 'type', message: 'the body is not a JSON object', schema, actual: body }];
  }
  const success = answer.status >= 200 && answer.status < 300 && isSuccess(answer.operationId, body);
  const v = validators();
  let validate: ValidateFunction;
  if (success) {
    validate = v.response(answer.operationId, answer.status) ?? v.response(answer.operationId, 200)!;
  } else if (target.simulator) {
    validate = v.response(answer.operationId, answer.status) ?? v.schema('ErrorEnvelope');
  } else {
    validate = v.schema('Envelope');
  }
  if (validate(body)) return [];
  return (validate.errors ?? []).map(toViolation);
}

function toViolation(error: ErrorObject): SpecViolation {
  const extra =
    error.keyword === 'required'
      ? `/${String(error.params.missingProperty)}`
      : error.keyword === 'additionalProperties'
        ? `/${String(error.params.additionalProperty)}`
        : '';
  return {
    path: `${error.instancePath}${extra}` || '/',
    keyword: error.keyword,
    message: error.message ?? error.keyword,
    schema: error.parentSchema,
    actual: error.data,
  };
}

/**
 * A schema or value on one line, without descriptions and examples, cut at 300 characters.
 *
 * @example
 *   compactJson({ type: 'string', description: 'long' }); // '{"type":"string"}'
 */
export function compactJson(value: unknown): string {
  const text = JSON.stringify(value, (key, v) =>
    key === 'description' || key === 'example' ? undefined : v,
  );
  if (text === undefined) return 'undefined';
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
