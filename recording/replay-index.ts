/** The index of a replay: recorded requests by content, and by operation and parameter for a miss. */
import { withoutApiPrefix } from '../mock/http/api-operations.ts';
import { operationOf, type Interaction, type RecordedApiKey, type RecordedRequest } from './recording.ts';

/** Of each parameter value, how many recorded requests that hold it a miss compares with. */
export const CANDIDATES_PER_VALUE = 32;
/** How many of an operation's first recorded requests a miss compares with besides. */
export const CANDIDATES_PER_OPERATION = 32;

/** The responses of one request in recorded order, by position, and the next to serve. */
export interface Cursor {
  items: number[];
  next: number;
}

/** The recorded responses of one request: all of them, and those of each case. */
export interface Responses {
  all: Cursor;
  byCase: Map<string, Cursor>;
}

/** JSON with object keys sorted, so equal content gives equal text. */
export function canonical(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value))
    return `[${value.map((item) => (item === undefined ? 'null' : canonical(item))).join(',')}]`;
  const record = value as Record<string, unknown>;
  const names = Object.keys(record)
    .filter((name) => record[name] !== undefined)
    .sort();
  return `{${names.map((name) => `${JSON.stringify(name)}:${canonical(record[name])}`).join(',')}}`;
}

/** The recorded requests by their content (for a hit) and by operation and parameter (for a miss). */
export interface ReplayIndex {
  add(interaction: Interaction, position: number): void;
  responses(wanted: RecordedRequest): Responses | undefined;
  /** The positions a miss is compared with, in recorded order. */
  candidates(wanted: RecordedRequest): number[];
}

/**
 * The index of a replay, by content and key class (any alias not named, or named foreign, is 'foreign').
 *
 * @example
 *   const index = createReplayIndex(recording.apiKeys);
 *   recording.interactions.forEach((interaction, position) => index.add(interaction, position));
 */
export function createReplayIndex(apiKeys: readonly RecordedApiKey[]): ReplayIndex {
  const roles = new Map(apiKeys.map((k) => [k.alias, k.role]));
  const keyClass = (alias: string | undefined): string | null =>
    alias === undefined ? null : (roles.get(alias) ?? 'foreign') === 'foreign' ? 'foreign' : alias;
  const signature = (r: RecordedRequest): string =>
    // The real service's /api/v1/… and the simulator's /v1/… are one API: either matches.
    canonical([r.method, withoutApiPrefix(r.path), r.query, r.form, r.json, r.text, keyClass(r.apiKeyAlias)]);
  const bySignature = new Map<string, Responses>();
  // For misses: per operation its first requests, and per parameter value those that hold it.
  const operations = new Map<string, { first: number[]; byPair: Map<string, number[]> }>();
  // One request of each operation, for a miss whose operation was never recorded.
  const perOperation: number[] = [];
  const operation = (r: RecordedRequest): string => operationOf(r.method, r.path);
  return {
    add(interaction, position) {
      // A 429 the recording run waited out and sent again: the replay serves what came after.
      if (interaction.retried) return;
      const sig = signature(interaction.request);
      let responses = bySignature.get(sig);
      if (!responses) {
        bySignature.set(sig, (responses = { all: { items: [], next: 0 }, byCase: new Map() }));
        const op = operation(interaction.request);
        let entry = operations.get(op);
        if (!entry) {
          operations.set(op, (entry = { first: [], byPair: new Map() }));
          if (perOperation.length < CANDIDATES_PER_OPERATION * 8) perOperation.push(position);
        }
        if (entry.first.length < CANDIDATES_PER_OPERATION) entry.first.push(position);
        for (const pair of pairsOf(interaction.request)) {
          const list = entry.byPair.get(pair);
          if (!list) entry.byPair.set(pair, [position]);
          else if (list.length < CANDIDATES_PER_VALUE) list.push(position);
        }
      }
      responses.all.items.push(position);
      let own = responses.byCase.get(interaction.case);
      if (!own) responses.byCase.set(interaction.case, (own = { items: [], next: 0 }));
      own.items.push(position);
    },
    responses: (wanted) => bySignature.get(signature(wanted)),
    candidates(wanted) {
      const entry = operations.get(operation(wanted));
      if (!entry) return perOperation;
      const found = new Set(entry.first);
      for (const pair of pairsOf(wanted))
        for (const position of entry.byPair.get(pair) ?? []) found.add(position);
      return [...found].sort((a, b) => a - b);
    },
  };
}

/** The parameters of a request as `where name value` keys, for the index of misses. */
function pairsOf(request: RecordedRequest): string[] {
  const json = request.json;
  const named = {
    query: request.query,
    form: request.form,
    json: typeof json === 'object' && json !== null && !Array.isArray(json) ? json : undefined,
  };
  const pairs = Object.entries(named).flatMap(([where, values]) =>
    Object.entries(values ?? {}).map(([name, value]) => `${where}\n${name}\n${canonical(value)}`),
  );
  return [...pairs, `key\n${request.apiKeyAlias ?? ''}`];
}
