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

export interface Journal {
  record(entry: Omit<JournalEntry, 'id'>): void;
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
  let next = 0;
  let count = 0;
  let nextId = 1;
  const listeners = new Set<(entry: JournalEntry) => void>();
  return {
    record(entry) {
      const full: JournalEntry = { id: nextId++, ...entry };
      // Listeners (request logs, the dashboard) hear every entry, even with nothing kept.
      if (capacity > 0) {
        entries[next] = full;
        next = (next + 1) % capacity;
        count = Math.min(count + 1, capacity);
      }
      for (const listener of listeners) listener(full);
    },
    list(filter = {}) {
      const out: JournalEntry[] = [];
      const limit = filter.limit ?? 100;
      for (let i = 1; i <= count && out.length < limit; i++) {
        const entry = entries[(next - i + capacity) % capacity]!;
        if (!filter.operation || entry.operation === filter.operation) out.push(entry);
      }
      return out.reverse();
    },
    clear() {
      entries.fill(undefined);
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
