/**
 * The request journal: what the simulator received and what it answered, in a ring
 * buffer with a fixed capacity so a week-long CI simulator stays a fixed size.
 *
 * The ring is kept in columns (typed arrays for the numbers, arrays of strings) rather
 * than as entry objects, and a response given as its JSON text is kept as that one
 * string: under load the last 1000 entries are all young when the garbage collector
 * scavenges, and copying their object graphs made each scavenge's pause most of a read's
 * p99 (bench/README.md). Entries are built
 * as objects only when listed.
 */
import type { components } from '../../src/generated/control.ts';
import type { ExchangeFinished } from './exchange.ts';
import { redactKeys } from './journal-redaction.ts';

/** One exchange as the journal lists it (spec/control.yaml's JournalEntry). */
export type JournalEntry = components['schemas']['JournalEntry'];

/** An entry as recorded: the journal numbers it. */
export type JournalDraft = Omit<JournalEntry, 'id'> & { id?: number };

/** What an entry may carry in raw form, turned into its fields only when listed. */
export interface JournalRaw {
  /** The query string (without `?`), parsed into `query` when listed. */
  query?: string | undefined;
  /** The response body as the JSON text sent, parsed into `response` when listed. */
  responseText?: string | undefined;
}

export interface Journal {
  /**
   * Keeps an entry and numbers it (its `id` is set on the object given, which listeners
   * then hear). Nothing keeps the object itself; the journal copies its fields.
   */
  record(entry: JournalDraft | (ExchangeFinished & { id?: number }), raw?: JournalRaw): void;
  /** The newest `limit` entries, oldest first, optionally of one operation. */
  list(filter?: { limit?: number; operation?: string }): JournalEntry[];
  clear(): void;
  readonly size: number;
  subscribe(listener: (entry: JournalEntry) => void): () => void;
}

/** Bodies are journaled up to this many characters. */
export const JOURNAL_BODY_LIMIT = 4096;
/**
 * Responses are journaled up to this many characters of their JSON text: whole bodies
 * let 1000 reads of 1000 orders take 700 MB and a journal read answer 464 MB.
 */
export const JOURNAL_RESPONSE_LIMIT = 4096;

/**
 * Whether a request is journaled. The control plane's own reads (GET /_sim/*) are not:
 * they change nothing, their answers are the largest the simulator sends (every order,
 * the journal itself), and a test polling them would push its API calls out of the ring.
 *
 * @example
 *   isJournaled('GET', '/_sim/orders');   // false
 *   isJournaled('POST', '/_sim/rules');   // true
 *   isJournaled('GET', '/v1/account');    // true
 */
export function isJournaled(method: string, path: string): boolean {
  // Clearing the journal leaves it empty, not holding its own clearing.
  if (path === '/_sim/journal' || path === '/_sim/events' || path === '/_sim/ui') return false;
  return !((method === 'GET' || method === 'HEAD') && (path === '/_sim' || path.startsWith('/_sim/')));
}

const MEDIA_TYPE = /^[\w.+-]{1,64}\/[\w.+-]{1,64}$/;
const KEPT_PARAMETER = /^(charset|boundary)=[\w.'()+,/:=?-]{1,70}$/i;

/**
 * A request's Content-Type as the journal keeps it, so that a copy of the request repeats
 * it: the media type and only its `charset` and `boundary` parameters (any other
 * parameter could carry anything, a key included); undefined when it names no media type.
 *
 * @example
 *   journalContentType('application/x-www-form-urlencoded; charset=UTF-8'); // the same
 *   journalContentType('text/plain; token=sk_live_1');                      // 'text/plain'
 */
export function journalContentType(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const [type = '', ...parameters] = value.split(';').map((part) => part.trim());
  if (!MEDIA_TYPE.test(type)) return undefined;
  return [type, ...parameters.filter((p) => KEPT_PARAMETER.test(p))].join('; ');
}

/** What both transports know of an exchange when they journal it. */
export interface Exchange {
  at: number;
  method: string;
  path: string;
  status: number;
  /** Since the request arrived, ms (performance.now()). */
  started: number;
  operation?: string | undefined;
  fault?: string | undefined;
  /** The wallet address of the request's account, when its key named one. */
  account?: string | undefined;
  /** The request body as received; kept redacted and cut by the caller's `keepBody`. */
  body?: string | undefined;
}

/**
 * The journal entry of an exchange, built the same way by the Hono app and the Node
 * fast path: the duration rounded to the microsecond, optional fields only when known.
 *
 * @example
 *   journal.record(exchangeEntry({ at: clock.now(), method: 'GET', path: '/v1/account', status: 200, started, operation: 'getAccount' }));
 */
export function exchangeEntry(exchange: Exchange): JournalDraft {
  const entry: JournalDraft = {
    at: exchange.at,
    method: exchange.method,
    path: exchange.path,
    status: exchange.status,
    durationMs: Math.round((performance.now() - exchange.started) * 1000) / 1000,
  };
  if (exchange.operation) entry.operation = exchange.operation;
  if (exchange.fault) entry.fault = exchange.fault;
  if (exchange.account) entry.account = exchange.account;
  if (exchange.body) entry.body = exchange.body;
  return entry;
}

/** The start of a text cut to `limit` characters, never splitting a surrogate pair. */
function cut(text: string, limit: number): string {
  const end = (text.charCodeAt(limit - 1) & 0xfc00) === 0xd800 ? limit - 1 : limit;
  return text.slice(0, end);
}

export interface JournalOptions {
  /**
   * Called before every read, clear and direct record: hands over the exchanges finished
   * and not yet heard (ExchangeEvents.flush), so the journal is never behind its answers.
   */
  settle?: (() => void) | undefined;
}

const noop = (): void => {};

/**
 * Creates a journal holding at most `capacity` entries.
 *
 * @example
 *   const journal = createJournal(1000);
 *   journal.record({ at: Date.now(), method: 'GET', path: '/v1/account', status: 200, durationMs: 0.2 });
 *   journal.list(); // [{ id: 1, at: …, method: 'GET', path: '/v1/account', status: 200, durationMs: 0.2 }]
 */
export function createJournal(capacity: number, options: JournalOptions = {}): Journal {
  const settle = options.settle ?? noop;
  const ids = new Float64Array(capacity);
  const ats = new Float64Array(capacity);
  const statuses = new Uint16Array(capacity);
  const durations = new Float64Array(capacity);
  const methods = new Array<string>(capacity);
  const paths = new Array<string>(capacity);
  const operations = new Array<string | undefined>(capacity);
  const faults = new Array<string | undefined>(capacity);
  const accounts = new Array<string | undefined>(capacity);
  const queries = new Array<Record<string, string> | string | undefined>(capacity);
  const bodies = new Array<string | undefined>(capacity);
  const contentTypes = new Array<string | undefined>(capacity);
  // What few entries carry (the proxy's violations and refusals, an outcome asked for); undefined for most.
  const rareFacts = new Array<Pick<JournalEntry, 'violations' | 'refused' | 'outcomeAsked'> | undefined>(
    capacity,
  );
  // The response object, or its JSON text until the entry is first listed.
  const responses = new Array<unknown>(capacity);
  // 1: the JSON text, parsed when first listed; 2: the cut start of a longer text, listed as it is.
  const responseIsText = new Uint8Array(capacity);
  let next = 0;
  let count = 0;
  let nextId = 1;
  const listeners = new Set<(entry: JournalEntry) => void>();

  function entryAt(slot: number): JournalEntry {
    // Keys in the order the journal has always listed them.
    const entry = {
      id: ids[slot]!,
      at: ats[slot]!,
      method: methods[slot]!,
      path: paths[slot]!,
      status: statuses[slot]!,
    } as JournalEntry;
    if (responses[slot] !== undefined) {
      if (responseIsText[slot] === 1) {
        // A text that is no JSON (an upstream's, say) is listed as the text it was.
        try {
          responses[slot] = JSON.parse(responses[slot] as string);
        } catch {
          // Kept as it is.
        }
        responseIsText[slot] = 0;
      }
      entry.response = responses[slot];
      if (responseIsText[slot] === 2) entry.responseTruncated = true;
    }
    entry.durationMs = durations[slot]!;
    if (operations[slot] !== undefined) entry.operation = operations[slot];
    if (faults[slot] !== undefined) entry.fault = faults[slot];
    if (accounts[slot] !== undefined) entry.account = accounts[slot];
    const query = queries[slot];
    if (typeof query === 'string') {
      // Redacted when first listed, not when recorded: a read's query costs nothing until then.
      const parsed = redactKeys(Object.fromEntries(new URLSearchParams(query))) as Record<string, string>;
      queries[slot] = parsed;
      entry.query = parsed;
    } else if (query !== undefined) {
      entry.query = query;
    }
    if (bodies[slot] !== undefined) entry.body = bodies[slot];
    if (contentTypes[slot] !== undefined) entry.contentType = contentTypes[slot];
    const facts = rareFacts[slot];
    if (facts?.violations) entry.violations = facts.violations;
    if (facts?.refused) entry.refused = facts.refused;
    if (facts?.outcomeAsked) entry.outcomeAsked = facts.outcomeAsked;
    return entry;
  }

  return {
    record(entry, raw) {
      settle();
      const id = nextId++;
      entry.id = id;
      if (capacity > 0) {
        const slot = next;
        ids[slot] = id;
        ats[slot] = entry.at;
        statuses[slot] = entry.status;
        durations[slot] = entry.durationMs;
        methods[slot] = entry.method;
        paths[slot] = entry.path;
        operations[slot] = entry.operation;
        faults[slot] = entry.fault;
        accounts[slot] = entry.account;
        const exchange = entry as ExchangeFinished;
        queries[slot] =
          raw?.query ??
          exchange.queryText ??
          (entry.query && (redactKeys(entry.query) as Record<string, string>));
        bodies[slot] = entry.body;
        contentTypes[slot] = entry.contentType;
        rareFacts[slot] =
          entry.violations || entry.refused || entry.outcomeAsked
            ? { violations: entry.violations, refused: entry.refused, outcomeAsked: entry.outcomeAsked }
            : undefined;
        // Kept as JSON text, at most JOURNAL_RESPONSE_LIMIT characters of it: the bound
        // lives here so that both the Hono middleware and the fast path keep to it.
        const text =
          raw?.responseText ??
          exchange.responseText ??
          (entry.response !== undefined ? JSON.stringify(entry.response) : undefined);
        if (text !== undefined && text.length > JOURNAL_RESPONSE_LIMIT) {
          responses[slot] = cut(text, JOURNAL_RESPONSE_LIMIT);
          responseIsText[slot] = 2;
        } else {
          responses[slot] = text;
          responseIsText[slot] = text !== undefined ? 1 : 0;
        }
        next = (next + 1) % capacity;
        count = Math.min(count + 1, capacity);
      }
      // Listeners (request logs, the dashboard) hear every entry, even with nothing kept.
      for (const listener of listeners) listener(entry as JournalEntry);
    },
    list(filter = {}) {
      settle();
      const out: JournalEntry[] = [];
      const limit = filter.limit ?? 100;
      for (let i = 1; i <= count && out.length < limit; i++) {
        const slot = (next - i + capacity) % capacity;
        if (filter.operation && operations[slot] !== filter.operation) continue;
        out.push(entryAt(slot));
      }
      return out.reverse();
    },
    clear() {
      settle();
      methods.fill(undefined as unknown as string);
      paths.fill(undefined as unknown as string);
      operations.fill(undefined);
      faults.fill(undefined);
      accounts.fill(undefined);
      queries.fill(undefined);
      bodies.fill(undefined);
      contentTypes.fill(undefined);
      rareFacts.fill(undefined);
      responses.fill(undefined);
      next = 0;
      count = 0;
    },
    get size() {
      settle();
      return count;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
