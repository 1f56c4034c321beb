/** The request journal: a ring buffer of the exchanges, each response kept as its text, cut. */
import type { components } from '../../src/generated/control.ts';
import type { ExchangeFinished } from './exchange.ts';
import { redactKeys } from './journal-redaction.ts';

/** One exchange as the journal lists it (spec/control.yaml's JournalEntry). */
export type JournalEntry = components['schemas']['JournalEntry'];

export interface Journal {
  /** Keeps a copy of an exchange and numbers it (its `id` is set on the object given, which listeners hear). */
  record(exchange: ExchangeFinished & { id?: number }): void;
  /** The newest `limit` entries, oldest first, optionally of one operation. */
  list(filter?: { limit?: number; operation?: string }): JournalEntry[];
  clear(): void;
  readonly size: number;
  subscribe(listener: (entry: JournalEntry) => void): () => void;
}

export const JOURNAL_BODY_LIMIT = 4096;
/** Responses are journaled up to this many characters of their JSON text, so the ring stays small. */
export const JOURNAL_RESPONSE_LIMIT = 4096;

/** What the ring keeps of one exchange: the exchange, its response as text, cut to the limit. */
interface Kept {
  id: number;
  exchange: Omit<ExchangeFinished, 'response' | 'responseText'>;
  responseText: string | undefined;
  truncated: boolean;
}

/** The fields an entry lists after its response, in the order the journal has always listed them. */
const LISTED = ['durationMs', 'operation', 'fault', 'account', 'query', 'body', 'contentType'] as const;
const RARE = ['violations', 'refused', 'outcomeAsked'] as const;

/**
 * A body as the journal keeps it: its JSON when it is JSON, else its text.
 *
 * @example
 *   parsedOrText('{"a":1}'); // { a: 1 }
 */
export function parsedOrText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The start of a text cut to `limit` characters, never splitting a surrogate pair. */
function cut(text: string, limit: number): string {
  const end = (text.charCodeAt(limit - 1) & 0xfc00) === 0xd800 ? limit - 1 : limit;
  return text.slice(0, end);
}

/**
 * Creates a journal holding at most `capacity` entries.
 *
 * @example
 *   const journal = createJournal(1000);
 *   journal.record({ at: Date.now(), method: 'GET', path: '/v1/account', status: 200, durationMs: 0.2 });
 *   journal.list(); // [{ id: 1, at: …, method: 'GET', path: '/v1/account', status: 200, durationMs: 0.2 }]
 */
export function createJournal(capacity: number): Journal {
  let ring: Kept[] = [];
  let next = 0;
  let nextId = 1;
  const listeners = new Set<(entry: JournalEntry) => void>();

  function listed({ id, exchange: x, responseText, truncated }: Kept): JournalEntry {
    const entry = { id, at: x.at, method: x.method, path: x.path, status: x.status } as JournalEntry;
    if (responseText !== undefined) {
      entry.response = truncated ? responseText : parsedOrText(responseText);
      if (truncated) entry.responseTruncated = true;
    }
    const query = x.queryText !== undefined ? Object.fromEntries(new URLSearchParams(x.queryText)) : x.query;
    const fields = { ...x, query: query && (redactKeys(query) as Record<string, string>) };
    for (const name of [...LISTED, ...RARE])
      if (fields[name] !== undefined) (entry as Record<string, unknown>)[name] = fields[name];
    return entry;
  }

  return {
    record(exchange) {
      const id = nextId++;
      exchange.id = id;
      if (capacity > 0) {
        // The response is kept as its text, cut: never the value or text given, which may be megabytes.
        const { response, responseText, ...fields } = exchange;
        const text = responseText ?? (response !== undefined ? JSON.stringify(response) : undefined);
        const truncated = text !== undefined && text.length > JOURNAL_RESPONSE_LIMIT;
        const kept: Kept = {
          id,
          exchange: fields,
          responseText: truncated ? cut(text, JOURNAL_RESPONSE_LIMIT) : text,
          truncated,
        };
        if (ring.length < capacity) ring.push(kept);
        else ring[next] = kept;
        next = (next + 1) % capacity;
      }
      // Listeners hear every entry, even with nothing kept.
      for (const listener of listeners) listener(exchange as JournalEntry);
    },
    list(filter = {}) {
      const out: JournalEntry[] = [];
      const limit = filter.limit ?? 100;
      for (let i = 1; i <= ring.length && out.length < limit; i++) {
        const kept = ring[(next - i + ring.length) % ring.length]!;
        if (filter.operation && kept.exchange.operation !== filter.operation) continue;
        out.push(listed(kept));
      }
      return out.reverse();
    },
    clear() {
      ring = [];
      next = 0;
    },
    get size() {
      return ring.length;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
