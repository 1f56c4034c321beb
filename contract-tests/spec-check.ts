/**
 * Validates every response against spec/openapi.yaml with validators compiled through
 * the shared loader, and describes a violation by JSON path, expected schema and
 * actual value.
 */
import { createValidators, loadSpec, type ErrorObject, type ValidateFunction } from '../src/spec/loader.ts';
import type { Exchange } from '../src/client/index.ts';

const validators = createValidators(loadSpec('api'), { verbose: true });

export interface SpecViolation {
  path: string;
  /** The JSON Schema keyword that failed: required, type, pattern, enum, … */
  keyword: string;
  message: string;
  schema: unknown;
  actual: unknown;
}

/**
 * Checks one exchange. Success bodies are checked against the operation's response.
 * Rejections are checked against the simulator's documented error envelope when the
 * target is a simulator, and against the bare envelope (code, msg, time) otherwise,
 * since upstream has published no error shape.
 *
 * @example
 *   checkExchange(exchange, { simulator: true }); // [] when the body fits the spec
 */
export function checkExchange(exchange: Exchange, target: { simulator: boolean }): SpecViolation[] {
  if (exchange.status === undefined) return [];
  const body = exchange.body;
  if (typeof body !== 'object' || body === null) {
    return [{ path: '', keyword: 'type', message: 'the body is not a JSON object', schema: { type: 'object' }, actual: body }];
  }
  const code = (body as { code?: unknown }).code;
  const msg = (body as { msg?: unknown }).msg;
  const success =
    exchange.status >= 200 &&
    exchange.status < 300 &&
    (code === 0 || (exchange.operationId === 'getAccount' && code === 1 && typeof msg === 'string' && /success/i.test(msg)));
  let validate: ValidateFunction;
  if (success) {
    validate = validators.response(exchange.operationId, exchange.status) ?? validators.response(exchange.operationId, 200)!;
  } else if (target.simulator) {
    validate = validators.response(exchange.operationId, exchange.status) ?? validators.schema('ErrorEnvelope');
  } else {
    validate = validators.schema('Envelope');
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

/** One readable paragraph naming each violation's path, rule, expected schema and value. */
export function describeViolations(exchange: Exchange, violations: SpecViolation[]): string {
  const lines = violations.map(
    (v) =>
      `  at ${v.path}: ${v.message}\n    expected schema: ${compact(v.schema)}\n    actual value: ${compact(v.actual)}`,
  );
  return `${exchange.operationId} (HTTP ${exchange.status}) does not match spec/openapi.yaml:\n${lines.join('\n')}`;
}

function compact(value: unknown): string {
  const text = JSON.stringify(value, (key, v) => (key === 'description' || key === 'example' ? undefined : v));
  if (text === undefined) return 'undefined';
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/** The error a test fails with when a response breaks the spec. */
export class SpecViolationError extends Error {
  constructor(
    message: string,
    readonly violations: SpecViolation[],
  ) {
    super(message);
    this.name = 'SpecViolationError';
  }
}
