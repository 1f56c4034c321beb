/**
 * Validates every response against spec/openapi.yaml with validators compiled through
 * the shared loader, and describes a violation by JSON path, expected schema and
 * actual value.
 */
import type { Exchange } from '../src/client/index.ts';
import { checkAnswer, compactJson, type SpecViolation } from '../src/spec/response-check.ts';

export type { SpecViolation } from '../src/spec/response-check.ts';

/**
 * Checks one exchange (src/spec/response-check.ts: success bodies against the operation's
 * response; rejections against the simulator's error envelope, or the bare envelope for
 * another target, since upstream has published no error shape).
 *
 * @example
 *   checkExchange(exchange, { simulator: true }); // [] when the body fits the spec
 */
export function checkExchange(exchange: Exchange, target: { simulator: boolean }): SpecViolation[] {
  return checkAnswer(exchange, target);
}

/** One readable paragraph naming each violation's path, rule, expected schema and value. */
export function describeViolations(exchange: Exchange, violations: SpecViolation[]): string {
  const lines = violations.map(
    (v) =>
      `  at ${v.path}: ${v.message}\n    expected schema: ${compactJson(v.schema)}\n    actual value: ${compactJson(v.actual)}`,
  );
  return `${exchange.operationId} (HTTP ${exchange.status}) does not match spec/openapi.yaml:\n${lines.join('\n')}`;
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
