/**
 * The index of a replay: recorded requests (by position) by content, with their responses in
 * recorded order, each case's apart; and by operation and parameter, so a miss compares a
 * bounded number of them.
 */
import { withoutApiPrefix } from '../mock/http/api-operations.ts';
import { operationOf, type Interaction, type RecordedApiKey, type RecordedRequest } from './recording.ts';

/** Of each parameter value, how many recorded requests that hold it a miss compares with. */
export const CANDIDATES_PER_VALUE = 32;
/** How many of an operation's first recorded requests a miss compares with besides. */
export const CANDIDATES_PER_OPERATION = 32;

/** The responses of one request in recorded order, by position, and the next to serve. */
interface Cursor {
  items: number[];
  next: number;
}

/** The recorded responses of one request: all of them, and those of each case. */
export interface Responses {
  /** The request's signature (see createReplayIndex). */
  signature: string;
  all: Cursor;
  firstCase: string;
  /** The first case's; the same items as `all` while no other case sent the request. */
  own: Cursor;
  others?: Map<string, Cursor>;
}

/** A request's entry in the index: the position of its one answer, or its responses. */
export type Entry = number | Responses;

/** JSON with object keys sorted, so equal content gives equal text. */
export function canonical(value: unknown): string {
  // Written out rather than JSON.stringify with a replacer: a million requests are indexed at load.
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
  /** Indexes the interaction at `position`, in recorded order. */
  add(interaction: Interaction, position: number): void;
  /** The responses recorded for a request of this signature: a position, or several. */
  responses(wanted: RecordedRequest): Entry | undefined;
  /** The positions a miss is compared with. */
  candidates(wanted: RecordedRequest): number[];
}

/** A 31-bit FNV-1a hash: a Map keeps it as a small integer, not a string per request. */
function hashOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 1;
}

/**
 * The index of a replay. A request's signature is its content with the class of its key (any
 * foreign alias stands for "a key the target does not know"); requests are found by its hash,
 * two of one hash told apart by the signatures. `hash` is replaced by a test's colliding one.
 *
 * @example
 *   const index = createReplayIndex((alias) => roles.get(alias), (position) => interactions[position]!);
 */
export function createReplayIndex(
  roleOf: (alias: string) => RecordedApiKey['role'] | undefined,
  at: (position: number) => Interaction,
  hash: (text: string) => number = hashOf,
): ReplayIndex {
  const keyClass = (alias: string | undefined): string | undefined =>
    alias !== undefined && roleOf(alias) === 'foreign' ? 'foreign' : alias;
  const signature = (r: RecordedRequest): string =>
    canonical([
      r.method,
      // The real service's /api/v1/… and the simulator's /v1/… are one API: either matches.
      withoutApiPrefix(r.path),
      r.query,
      r.form ?? null,
      r.json ?? null,
      r.text ?? null,
      keyClass(r.apiKeyAlias) ?? null,
    ]);
  // Each request's responses: a position while there is one; under a hash, an entry or a list.
  const byHash = new Map<number, Entry | Entry[]>();
  const signatureOf = (entry: Entry): string =>
    typeof entry === 'number' ? signature(at(entry).request) : entry.signature;
  /** The entry of `sig` among those of its hash, and where it stands. */
  const find = (sig: string, hash: number): { entry?: Entry; list?: Entry[]; at: number } => {
    const found = byHash.get(hash);
    if (found === undefined) return { at: -1 };
    if (!Array.isArray(found))
      return signatureOf(found) === sig ? { entry: found, at: -1 } : { list: [found], at: -1 };
    const i = found.findIndex((entry) => signatureOf(entry) === sig);
    return i === -1 ? { list: found, at: -1 } : { entry: found[i], list: found, at: i };
  };
  // The case of each position, as runs: never a string per request.
  const runStarts: number[] = [];
  const runCases: string[] = [];
  const caseOf = (position: number): string => {
    let low = 0;
    let high = runStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (runStarts[middle]! <= position) low = middle;
      else high = middle - 1;
    }
    return runCases[low]!;
  };
  const misses = createMissIndex();
  const add = (interaction: Interaction, position: number): void => {
    if (runCases.at(-1) !== interaction.case) {
      runStarts.push(position);
      runCases.push(interaction.case);
    }
    // A 429 the recording run waited out and sent again: the replay serves what came after.
    if (interaction.retried) return;
    const sig = signature(interaction.request);
    const hashed = hash(sig);
    const found = find(sig, hashed);
    if (found.entry === undefined) {
      // A request not seen before (alone under its hash, or beside another's signature).
      if (found.list === undefined) byHash.set(hashed, position);
      else byHash.set(hashed, [...found.list, position]);
      // Each distinct request once: a request polled a thousand times is one candidate.
      misses.add(interaction, position);
      return;
    }
    let responses: Responses;
    if (typeof found.entry === 'number') {
      const items = [found.entry];
      responses = {
        signature: sig,
        all: { items, next: 0 },
        firstCase: caseOf(found.entry),
        own: { items, next: 0 },
      };
      if (found.list === undefined) byHash.set(hashed, responses);
      else found.list[found.at] = responses;
    } else responses = found.entry;
    if (interaction.case !== responses.firstCase) {
      // From here on the first case's responses and all responses differ: they part.
      if (responses.own.items === responses.all.items)
        responses.own = { items: [...responses.all.items], next: 0 };
      responses.others ??= new Map();
      let cursor = responses.others.get(interaction.case);
      if (!cursor) responses.others.set(interaction.case, (cursor = { items: [], next: 0 }));
      cursor.items.push(position);
    } else if (responses.own.items !== responses.all.items) responses.own.items.push(position);
    responses.all.items.push(position);
  };
  return {
    add,
    responses(wanted) {
      const sig = signature(wanted);
      return find(sig, hash(sig)).entry;
    },
    candidates: (wanted) => misses.candidates(wanted),
  };
}

/** The parameters of a request as `where name value` keys, for the index of misses. */
function pairsOf(request: RecordedRequest): string[] {
  const out: string[] = [];
  const add = (where: string, values: Record<string, unknown> | undefined): void => {
    for (const [name, value] of Object.entries(values ?? {}))
      out.push(`${where}\n${name}\n${canonical(value)}`);
  };
  add('query', request.query);
  add('form', request.form);
  if (typeof request.json === 'object' && request.json !== null && !Array.isArray(request.json))
    add('json', request.json as Record<string, unknown>);
  out.push(`key\n${request.apiKeyAlias ?? ''}`);
  return out;
}

interface MissIndex {
  add(interaction: Interaction, position: number): void;
  /** The positions of the recorded requests a miss is compared with: of its operation, sharing its values. */
  candidates(wanted: RecordedRequest): number[];
}

/** The recorded requests by operation and parameter value, each list kept short, for misses. */
function createMissIndex(): MissIndex {
  // Candidates come out in recorded order: of two equally close requests the first is named.
  // A hash two values share only adds candidates, which the comparison ranks.
  const operations = new Map<string, { first: number[]; byPair: Map<number, number | number[]> }>();
  const operationMemo = new Map<string, string>();
  const operation = (r: RecordedRequest): string => {
    const path = withoutApiPrefix(r.path);
    const key = `${r.method} ${path}`;
    let found = operationMemo.get(key);
    if (found === undefined) operationMemo.set(key, (found = operationOf(r.method, path)));
    return found;
  };
  // One request of each operation, for a miss whose operation was never recorded.
  const perOperation: number[] = [];
  return {
    add(interaction, position) {
      const op = operation(interaction.request);
      let entry = operations.get(op);
      if (!entry) {
        operations.set(op, (entry = { first: [], byPair: new Map() }));
        if (perOperation.length < CANDIDATES_PER_OPERATION * 8) perOperation.push(position);
      }
      if (entry.first.length < CANDIDATES_PER_OPERATION) entry.first.push(position);
      for (const pair of pairsOf(interaction.request)) {
        const hash = hashOf(pair);
        const list = entry.byPair.get(hash);
        if (list === undefined) entry.byPair.set(hash, position);
        else if (typeof list === 'number') entry.byPair.set(hash, [list, position]);
        else if (list.length < CANDIDATES_PER_VALUE) list.push(position);
      }
    },
    candidates(wanted) {
      const entry = operations.get(operation(wanted));
      if (!entry) return perOperation;
      const found = new Set(entry.first);
      for (const pair of pairsOf(wanted)) {
        const list = entry.byPair.get(hashOf(pair)) ?? [];
        for (const position of typeof list === 'number' ? [list] : list) found.add(position);
      }
      return [...found].sort((a, b) => a - b);
    },
  };
}
