/**
 * Which counted calls a filter takes, and how a call that is not taken differs from it:
 * the one rule the control plane's count, `sim.calls()` and the near misses of
 * `expectCalls` share.
 */
import type { components } from '../../src/generated/control.ts';

/** What `sim.calls(filter)` and `GET /_sim/calls/count` match (spec/control.yaml's CallFilter). */
export type CallFilter = components['schemas']['CallFilter'];
/** Calls alike, counted together (spec/control.yaml's CallRow). */
export type CallRow = components['schemas']['CallRow'];

/**
 * How a call differs from a filter: one line per criterion it misses; empty when it matches.
 *
 * @example
 *   callDifferences({ method: 'GET', path: '/v1/tron/price', status: 200, params: { period: '1d' }, count: 1 },
 *     { params: { period: '1h' } }); // ["params.period is '1d', not '1h'"]
 */
export function callDifferences(row: CallRow, filter: CallFilter): string[] {
  const out: string[] = [];
  if (filter.operation !== undefined && row.operation !== filter.operation)
    out.push(`operation is ${row.operation ?? 'none'}, not ${filter.operation}`);
  if (filter.method !== undefined && row.method !== filter.method.toUpperCase())
    out.push(`method is ${row.method}, not ${filter.method.toUpperCase()}`);
  if (filter.path !== undefined && row.path !== filter.path)
    out.push(`path is ${row.path}, not ${filter.path}`);
  if (filter.status !== undefined && row.status !== filter.status)
    out.push(`status is ${row.status}, not ${filter.status}`);
  if (filter.account !== undefined && row.account !== filter.account)
    out.push(`account is ${row.account ?? 'none'}, not ${filter.account}`);
  for (const [name, value] of Object.entries(filter.params ?? {})) {
    const sent = Object.hasOwn(row.params, name) ? row.params[name] : undefined;
    if (sent !== String(value))
      out.push(
        sent === undefined
          ? `params.${name} was not sent`
          : `params.${name} is '${sent}', not '${String(value)}'`,
      );
  }
  return out;
}

/**
 * Whether a counted call matches every criterion of a filter.
 *
 * @example
 *   callMatches(row, { operation: 'createOrder', status: 200 }); // true or false
 */
export function callMatches(row: CallRow, filter: CallFilter): boolean {
  return callDifferences(row, filter).length === 0;
}

/**
 * A filter as one short line, for messages.
 *
 * @example
 *   describeFilter({ operation: 'createOrder', params: { period: '1h' } }); // "operation=createOrder params.period=1h"
 */
export function describeFilter(filter: CallFilter): string {
  const parts: string[] = [];
  for (const key of ['operation', 'method', 'path', 'status', 'account'] as const)
    if (filter[key] !== undefined) parts.push(`${key}=${String(filter[key])}`);
  for (const [name, value] of Object.entries(filter.params ?? {}))
    parts.push(`params.${name}=${String(value)}`);
  return parts.length > 0 ? parts.join(' ') : 'any call';
}

/**
 * A counted call as one short line, for messages.
 *
 * @example
 *   describeCall(row); // "2× createOrder POST /v1/tron/order → 200 account=TX… period=1d rentalCount=65000"
 */
export function describeCall(row: CallRow): string {
  const params = Object.entries(row.params).map(([name, value]) => `${name}=${value}`);
  return [
    `${row.count}×`,
    ...(row.operation ? [row.operation] : []),
    row.method,
    row.path,
    `→ ${row.status}`,
    ...(row.account ? [`account=${row.account}`] : []),
    ...params,
  ].join(' ');
}
