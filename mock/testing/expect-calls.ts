/** `expectCalls(sim, filter, n)`: WireMock's verify, failing with the near misses (one criterion off). */
import type { components } from '../../src/generated/control.ts';
import { callDifferences, describeCall, describeFilter, type CallFilter } from '../simulator.ts';

type C = components['schemas'];

/** Where the calls are read: a `startSimulator()` simulator, or a running `serve` by its URL. */
export type CallsTarget =
  | { callList(): Promise<C['CallList']> }
  | string
  | { url: string; controlToken?: string | undefined };

/** The error `expectCalls` throws: vitest shows `expected` and `actual` as a diff. */
export class CallCountError extends Error {
  readonly expected: number;
  readonly actual: number;
  readonly showDiff = false;
  constructor(message: string, expected: number, actual: number) {
    super(message);
    this.name = 'AssertionError';
    this.expected = expected;
    this.actual = actual;
  }
}

/** Near misses listed at most. */
const NEAR_MISSES = 10;

/**
 * Asserts that exactly `expected` calls matched `filter`; resolves with the count.
 * @example
 *   await expectCalls(sim, { operation: 'createOrder', params: { period: '1h' } }, 1);
 *   // fails with: Expected 1 call matching operation=createOrder params.period=1h, got 0.
 *   //   Near misses (one criterion off):
 *   //     1× createOrder POST /v1/tron/order → 200 account=TX… period=1d …  (params.period is '1d', not '1h')
 */
export async function expectCalls(
  target: CallsTarget,
  filter: CallFilter,
  expected: number,
): Promise<number> {
  const { calls } = await readCalls(target);
  let actual = 0;
  const near: Array<{ line: string; count: number }> = [];
  for (const row of calls) {
    const differences = callDifferences(row, filter);
    if (differences.length === 0) actual += row.count;
    else if (differences.length === 1)
      near.push({ line: `${describeCall(row)}  (${differences[0]})`, count: row.count });
  }
  if (actual === expected) return actual;
  const plural = (n: number): string => (n === 1 ? 'call' : 'calls');
  const lines = [
    `Expected ${expected} ${plural(expected)} matching ${describeFilter(filter)}, got ${actual}.`,
  ];
  if (near.length > 0) {
    near.sort((a, b) => b.count - a.count);
    lines.push('Near misses (one criterion off):', ...near.slice(0, NEAR_MISSES).map((n) => `  ${n.line}`));
    if (near.length > NEAR_MISSES) lines.push(`  … and ${near.length - NEAR_MISSES} more`);
  } else if (calls.length > 0) {
    lines.push(
      'No call is one criterion off; the calls counted:',
      ...calls.slice(0, NEAR_MISSES).map((r) => `  ${describeCall(r)}`),
    );
  } else lines.push('No call was counted at all.');
  throw new CallCountError(lines.join('\n'), expected, actual);
}

async function readCalls(target: CallsTarget): Promise<C['CallList']> {
  if (typeof target === 'object' && 'callList' in target) return target.callList();
  const { url, controlToken } =
    typeof target === 'string' ? { url: target, controlToken: undefined } : target;
  const response = await fetch(`${url.replace(/\/+$/, '')}/_sim/calls?limit=100000`, {
    headers: controlToken ? { authorization: `Bearer ${controlToken}` } : {},
  });
  if (!response.ok) throw new Error(`expectCalls: GET ${url}/_sim/calls answered HTTP ${response.status}.`);
  return (await response.json()) as C['CallList'];
}
