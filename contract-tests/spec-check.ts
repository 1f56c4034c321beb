/** Checks every answer against spec/openapi.yaml; a violation names the documented fact it breaks. */
import type { Exchange } from '../src/client/index.ts';
import { checkAnswer, compactJson, type SpecViolation } from '../src/spec/response-check.ts';
import { describeFact, type FactId } from './facts.ts';

export type { SpecViolation } from '../src/spec/response-check.ts';

/** The fact that documents each operation's `data`. */
const DATA_FACTS: Record<string, FactId> = {
  createOrder: 'order-created-fields',
  getPrice: 'price-fields',
  getOrderHistory: 'history-fields',
  getAccount: 'account-fields',
};

/**
 * Checks one exchange against the spec; an `x-unverified` rule binds only a simulator, beyond type and presence.
 *
 * @example
 *   checkExchange(exchange, { simulator: true }); // [] when the body fits the spec
 */
export function checkExchange(exchange: Exchange, target: { simulator: boolean }): SpecViolation[] {
  const violations = checkAnswer(exchange, target);
  if (target.simulator) return violations;
  return violations.filter(
    (v) =>
      (v.schema as { 'x-unverified'?: boolean } | undefined)?.['x-unverified'] !== true ||
      v.keyword === 'type' ||
      v.keyword === 'required',
  );
}

/**
 * The facts the spec check holds an answer to: the envelope, its time, and any data's fields.
 *
 * @example
 *   factsOfAnswer({ operationId: 'getPrice', body: { data: {} } }); // ['envelope', 'time-numeric', 'price-fields']
 */
export function factsOfAnswer(exchange: Pick<Exchange, 'operationId' | 'body'>): FactId[] {
  const data = (exchange.body as { data?: unknown } | undefined)?.data;
  const fields = DATA_FACTS[exchange.operationId];
  return [
    'envelope',
    'time-numeric',
    ...(fields && typeof data === 'object' && data !== null ? [fields] : []),
  ];
}

/** The fact a violation breaks: the time's, the envelope's, or the operation's fields'. */
function factOf(exchange: Exchange, violation: SpecViolation): FactId {
  if (violation.path === '/time') return 'time-numeric';
  if (!violation.path.startsWith('/data/')) return 'envelope';
  return DATA_FACTS[exchange.operationId] ?? 'envelope';
}

/** One readable paragraph naming each violation's path, rule, expected schema, value and fact. */
export function describeViolations(exchange: Exchange, violations: SpecViolation[]): string {
  const lines = violations.map(
    (v) =>
      `  at ${v.path}: ${v.message}\n    expected schema: ${compactJson(v.schema)}\n    actual value: ${compactJson(v.actual)}\n    fact ${describeFact(factOf(exchange, v))}`,
  );
  return `${exchange.operationId} (HTTP ${exchange.status}) does not match spec/openapi.yaml:\n${lines.join('\n')}`;
}
