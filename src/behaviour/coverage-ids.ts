/** The behaviour ids of coverage, derived from the spec's lists: a new operation, status or kind counts at once. */
import {
  API_OPERATION_IDS,
  CURRENCIES,
  FAULT_KINDS,
  ORDER_LIFECYCLE,
  ORDER_STATUSES,
  REJECTION_KINDS,
} from '../generated/lists.ts';

/** What a read of the simulated TRON node may show of an address: ExchangeFinished's `chain`. */
export const CHAIN_IDS: readonly string[] = ['chain:delivered', 'chain:expired'];

/** The lifecycle's steps, `A>B`, in the spec's order: the transitions `never` lists. */
const STEPS: string[] = Object.entries(ORDER_LIFECYCLE.steps as Record<string, readonly string[]>).flatMap(
  ([from, next]) => next.map((to) => `${from}>${to}`),
);

/** Every pair a poller may see of one order: a step, or several at once; only steps are listed as never met. */
const REACHABLE: string[] = ORDER_STATUSES.flatMap((from) =>
  [...reachableFrom(from)].map((to) => `${from}>${to}`),
);

function reachableFrom(from: string): Set<string> {
  const steps = ORDER_LIFECYCLE.steps as Record<string, readonly string[] | undefined>;
  const seen = new Set<string>();
  const queue = [...(steps[from] ?? [])];
  while (queue.length > 0) {
    const next = queue.shift()!;
    if (seen.has(next)) continue;
    seen.add(next);
    queue.push(...(steps[next] ?? []));
  }
  return seen;
}

/**
 * The ids `never` may list, in a reader's order.
 *
 * @example
 *   COVERAGE_IDS.includes('transition:FAILED>REFUNDED'); // true
 */
export const COVERAGE_IDS: readonly string[] = [
  ...API_OPERATION_IDS.map((id) => `op:${id}`),
  ...REJECTION_KINDS.map((kind) => `rejection:${kind}`),
  ...ORDER_STATUSES.map((status) => `status:${status}`),
  ...STEPS.map((step) => `transition:${step}`),
  'activation',
  ...CURRENCIES.map((currency) => `currency:${currency}`),
  ...FAULT_KINDS.map((kind) => `fault:${kind}`),
  'ratelimit',
  ...CHAIN_IDS,
];

/** Every id coverage may count: the listed ones and the transitions of skipped steps. */
export const KNOWN_COVERAGE_IDS: readonly string[] = [
  ...COVERAGE_IDS,
  ...REACHABLE.filter((pair) => !STEPS.includes(pair)).map((pair) => `transition:${pair}`),
];

const KNOWN = new Set(KNOWN_COVERAGE_IDS);

/** What a bare name (`REFUNDED`, `createOrder`, `FAILED>REFUNDED`) resolves to. */
export type ResolvedId =
  | { ok: true; id: string }
  | { ok: false; name: string; problem: 'unknown' | 'ambiguous'; candidates: string[] };

/**
 * A command line's name as a coverage id: an id, or the bare name one id ends with (case-folded if need be).
 *
 * @example
 *   resolveCoverageId('REFUNDED'); // { ok: true, id: 'status:REFUNDED' }
 *   resolveCoverageId('nope'); // { ok: false, problem: 'unknown', … }
 */
export function resolveCoverageId(name: string, known: readonly string[] = KNOWN_COVERAGE_IDS): ResolvedId {
  const set = known === KNOWN_COVERAGE_IDS ? KNOWN : new Set(known);
  if (set.has(name)) return { ok: true, id: name };
  const bare = (id: string): string => id.slice(id.indexOf(':') + 1);
  const kind = (id: string): string => id.slice(0, Math.max(0, id.indexOf(':')));
  for (const fold of [false, true]) {
    const same = (a: string, b: string): boolean => (fold ? a.toLowerCase() === b.toLowerCase() : a === b);
    const candidates = known.filter((id) => same(id, name) || same(bare(id), name) || same(kind(id), name));
    if (candidates.length === 1) return { ok: true, id: candidates[0]! };
    if (candidates.length > 1) return { ok: false, name, problem: 'ambiguous', candidates };
  }
  return { ok: false, name, problem: 'unknown', candidates: [] };
}

/** The settings coverage reads to leave out what they make impossible. */
export interface CoverageSettings {
  duplicateOutOrderNo: string;
  rateLimit: unknown;
}

/**
 * The ids the settings in force rule out, each with why: `never` leaves them out.
 *
 * @example
 *   impossibleIds({ duplicateOutOrderNo: 'return-existing', rateLimit: null });
 *   // [{ id: 'rejection:duplicateOutOrderNo', reason: '…' }, { id: 'ratelimit', reason: '…' }]
 */
export function impossibleIds(settings: CoverageSettings): Array<{ id: string; reason: string }> {
  const out: Array<{ id: string; reason: string }> = [];
  if (settings.duplicateOutOrderNo === 'return-existing')
    out.push({
      id: 'rejection:duplicateOutOrderNo',
      reason: 'duplicateOutOrderNo is return-existing: a repeated outOrderNo answers the first order.',
    });
  if (settings.rateLimit === null || settings.rateLimit === undefined)
    out.push({ id: 'ratelimit', reason: 'rateLimit is null: no request is ever limited.' });
  return out;
}
