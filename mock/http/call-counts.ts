/**
 * The counting layer, untouched by a reset: alike API calls counted together (for `sim.calls`,
 * `expectCalls`), the requests no operation took, and the coverage ids met.
 */
import type { components } from '../../src/generated/control.ts';
import {
  API_OPERATION_IDS,
  CURRENCIES,
  NODE_OPERATIONS,
  ORDER_LIFECYCLE,
  ORDER_STATUSES,
  type Mode,
} from '../../src/generated/lists.ts';
import { ERROR_CODES } from '../engine/simulator-error.ts';
import {
  CHAIN_IDS,
  COVERAGE_IDS,
  impossibleIds,
  KNOWN_COVERAGE_IDS,
  type CoverageSettings,
} from '../../src/behaviour/coverage-ids.ts';
import type { ExchangeFinished } from './exchange.ts';

type C = components['schemas'];

/** Distinct calls kept apart; past it, calls differing only in parameters (or path) are counted together. */
export const MAX_CALL_ROWS = 100_000;
/** Distinct unmatched method and path pairs listed; the rest are counted in `omitted`. */
const MAX_UNMATCHED = 1000;
/** Orders whose statuses seen are kept for the transitions: the one looked at least recently is forgotten first. */
export const MAX_TRACKED_ORDERS = 100_000;

const OTHER_PATHS = '(other paths)';
/** The parameters of a call counted past MAX_CALL_ROWS: not kept apart. */
const PARAMS_DROPPED = '\u0000';
const RATE_LIMITED_CODE = ERROR_CODES.rateLimited.code;
const KNOWN_CURRENCIES: ReadonlySet<unknown> = new Set(CURRENCIES);

export interface CallCounts {
  /** Counts one finished exchange (the control plane's own are left out). */
  observe(exchange: ExchangeFinished): void;
  /** How many calls matched a filter; `exact: false` when some could not be told apart. */
  count(filter: CallFilter): C['CallCount'];
  list(limit?: number): C['CallList'];
  unmatched(): C['UnmatchedCalls'];
  /** The behaviours exercised, and those never. */
  coverage(): C['Coverage'];
  clearCalls(): void;
  clearCoverage(): void;
}

/**
 * Creates the counting layer of one simulator.
 *
 * @example
 *   const counts = createCallCounts({ mode: 'simulator', settings: () => engine.settings() });
 *   exchanges.subscribe((x) => counts.observe(x));
 *   counts.count({ operation: 'createOrder' }); // { count: 3 }
 */
export function createCallCounts(options: {
  mode: Mode;
  /** The settings in force, read when coverage is asked for and for an account's success code. */
  settings: () => CoverageSettings & { accountSuccessCode: number };
}): CallCounts {
  const { mode } = options;
  let rows = new Map<string, CallRow>();
  let paths = new Set<string>();
  // The rows past MAX_CALL_ROWS that count calls of any parameters together.
  let lumped = new Set<CallRow>();
  let total = 0;
  let unmatched = new Map<string, C['UnmatchedCalls']['requests'][number]>();
  let omitted = 0;
  let exercised = new Map<string, number>();
  let unclassified = 0;
  let called = new Map<string, number>();
  // account and order id → a bit per status of ORDER_STATUSES seen, and the last one's index + 1 from bit 8.
  let orders = new Map<string, number>();
  let parameters = new Map<string, Set<string>>();

  let bumps = 0;
  const bump = (id: string): void => {
    bumps++;
    exercised.set(id, (exercised.get(id) ?? 0) + 1);
  };

  function countCall(x: ExchangeFinished, paramsText: string): void {
    total++;
    const full = rows.size >= MAX_CALL_ROWS;
    // Past the cap, a path never seen (a scanner's) is counted under one row of its own.
    const path = full && !paths.has(x.path) ? OTHER_PATHS : x.path;
    const key = (params: string): string => [x.method, path, x.status, x.account ?? '', params].join('\n');
    let row = rows.get(key(paramsText)) ?? (full ? rows.get(key(PARAMS_DROPPED)) : undefined);
    if (row === undefined) {
      row = {
        ...(x.operation !== undefined ? { operation: x.operation } : {}),
        method: x.method,
        path,
        status: x.status,
        ...(x.account !== undefined ? { account: x.account } : {}),
        params: full ? {} : paramsOf(paramsText),
        count: 0,
      };
      rows.set(key(full ? PARAMS_DROPPED : paramsText), row);
      if (full) lumped.add(row);
      paths.add(path);
    }
    row.count++;
  }

  function countUnmatched(x: ExchangeFinished): void {
    const key = `${x.method} ${x.path}`;
    const seen = unmatched.get(key);
    if (seen) {
      seen.count++;
      seen.status = x.status;
    } else if (unmatched.size < MAX_UNMATCHED)
      unmatched.set(key, { method: x.method, path: x.path, status: x.status, count: 1 });
    else omitted++;
  }

  /** One look at an order: each status counted once per order, and the step from the last look. */
  function seeOrder(account: string, orderId: string, status: string | undefined, currency: unknown): void {
    const key = `${account}\n${orderId}`;
    let look = orders.get(key);
    if (look === undefined) {
      if (KNOWN_CURRENCIES.has(currency)) bump(`currency:${String(currency)}`);
      look = 0;
    }
    const index =
      status === undefined ? -1 : ORDER_STATUSES.indexOf(status as (typeof ORDER_STATUSES)[number]);
    if (index !== -1) {
      if ((look & (1 << index)) === 0) bump(`status:${status}`);
      const last = (look >> 8) - 1;
      if (last !== -1 && last !== index) bump(`transition:${ORDER_STATUSES[last]}>${status}`);
      look = ((index + 1) << 8) | (look & 0xff) | (1 << index);
    }
    orders.delete(key);
    orders.set(key, look);
    if (orders.size > MAX_TRACKED_ORDERS) orders.delete(orders.keys().next().value!);
  }

  /** The order an answer shows, if it shows one: a creation's (CREATED, unless seen before) or a history's. */
  function readOrder(x: ExchangeFinished, created: boolean): void {
    const data = bodyOf(x)?.data as Record<string, unknown> | null | undefined;
    if (typeof data !== 'object' || data === null) return;
    const id = created ? data.id : data.orderId;
    if (typeof id !== 'string') return;
    const account = x.account ?? '';
    // A creation answer shows no status: a repeated outOrderNo's order is not seen again.
    const status = created
      ? orders.has(`${account}\n${id}`)
        ? undefined
        : ORDER_LIFECYCLE.created
      : String(data.status);
    seeOrder(account, id, status, data.currency);
  }

  function bodyOf(x: ExchangeFinished): { code?: unknown; data?: unknown } | undefined {
    return typeof x.response === 'object' && x.response !== null ? x.response : undefined;
  }

  function observeCoverage(x: ExchangeFinished): void {
    // An exchange that names no behaviour is counted unclassified.
    const before = bumps;
    const faultKind = x.faultKind;
    if (faultKind !== undefined) bump(`fault:${faultKind}`);
    if (x.activation) bump('activation');
    // A read of the TRON node is no API behaviour: counted only when it showed energy come or go.
    if (x.operation !== undefined && x.operation in NODE_OPERATIONS) {
      if (x.chain) bump(`chain:${x.chain}`);
      return;
    }
    if (x.rejection !== undefined) bump(`rejection:${x.rejection}`);
    else if (faultKind === undefined || faultKind === 'latency') {
      const code = bodyOf(x)?.code;
      if (x.status === 429 || code === RATE_LIMITED_CODE) bump('ratelimit');
      else if (x.operation !== undefined && x.status >= 200 && x.status < 300) {
        const success =
          code === 0 || (x.operation === 'getAccount' && code === options.settings().accountSuccessCode);
        if (success) {
          bump(`op:${x.operation}`);
          if (x.operation === 'createOrder') readOrder(x, true);
          else if (x.operation === 'getOrderHistory') readOrder(x, false);
        }
      }
    }
    if (bumps === before) unclassified++;
  }

  return {
    observe(x) {
      if (x.path.startsWith('/_sim') || x.path.startsWith('/docs')) return;
      const query = x.queryText ?? '';
      const paramsText = x.body === undefined ? query : query === '' ? x.body : `${query}&${x.body}`;
      countCall(x, paramsText);
      if (x.operation === undefined) countUnmatched(x);
      else if (!(x.operation in NODE_OPERATIONS)) {
        called.set(x.operation, (called.get(x.operation) ?? 0) + 1);
        const names = parameters.get(x.operation) ?? new Set<string>();
        for (const [name] of new URLSearchParams(paramsText)) if (name !== '') names.add(name);
        if (names.size > 0) parameters.set(x.operation, names);
      }
      observeCoverage(x);
    },
    count(filter) {
      let count = 0;
      let exact = true;
      const byParams = filter.params !== undefined && Object.keys(filter.params).length > 0;
      for (const row of rows.values()) {
        if (byParams && lumped.has(row)) {
          if (callDifferences(row, { ...filter, params: {} }).length === 0) exact = false;
        } else if (callDifferences(row, filter).length === 0) count += row.count;
      }
      return exact ? { count } : { count, exact: false };
    },
    list(limit = 1000) {
      const all = [...rows.values()].sort((a, b) => b.count - a.count);
      return { calls: structuredClone(all.slice(0, limit)), total };
    },
    unmatched() {
      const requests = [...unmatched.values()].map((r) => ({ ...r }));
      return omitted > 0 ? { requests, omitted } : { requests };
    },
    coverage() {
      const counted: Record<string, number> = {};
      // The spec's ids in their order, then those it does not list.
      for (const id of KNOWN_COVERAGE_IDS) if (exercised.has(id)) counted[id] = exercised.get(id)!;
      for (const [id, n] of exercised) counted[id] ??= n;
      // What the settings rule out is the simulator's to say; an upstream or a recording decides for itself.
      const impossible = mode === 'simulator' ? impossibleIds(options.settings()) : [];
      const unobservable = mode === 'simulator' ? [] : ['activation', ...CHAIN_IDS];
      const left = new Set([...impossible.map((i) => i.id), ...unobservable]);
      const calledOps: Record<string, number> = {};
      for (const id of API_OPERATION_IDS) if (called.has(id)) calledOps[id] = called.get(id)!;
      const names: Record<string, string[]> = {};
      for (const [operation, seen] of parameters) names[operation] = [...seen].sort();
      return {
        mode,
        exercised: counted,
        never: COVERAGE_IDS.filter((id) => counted[id] === undefined && !left.has(id)),
        impossible: impossible.filter((i) => counted[i.id] === undefined),
        unobservable,
        unclassified,
        called: calledOps,
        parameters: names,
      };
    },
    clearCalls() {
      rows = new Map();
      paths = new Set();
      lumped = new Set();
      total = 0;
      unmatched = new Map();
      omitted = 0;
    },
    clearCoverage() {
      exercised = new Map();
      unclassified = 0;
      called = new Map();
      orders = new Map();
      parameters = new Map();
    },
  };
}

/** A call's parameters, query then form body, as sent (a repeated name keeps its first value). */
function paramsOf(text: string): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(text))
    if (!Object.hasOwn(params, name)) params[name] = value;
  return params;
}

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
  for (const key of ['operation', 'method', 'path', 'status', 'account'] as const) {
    const wanted = key === 'method' ? filter.method?.toUpperCase() : filter[key];
    if (wanted !== undefined && row[key] !== wanted)
      out.push(`${key} is ${row[key] ?? 'none'}, not ${wanted}`);
  }
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
