/**
 * The request journal: what the simulator received and what it answered, in a ring
 * buffer with a fixed capacity so a week-long CI simulator stays a fixed size.
 */
export interface JournalEntry {
  id: number;
  at: number;
  method: string;
  path: string;
  operation?: string;
  /** The id of the injected fault that hit the request. */
  fault?: string;
  account?: string;
  query?: Record<string, string>;
  body?: string;
  status: number;
  response?: unknown;
  durationMs: number;
}

/** An entry as recorded: the journal numbers it. */
export type JournalDraft = Omit<JournalEntry, 'id'> & { id?: number };

export interface Journal {
  /**
   * Keeps an entry, which becomes the journal's (it is numbered in place, not copied).
   * A query string given as `rawQuery` is parsed into `query` only when the entry is
   * listed: most entries are never read.
   */
  record(entry: JournalDraft, rawQuery?: string): void;
  /** The newest `limit` entries, oldest first, optionally of one operation. */
  list(filter?: { limit?: number; operation?: string }): JournalEntry[];
  clear(): void;
  readonly size: number;
  subscribe(listener: (entry: JournalEntry) => void): () => void;
}

/** Bodies are journaled up to this many characters. */
export const JOURNAL_BODY_LIMIT = 4096;

/**
 * Creates a journal holding at most `capacity` entries.
 *
 * @example
 *   const journal = createJournal(1000);
 */
export function createJournal(capacity: number): Journal {
  const entries: (JournalEntry | undefined)[] = new Array(capacity);
  const rawQueries: (string | undefined)[] = new Array(capacity);
  let next = 0;
  let count = 0;
  let nextId = 1;
  const listeners = new Set<(entry: JournalEntry) => void>();
  return {
    record(entry, rawQuery) {
      const full = entry as JournalEntry;
      full.id = nextId++;
      // Listeners (request logs, the dashboard) hear every entry, even with nothing kept.
      if (capacity > 0) {
        entries[next] = full;
        rawQueries[next] = rawQuery;
        next = (next + 1) % capacity;
        count = Math.min(count + 1, capacity);
      }
      for (const listener of listeners) listener(full);
    },
    list(filter = {}) {
      const out: JournalEntry[] = [];
      const limit = filter.limit ?? 100;
      for (let i = 1; i <= count && out.length < limit; i++) {
        const slot = (next - i + capacity) % capacity;
        const entry = entries[slot]!;
        if (filter.operation && entry.operation !== filter.operation) continue;
        const raw = rawQueries[slot];
        if (raw !== undefined) {
          entry.query = Object.fromEntries(new URLSearchParams(raw));
          rawQueries[slot] = undefined;
        }
        out.push(entry);
      }
      return out.reverse();
    },
    clear() {
      entries.fill(undefined);
      rawQueries.fill(undefined);
      next = 0;
      count = 0;
    },
    get size() {
      return count;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
