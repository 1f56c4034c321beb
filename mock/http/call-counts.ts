/**
 * The counting layer: every finished API exchange (the request core's ExchangeFinished),
 * counted twice over, for as long as the process lives and never evicted as the journal
 * is, and untouched by a simulator reset:
 *
 *   calls      alike calls (operation, method, path, parameters, status, account) counted
 *              together, for verification (`sim.calls(filter)`, `GET /_sim/calls/count`)
 *              and the requests no operation took (`GET /_sim/calls/unmatched`);
 *   coverage   the behaviour ids of coverage-ids.ts, each with how often it was met.
 *
 * Counting is on every request's path, so it costs a few map lookups and increments: the
 * id table is made once, an exchange's behaviour is read from the fields it already has
 * (an order's id, status and currency are found in the answer's text, not parsed), and a
 * call alike one already counted allocates nothing.
 */
import type { components } from '../../src/generated/control.ts';
import {
  API_OPERATION_IDS,
  CURRENCIES,
  FAULT_KINDS,
  NODE_OPERATIONS,
  ORDER_LIFECYCLE,
  ORDER_STATUSES,
  REJECTION_KINDS,
} from '../../src/generated/lists.ts';
import { ERROR_CODES } from '../engine/simulator-error.ts';
import { callMatches, type CallFilter, type CallRow } from './call-filter.ts';
import {
  CHAIN_IDS,
  COVERAGE_IDS,
  impossibleIds,
  KNOWN_COVERAGE_IDS,
  type CoverageSettings,
} from '../../src/behaviour/coverage-ids.ts';
import type { ExchangeFinished } from './exchange.ts';

type C = components['schemas'];

/** Distinct calls kept apart; past it, calls alike but for their parameters (or on a new path) are counted together. */
export const MAX_CALL_ROWS = 100_000;
/** Distinct unmatched method and path pairs listed; the rest are counted in `omitted`. */
export const MAX_UNMATCHED = 1000;
/**
 * Orders whose last seen status is kept for transitions, at most: two generations of half
 * as many, the older forgotten whole when the younger fills, so an order is remembered for
 * at least MAX_TRACKED_ORDERS / 2 looks at other orders after its last.
 */
export const MAX_TRACKED_ORDERS = 100_000;
const GENERATION = MAX_TRACKED_ORDERS / 2;

/**
 * One account's orders looked at: order id → (last status index << 8 | bit mask of the
 * statuses seen | 0x80 once a status was seen). Generations rather than an ordered map
 * with an eviction per look: a look at a new order is one insert, and nothing is deleted.
 */
interface Looks {
  young: Map<string, number>;
  old: Map<string, number>;
  /**
   * Orders created and not yet looked at, of each generation, not yet in its map: their look
   * is always CREATED_LOOK. A creation is an array push; the map takes them when a look at
   * an order needs it (sync), so a run that only creates orders pays no map insert for them
   * (the insert was the largest part of counting an order creation in its profile).
   */
  youngCreated: string[];
  oldCreated: string[];
}

/** The path of the calls to paths first seen past MAX_CALL_ROWS. */
const OTHER_PATHS = '(other paths)';
/** The parameters of a call counted past MAX_CALL_ROWS: not kept apart. */
const PARAMS_DROPPED = '\u0000';

export interface CallCounts {
  /** Counts one finished exchange (the control plane's own are left out). */
  observe(exchange: ExchangeFinished): void;
  /** How many calls matched a filter; `exact: false` when some could not be told apart. */
  count(filter: CallFilter): C['CallCount'];
  /** The calls counted, most frequent first. */
  list(limit?: number): C['CallList'];
  /** The requests no operation took. */
  unmatched(): C['UnmatchedCalls'];
  /** The behaviours exercised, and those never. */
  coverage(): C['Coverage'];
  /** Forgets the calls (not the coverage). */
  clearCalls(): void;
  /** Forgets the coverage (not the calls). */
  clearCoverage(): void;
}

export interface CallCountsOptions {
  mode: 'simulator' | 'proxy' | 'replay';
  /** The settings in force, read when coverage is asked for and for an account's success code. */
  settings: () => CoverageSettings & { accountSuccessCode: number };
  /**
   * Called before every read and clear: hands over the exchanges finished and not yet
   * observed (ExchangeEvents.flush), so no count is behind the answers given.
   */
  settle?: (() => void) | undefined;
}

interface Row {
  operation: string | undefined;
  method: string;
  path: string;
  status: number;
  account: string | undefined;
  paramsText: string;
  count: number;
  params?: Record<string, string>;
}

/** Index of each listed and known id in the counters. */
const INDEX = new Map<string, number>(KNOWN_COVERAGE_IDS.map((id, i) => [id, i]));
const at = (id: string): number => INDEX.get(id)!;
const CALLED_INDEX = new Map<string, number>(API_OPERATION_IDS.map((id, i) => [id, i]));
const OP_INDEX = new Map<string, number>(API_OPERATION_IDS.map((id) => [id, at(`op:${id}`)]));
const REJECTION_INDEX = new Map<string, number>(
  REJECTION_KINDS.map((kind) => [kind, at(`rejection:${kind}`)]),
);
const FAULT_INDEX = new Map<string, number>(FAULT_KINDS.map((kind) => [kind, at(`fault:${kind}`)]));
const STATUS_CODES: readonly string[] = ORDER_STATUSES;
const STATUS_INDEX = STATUS_CODES.map((status) => at(`status:${status}`));
const CURRENCY_CODES: readonly string[] = CURRENCIES;
const CURRENCY_INDEX = CURRENCY_CODES.map((currency) => at(`currency:${currency}`));
/** TRANSITION_INDEX[from][to]: the counter of seeing `from` then `to`; -1 for a pair no lifecycle has. */
const TRANSITION_INDEX = STATUS_CODES.map((from) =>
  STATUS_CODES.map((to) => INDEX.get(`transition:${from}>${to}`) ?? -1),
);
const CREATED_STATUS = STATUS_CODES.indexOf(ORDER_LIFECYCLE.created);
/** The look kept for an order seen only in its creation's answer. */
const CREATED_LOOK = (CREATED_STATUS << 8) | (1 << CREATED_STATUS) | 0x80;
const ACTIVATION = at('activation');
const RATE_LIMIT = at('ratelimit');
const RATE_LIMITED_CODE = ERROR_CODES.rateLimited.code;

/** The answer's order facts are found in its JSON text by these (a JSON string escapes every quote inside). */
const ORDER_ID_FIELD = '"orderId":"';
const CREATED_ID_FIELD = '"id":"';
const STATUS_FIELD = '"status":"';
const CURRENCY_FIELD = '"currency":"';
const CODE_PREFIX = '{"code":';

/**
 * Creates the counting layer of one simulator.
 *
 * @example
 *   const counts = createCallCounts({ mode: 'simulator', settings: () => engine.settings() });
 *   exchanges.subscribe((x) => counts.observe(x));
 *   counts.count({ operation: 'createOrder' }); // { count: 3 }
 */
export function createCallCounts(options: CallCountsOptions): CallCounts {
  const { mode } = options;
  const settle = options.settle ?? (() => {});
  // path → method → status → account → parameters as sent → row: no key is built per call.
  let rows = new Map<string, Map<string, Map<number, Map<string, Map<string, Row>>>>>();
  let rowCount = 0;
  let total = 0;
  let unmatched = new Map<string, C['UnmatchedCalls']['requests'][number]>();
  let omitted = 0;

  let counters = new Float64Array(KNOWN_COVERAGE_IDS.length);
  /** Kinds the spec does not list (a backwards transition, an uncatalogued rejection). */
  let extra = new Map<string, number>();
  let unclassified = 0;
  /** Calls of each operation (API_OPERATION_IDS' order), whatever the answer. */
  let called = new Float64Array(API_OPERATION_IDS.length);
  /** account → the orders it looked at. */
  let tracked = new Map<string, Looks>();
  /** Orders in the young generations of every account. */
  let youngCount = 0;
  /** operationId → parameter names sent, and the signatures of the sets of names already read. */
  let parameterNames = new Map<string, Set<string>>();
  let parameterSignatures = new Map<string, Set<number>>();

  function child<K, V>(map: Map<K, V>, key: K, make: () => V): V {
    let value = map.get(key);
    if (value === undefined) {
      value = make();
      map.set(key, value);
    }
    return value;
  }

  // The row of the last call: a client repeating a call (a poll, a load test) finds its row
  // by comparing five fields instead of walking five maps.
  let last: Row | undefined;

  function countCall(x: ExchangeFinished, paramsText: string): void {
    total++;
    const account = x.account ?? '';
    const previous = last;
    if (
      previous !== undefined &&
      previous.status === x.status &&
      previous.paramsText === paramsText &&
      previous.path === x.path &&
      previous.method === x.method &&
      (previous.account ?? '') === account
    ) {
      previous.count++;
      return;
    }
    let path = x.path;
    let byMethod = rows.get(path);
    if (byMethod === undefined) {
      // Past the cap, a path never seen (a scanner's) is counted under one row of its own.
      if (rowCount >= MAX_CALL_ROWS) path = OTHER_PATHS;
      byMethod = rows.get(path);
      if (byMethod === undefined) rows.set(path, (byMethod = new Map()));
    }
    let byStatus = byMethod.get(x.method);
    if (byStatus === undefined) byMethod.set(x.method, (byStatus = new Map()));
    let byAccount = byStatus.get(x.status);
    if (byAccount === undefined) byStatus.set(x.status, (byAccount = new Map()));
    let byParams = byAccount.get(account);
    if (byParams === undefined) byAccount.set(account, (byParams = new Map()));
    let row = byParams.get(paramsText);
    if (row === undefined) {
      let text = paramsText;
      if (rowCount >= MAX_CALL_ROWS) {
        text = PARAMS_DROPPED;
        row = byParams.get(text);
      }
      if (row === undefined) {
        row = {
          operation: x.operation,
          method: x.method,
          path,
          status: x.status,
          account: x.account,
          paramsText: text,
          count: 0,
        };
        byParams.set(text, row);
        rowCount++;
      }
    }
    row.count++;
    // A row standing for calls past the cap is never taken as the last: its fields are not theirs.
    last = row.paramsText === paramsText && row.path === x.path ? row : undefined;
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

  function bump(index: number): void {
    counters[index]!++;
  }

  function bumpExtra(id: string): void {
    extra.set(id, (extra.get(id) ?? 0) + 1);
  }

  let lastNoted: { operation: string; paramsText: string } | undefined;

  function noteParameters(operation: string, paramsText: string): void {
    if (paramsText === '') return;
    // The same parameters as the last call: their names are noted already.
    if (lastNoted !== undefined && lastNoted.paramsText === paramsText && lastNoted.operation === operation)
      return;
    lastNoted = { operation, paramsText };
    // The names are read once per set of names: a signature of the names alone (values
    // skipped) is computed without allocating, so calls that differ only in their values
    // (a new outOrderNo each time) cost a walk over the text.
    const signature = nameSignature(paramsText);
    const signatures = child(parameterSignatures, operation, newNumberSet);
    if (signatures.has(signature)) return;
    signatures.add(signature);
    const names = child(parameterNames, operation, newStringSet);
    for (const pair of paramsText.split('&')) {
      const eq = pair.indexOf('=');
      const name = eq === -1 ? pair : pair.slice(0, eq);
      if (name !== '') names.add(safeDecode(name));
    }
  }

  /**
   * The last look, when it was a history answer and nothing has been looked at since: the
   * same answer again (a client polling an order) finds that order in the young generation
   * with the same status and changes nothing, so it is not read a second time.
   */
  let lastLook: { account: string; text: string } | undefined;

  /** One look at an order: its status and currency, counted once per order, and the step from the last look. */
  function seeOrder(
    account: string,
    orderId: string,
    status: number,
    currency: number,
    created: boolean,
    fresh = false,
  ): void {
    lastLook = undefined;
    let looks = tracked.get(account);
    if (looks === undefined)
      tracked.set(account, (looks = { young: new Map(), old: new Map(), youngCreated: [], oldCreated: [] }));
    // A new order (created without an outOrderNo that could name an existing one) was never
    // looked at, and its creation shows no status but the created one: kept as created.
    if (fresh && status === CREATED_STATUS) {
      if (currency !== -1) bump(CURRENCY_INDEX[currency]!);
      bump(STATUS_INDEX[status]!);
      nextYoung();
      looks.youngCreated.push(orderId);
      return;
    }
    sync(looks);
    let last = fresh ? undefined : looks.young.get(orderId);
    const young = last !== undefined;
    if (!fresh && !young && looks.old.size > 0) last = looks.old.get(orderId);
    if (last === undefined) {
      if (currency !== -1) bump(CURRENCY_INDEX[currency]!);
      if (status !== -1) bump(STATUS_INDEX[status]!);
      keep(looks, orderId, false, status === -1 ? 0 : (status << 8) | (1 << status) | 0x80);
      return;
    }
    // A creation answer shows no status: an order seen before (a repeated outOrderNo
    // answered with it) is not seen again by it.
    if (status === -1 || created) return;
    const hasLast = (last & 0x80) !== 0;
    const previous = last >> 8;
    const mask = last & 0x7f;
    if ((mask & (1 << status)) === 0) bump(STATUS_INDEX[status]!);
    if (hasLast && previous !== status) {
      const index = TRANSITION_INDEX[previous]![status]!;
      if (index !== -1) bump(index);
      else bumpExtra(`transition:${STATUS_CODES[previous]}>${STATUS_CODES[status]}`);
    }
    keep(looks, orderId, young, (status << 8) | mask | (1 << status) | 0x80);
  }

  /** Keeps an order's look in its account's young generation, forgetting every old one when the young are full. */
  function keep(looks: Looks, orderId: string, young: boolean, value: number): void {
    if (!young) nextYoung();
    looks.young.set(orderId, value);
  }

  /** Makes room for one more order in the young generations, forgetting the old ones when they are full. */
  function nextYoung(): void {
    if (youngCount >= GENERATION) {
      for (const each of tracked.values()) {
        each.old = each.young;
        each.oldCreated = each.youngCreated;
        each.young = new Map();
        each.youngCreated = [];
      }
      youngCount = 0;
    }
    youngCount++;
  }

  /** Puts an account's orders seen only as created into their generation's map, before a look reads it. */
  function sync(looks: Looks): void {
    if (looks.youngCreated.length > 0) {
      for (const id of looks.youngCreated) looks.young.set(id, CREATED_LOOK);
      looks.youngCreated = [];
    }
    if (looks.oldCreated.length > 0) {
      for (const id of looks.oldCreated) looks.old.set(id, CREATED_LOOK);
      looks.oldCreated = [];
    }
  }

  /** The order an answer shows (its text, or the value a proxy or replay kept), if it shows one. */
  function readOrder(x: ExchangeFinished, created: boolean, paramsText = ''): boolean {
    const account = x.account ?? '';
    // Only an outOrderNo (spelt out or escaped) can get an order answered that already exists.
    const fresh = created && !paramsText.includes('outOrderNo') && !paramsText.includes('%');
    // The value first, as envelopeCode reads it.
    const text = x.response === undefined ? x.responseText : undefined;
    if (text !== undefined) {
      if (!created && lastLook !== undefined && lastLook.text === text && lastLook.account === account)
        return true;
      const idAt = text.indexOf(created ? CREATED_ID_FIELD : ORDER_ID_FIELD);
      if (idAt === -1) return false;
      const start = idAt + (created ? CREATED_ID_FIELD.length : ORDER_ID_FIELD.length);
      const end = text.indexOf('"', start);
      if (end === -1) return false;
      const status = created ? CREATED_STATUS : codeAt(text, STATUS_FIELD, STATUS_CODES);
      seeOrder(
        account,
        text.slice(start, end),
        status,
        codeAt(text, CURRENCY_FIELD, CURRENCY_CODES),
        created,
        fresh,
      );
      if (!created) lastLook = { account, text };
      return true;
    }
    const data = (x.response as { data?: Record<string, unknown> } | null | undefined)?.data;
    if (typeof data !== 'object' || data === null) return false;
    const id = created ? data.id : data.orderId;
    if (typeof id !== 'string') return false;
    const status = created ? CREATED_STATUS : STATUS_CODES.indexOf(String(data.status));
    seeOrder(account, id, status, CURRENCY_CODES.indexOf(String(data.currency)), created);
    return true;
  }

  function envelopeCode(x: ExchangeFinished): number | undefined {
    // A value, when there is one, before its text: a proxy's text is the upstream's, in
    // whatever layout it was sent, where the searches below expect the compact one.
    const text = x.response === undefined ? x.responseText : undefined;
    if (text !== undefined) {
      if (!text.startsWith(CODE_PREFIX)) return undefined;
      let i = CODE_PREFIX.length;
      const negative = text.charCodeAt(i) === 45;
      if (negative) i++;
      let code = 0;
      let digits = 0;
      for (let c = text.charCodeAt(i); c >= 48 && c <= 57; c = text.charCodeAt(++i)) {
        code = code * 10 + (c - 48);
        digits++;
      }
      return digits === 0 ? undefined : negative ? -code : code;
    }
    const code = (x.response as { code?: unknown } | null | undefined)?.code;
    return typeof code === 'number' ? code : undefined;
  }

  function observeCoverage(x: ExchangeFinished, paramsText: string): void {
    let named = false;
    const faultKind = x.faultKind;
    if (faultKind !== undefined) {
      const index = FAULT_INDEX.get(faultKind);
      if (index !== undefined) bump(index);
      else bumpExtra(`fault:${faultKind}`);
      named = true;
    }
    if (x.activation) {
      bump(ACTIVATION);
      named = true;
    }
    // A read of the TRON node is no behaviour of the API: named, and counted when it showed energy come or go.
    if (x.operation !== undefined && x.operation in NODE_OPERATIONS) {
      if (x.chain) bump(at(`chain:${x.chain}`));
      return;
    }
    const rejection = x.rejection;
    if (rejection !== undefined) {
      const index = REJECTION_INDEX.get(rejection);
      if (index !== undefined) bump(index);
      else bumpExtra(`rejection:${rejection}`);
      named = true;
    } else if (faultKind === undefined || faultKind === 'latency') {
      const code = envelopeCode(x);
      if (x.status === 429 || code === RATE_LIMITED_CODE) {
        bump(RATE_LIMIT);
        named = true;
      } else if (x.operation !== undefined && x.status >= 200 && x.status < 300) {
        const success =
          code === 0 || (x.operation === 'getAccount' && code === options.settings().accountSuccessCode);
        if (success) {
          const index = OP_INDEX.get(x.operation);
          if (index !== undefined) bump(index);
          if (x.operation === 'createOrder') readOrder(x, true, paramsText);
          else if (x.operation === 'getOrderHistory') readOrder(x, false);
          named = true;
        }
      }
    }
    if (!named) unclassified++;
  }

  function publicRow(row: Row): CallRow {
    row.params ??= row.paramsText === PARAMS_DROPPED ? {} : paramsOf(row.paramsText);
    const out: CallRow =
      row.operation !== undefined ? ({ operation: row.operation } as CallRow) : ({} as CallRow);
    out.method = row.method;
    out.path = row.path;
    out.status = row.status;
    if (row.account !== undefined) out.account = row.account;
    out.params = row.params;
    out.count = row.count;
    return out;
  }

  function* allRows(): Generator<Row> {
    for (const byMethod of rows.values())
      for (const byStatus of byMethod.values())
        for (const byAccount of byStatus.values())
          for (const byParams of byAccount.values()) yield* byParams.values();
  }

  return {
    observe(x) {
      const path = x.path;
      // The control plane's own writes and the docs are not calls of the API.
      if (path.startsWith('/_sim') || path.startsWith('/docs')) return;
      const query = x.queryText;
      const body = x.body;
      const paramsText =
        body === undefined ? (query ?? '') : query === undefined || query === '' ? body : `${query}&${body}`;
      countCall(x, paramsText);
      if (x.operation === undefined) countUnmatched(x);
      else {
        // The API's operations alone: a TRON node read is not a call of the API.
        const index = CALLED_INDEX.get(x.operation);
        if (index !== undefined) {
          called[index]!++;
          noteParameters(x.operation, paramsText);
        }
      }
      observeCoverage(x, paramsText);
    },
    count(filter) {
      settle();
      let count = 0;
      let exact = true;
      const byParams = filter.params !== undefined && Object.keys(filter.params).length > 0;
      for (const row of allRows()) {
        if (byParams && row.paramsText === PARAMS_DROPPED) {
          if (callMatches(publicRow(row), { ...filter, params: {} })) exact = false;
          continue;
        }
        if (callMatches(publicRow(row), filter)) count += row.count;
      }
      return exact ? { count } : { count, exact: false };
    },
    list(limit = 1000) {
      settle();
      const all = [...allRows()].sort((a, b) => b.count - a.count);
      return { calls: all.slice(0, limit).map(publicRow), total };
    },
    unmatched() {
      settle();
      const requests = [...unmatched.values()].map((r) => ({ ...r }));
      return omitted > 0 ? { requests, omitted } : { requests };
    },
    coverage() {
      settle();
      const exercised: Record<string, number> = {};
      for (let i = 0; i < KNOWN_COVERAGE_IDS.length; i++)
        if (counters[i]! > 0) exercised[KNOWN_COVERAGE_IDS[i]!] = counters[i]!;
      for (const [id, n] of extra) exercised[id] = n;
      // What the settings rule out is the simulator's to say; an upstream or a recording decides for itself.
      const impossible = mode === 'simulator' ? impossibleIds(options.settings()) : [];
      const unobservable = mode === 'simulator' ? [] : ['activation', ...CHAIN_IDS];
      const left = new Set([...impossible.map((i) => i.id), ...unobservable]);
      const never = COVERAGE_IDS.filter((id) => exercised[id] === undefined && !left.has(id));
      const calledOps: Record<string, number> = {};
      API_OPERATION_IDS.forEach((id, i) => {
        if (called[i]! > 0) calledOps[id] = called[i]!;
      });
      const parameters: Record<string, string[]> = {};
      for (const [operation, names] of parameterNames) parameters[operation] = [...names].sort();
      return {
        mode,
        exercised,
        never,
        impossible: impossible.filter((i) => exercised[i.id] === undefined),
        unobservable,
        unclassified,
        called: calledOps,
        parameters,
      };
    },
    clearCalls() {
      settle();
      rows = new Map();
      rowCount = 0;
      total = 0;
      last = undefined;
      unmatched = new Map();
      omitted = 0;
    },
    clearCoverage() {
      settle();
      counters = new Float64Array(KNOWN_COVERAGE_IDS.length);
      extra = new Map();
      unclassified = 0;
      called = new Float64Array(API_OPERATION_IDS.length);
      tracked = new Map();
      lastLook = undefined;
      youngCount = 0;
      parameterNames = new Map();
      parameterSignatures = new Map();
      lastNoted = undefined;
    },
  };
}

// Made once: a child set is made by these, not by a closure per call.
const newNumberSet = (): Set<number> => new Set<number>();
const newStringSet = (): Set<string> => new Set<string>();

/**
 * A hash of the parameter names of a query or form text, values skipped: texts with the same
 * names in the same order have the same signature. Allocates nothing.
 */
function nameSignature(text: string): number {
  let hash = 0x811c9dc5;
  let inValue = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 38 /* & */) inValue = false;
    else if (inValue) continue;
    else if (c === 61 /* = */) inValue = true;
    hash = Math.imul(hash ^ c, 0x01000193);
  }
  return hash >>> 0;
}

/** The index in `codes` of the value of a string field found in `text`; -1 when absent or unknown. */
function codeAt(text: string, field: string, codes: readonly string[]): number {
  const found = text.indexOf(field);
  if (found === -1) return -1;
  const start = found + field.length;
  for (let i = 0; i < codes.length; i++) {
    const code = codes[i]!;
    if (text.startsWith(code, start) && text.charCodeAt(start + code.length) === 34) return i;
  }
  return -1;
}

/** A call's parameters, query then form body, as sent (a repeated name keeps its first value). */
function paramsOf(text: string): Record<string, string> {
  const params = Object.create(null) as Record<string, string>;
  if (text === '') return params;
  for (const [name, value] of new URLSearchParams(text)) if (!(name in params)) params[name] = value;
  return { ...params };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
