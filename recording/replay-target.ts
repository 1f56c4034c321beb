/**
 * The replay target: a fetch built from a recording, with no network. It matches each
 * request by content (method, path, sorted query, form or JSON body, API key alias),
 * preferring what the same case recorded, and serves identical requests' responses in
 * recorded order (history polling: PENDING, PENDING, COMPLETED), repeating the last
 * one when they run out.
 *
 * A request that matches nothing is answered HTTP 501 with the envelope
 * `{ code: 59900, msg: "No recorded interaction matches …; the closest recorded request
 * is …", time, data: null }`, and noted, so the harness fails the case loudly even when
 * the case expected a rejection.
 *
 * The recording is indexed once, at load: by request (for a hit) and by operation and
 * parameter (for the closest request of a miss), so a miss compares a bounded number of
 * recorded requests however many the recording holds, and costs what a hit costs.
 */
import { withoutApiPrefix } from '../mock/http/api-operations.ts';
import { LIVE_CASE } from './live-recording.ts';
import { paramsOf, type CaseTransport } from './recorder.ts';
import {
  describeRequest,
  operationOf,
  MAIN_KEY_ALIAS,
  type Interaction,
  type RecordedRequest,
  type Recording,
  type TargetInfo,
} from './recording.ts';

export const REPLAY_MISS_CODE = 59900;
export const REPLAY_MISS_STATUS = 501;

export interface Replay {
  /** The recorded target, as the contract suite should see it. */
  info: Pick<TargetInfo, 'simulator' | 'capabilities' | 'clock' | 'timing' | 'variant' | 'baseUrl' | 'kind'>;
  transport: CaseTransport;
  /** What matched nothing so far in this case (emptied by the call). */
  takeMisses(caseName: string): string[];
  /** How many recorded requests the last miss was compared with (bounded by the index). */
  readonly lastMissComparisons: number;
}

/** Of each parameter value, how many recorded requests that hold it a miss compares with. */
export const CANDIDATES_PER_VALUE = 32;
/** How many of an operation's first recorded requests a miss compares with besides. */
export const CANDIDATES_PER_OPERATION = 32;

interface Cursor {
  items: Interaction[];
  next: number;
}

/** The recorded answers of one request: all of them, and those of each case. */
interface Answers {
  all: Cursor;
  firstCase: string;
  /** The first case's; the same items as `all` while no other case sent the request. */
  own: Cursor;
  others?: Map<string, Cursor>;
}

/** JSON with object keys sorted, so equal content gives equal text. */
function canonical(value: unknown): string {
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

/**
 * Serves a recording.
 *
 * @example
 *   const replay = createReplay(loadRecording('fixtures/simulator-recording.json'), { apiKey: 'demo-key' });
 *   const response = await replay.transport(new Request('http://replay.invalid/v1/account', { headers: { 'API-KEY': 'demo-key' } }), caseName, file);
 */
export function createReplay(
  recording: Recording,
  options: { apiKey: string; onMiss?: (message: string) => void },
): Replay {
  const roles = new Map(recording.apiKeys.map((k) => [k.alias, k.role]));
  const hasForeign = recording.apiKeys.some((k) => k.role === 'foreign');
  // Foreign keys (made up by the suite, never issued) all stand for "a key the target does not know".
  const keyClass = (alias: string | undefined): string | undefined =>
    alias !== undefined && roles.get(alias) === 'foreign' ? 'foreign' : alias;
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

  // Each request's recorded answers, in order: of every case, and of the case that sent it
  // first; those of other cases apart only once there are any (a live recording has one case).
  const bySignature = new Map<string, Answers>();
  const index = createMissIndex();
  for (const interaction of recording.interactions) {
    // A 429 the recording run waited out and sent again: the replay serves what came after.
    if (interaction.retried) continue;
    const sig = signature(interaction.request);
    const entry = bySignature.get(sig);
    if (!entry) {
      const items = [interaction];
      bySignature.set(sig, { all: { items, next: 0 }, firstCase: interaction.case, own: { items, next: 0 } });
      // Each distinct request once: a request polled a thousand times is one candidate.
      index.add(interaction);
      continue;
    }
    if (interaction.case !== entry.firstCase) {
      // From here on the first case's answers and all answers differ: they part.
      if (entry.own.items === entry.all.items) entry.own = { items: [...entry.all.items], next: 0 };
      entry.others ??= new Map();
      let cursor = entry.others.get(interaction.case);
      if (!cursor) entry.others.set(interaction.case, (cursor = { items: [], next: 0 }));
      cursor.items.push(interaction);
    } else if (entry.own.items !== entry.all.items) entry.own.items.push(interaction);
    entry.all.items.push(interaction);
  }
  let lastMissComparisons = 0;
  const misses = new Map<string, string[]>();
  const advice = missAdvice(recording);

  /** The alias a replayed request's key stands for. */
  const aliasOf = (key: string | null): string | undefined => {
    if (key === null) return undefined;
    if (roles.has(key)) return key;
    if (key === options.apiKey) return MAIN_KEY_ALIAS;
    return hasForeign ? recording.apiKeys.find((k) => k.role === 'foreign')!.alias : MAIN_KEY_ALIAS;
  };

  const health = (): Response =>
    recording.target.simulator
      ? Response.json({
          ok: true,
          simulator: 'energy-rental-kit',
          version: 'replay',
          clock: recording.target.clock ?? 'manual',
          now: 0,
          timing: recording.target.timing ?? 'realistic',
          capabilities: recording.target.capabilities,
        })
      : new Response('Not Found', { status: 404 });

  return {
    info: {
      kind: 'replay',
      baseUrl: 'http://replay.invalid',
      simulator: recording.target.simulator,
      capabilities: recording.target.capabilities,
      ...(recording.target.clock ? { clock: recording.target.clock } : {}),
      ...(recording.target.timing ? { timing: recording.target.timing } : {}),
      ...(recording.target.variant ? { variant: recording.target.variant } : {}),
    },
    get lastMissComparisons() {
      return lastMissComparisons;
    },
    takeMisses(caseName) {
      const found = misses.get(caseName) ?? [];
      misses.delete(caseName);
      return found;
    },
    async transport(request, caseName) {
      const url = new URL(request.url);
      if (request.method === 'GET' && url.pathname === '/_sim/health') return health();
      const wanted = await describeIncoming(request, aliasOf(request.headers.get('api-key')));
      const sig = signature(wanted);
      const entry = bySignature.get(sig);
      const cursor = !entry
        ? undefined
        : caseName === entry.firstCase
          ? entry.own
          : (entry.others?.get(caseName) ?? entry.all);
      if (!cursor) {
        const candidates = index.candidates(wanted);
        lastMissComparisons = candidates.length;
        const msg = missMessage(wanted, candidates, caseName, recording.interactions.length === 0, advice);
        misses.set(caseName, [...(misses.get(caseName) ?? []), msg]);
        options.onMiss?.(msg);
        return Response.json(
          { code: REPLAY_MISS_CODE, msg, time: String(Math.floor(Date.now() / 1000)), data: null },
          { status: REPLAY_MISS_STATUS },
        );
      }
      const interaction = cursor.items[Math.min(cursor.next, cursor.items.length - 1)]!;
      cursor.next++;
      return respond(interaction);
    },
  };
}

async function describeIncoming(request: Request, alias: string | undefined): Promise<RecordedRequest> {
  const url = new URL(request.url);
  const out: RecordedRequest = {
    method: request.method.toUpperCase(),
    path: url.pathname,
    query: paramsOf(url.searchParams),
  };
  const text = request.body === null ? '' : await request.text();
  if (text !== '') {
    if ((request.headers.get('content-type') ?? '').includes('application/x-www-form-urlencoded'))
      out.form = paramsOf(new URLSearchParams(text));
    else {
      try {
        out.json = JSON.parse(text);
      } catch {
        out.text = text;
      }
    }
  }
  if (alias !== undefined) out.apiKeyAlias = alias;
  return out;
}

function respond(interaction: Interaction): Response {
  const recorded = interaction.response;
  if (!recorded) throw new TypeError(`fetch failed (as recorded: ${interaction.error ?? 'no response'})`);
  const headers = new Headers(recorded.headers);
  if (recorded.body !== undefined) {
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    return new Response(JSON.stringify(recorded.body), { status: recorded.status, headers });
  }
  return new Response(recorded.text ?? '', { status: recorded.status, headers });
}

/** The differences between two requests, field by field, for a message. */
function differences(a: RecordedRequest, b: RecordedRequest): string[] {
  const out: string[] = [];
  if (a.method !== b.method) out.push(`method ${a.method} here, ${b.method} recorded`);
  if (withoutApiPrefix(a.path) !== withoutApiPrefix(b.path))
    out.push(`path ${a.path} here, ${b.path} recorded`);
  const compare = (
    where: string,
    x: Record<string, unknown> | undefined,
    y: Record<string, unknown> | undefined,
  ): void => {
    const xs = x ?? {};
    const ys = y ?? {};
    for (const key of [...new Set([...Object.keys(xs), ...Object.keys(ys)])].sort()) {
      if (canonical(xs[key]) === canonical(ys[key])) continue;
      const show = (v: unknown): string => (v === undefined ? 'absent' : JSON.stringify(v));
      out.push(`${where} ${key}: ${show(xs[key])} here, ${show(ys[key])} recorded`);
    }
  };
  compare('query', a.query, b.query);
  compare('form', a.form, b.form);
  const objectOrWrap = (v: unknown): Record<string, unknown> | undefined =>
    v === undefined
      ? undefined
      : typeof v === 'object' && v !== null && !Array.isArray(v)
        ? (v as Record<string, unknown>)
        : { '(body)': v };
  compare('json', objectOrWrap(a.json), objectOrWrap(b.json));
  if ((a.text ?? '') !== (b.text ?? '')) out.push('the text body differs');
  if (a.apiKeyAlias !== b.apiKeyAlias)
    out.push(`API key ${a.apiKeyAlias ?? 'none'} here, ${b.apiKeyAlias ?? 'none'} recorded`);
  return out;
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
  add(interaction: Interaction): void;
  /** The recorded requests a miss is compared with: of its operation, sharing its values. */
  candidates(wanted: RecordedRequest): Interaction[];
}

/**
 * The recorded requests by operation, and within it by parameter value, each list kept
 * short: a miss compares with those of its operation that share a value with it, and
 * with its operation's first few, never with the whole recording.
 */
function createMissIndex(): MissIndex {
  // Requests are held by their position among the distinct ones, so the lists are of numbers,
  // a list of one is its number, and candidates come out in recorded order: of two equally
  // close requests the first recorded is named.
  const distinct: Interaction[] = [];
  const operations = new Map<string, { first: number[]; byPair: Map<string, number | number[]> }>();
  const operationMemo = new Map<string, string>();
  const operation = (r: RecordedRequest): string => {
    const path = withoutApiPrefix(r.path);
    const key = `${r.method} ${path}`;
    let found = operationMemo.get(key);
    if (found === undefined) operationMemo.set(key, (found = operationOf(r.method, path)));
    return found;
  };
  // One request of each operation, for a miss whose operation was never recorded.
  const perOperation: Interaction[] = [];
  return {
    add(interaction) {
      const position = distinct.push(interaction) - 1;
      const op = operation(interaction.request);
      let entry = operations.get(op);
      if (!entry) {
        operations.set(op, (entry = { first: [], byPair: new Map() }));
        if (perOperation.length < CANDIDATES_PER_OPERATION * 8) perOperation.push(interaction);
      }
      if (entry.first.length < CANDIDATES_PER_OPERATION) entry.first.push(position);
      for (const pair of pairsOf(interaction.request)) {
        const list = entry.byPair.get(pair);
        if (list === undefined) entry.byPair.set(pair, position);
        else if (typeof list === 'number') entry.byPair.set(pair, [list, position]);
        else if (list.length < CANDIDATES_PER_VALUE) list.push(position);
      }
    },
    candidates(wanted) {
      const entry = operations.get(operation(wanted));
      if (!entry) return perOperation;
      const found = new Set(entry.first);
      for (const pair of pairsOf(wanted)) {
        const list = entry.byPair.get(pair) ?? [];
        for (const position of typeof list === 'number' ? [list] : list) found.add(position);
      }
      return [...found].sort((a, b) => a - b).map((position) => distinct[position]!);
    },
  };
}

/**
 * What to do about a request the recording never saw, by what the recording holds: the
 * contract suite run against a simulator, the suite run against a live service, or the
 * live traffic a proxy forwarded (`serve --upstream URL --record FILE`).
 *
 * @example
 *   missAdvice(liveRecording); // "It holds the live traffic a proxy forwarded to https://…; …"
 */
export function missAdvice(recording: Pick<Recording, 'target' | 'interactions'>): string {
  const target = recording.target;
  const live = recording.interactions.some((i) => i.case === LIVE_CASE);
  if (live)
    return (
      `It holds the live traffic a proxy forwarded to ${target.baseUrl}, and this request was never sent through it: ` +
      `send it once through 'npx energy-rental-kit serve --upstream ${target.baseUrl} --record FILE --record-append' to add it.`
    );
  if (target.simulator)
    return (
      `It is the contract suite's recording of a simulator: if the suite changed since, record again with 'npx energy-rental-kit record --out FILE'; ` +
      `to answer any request, run the simulator itself ('npx energy-rental-kit serve', without --replay).`
    );
  return (
    `It is the contract suite's recording of ${target.baseUrl}, which holds the suite's requests only: if the suite changed since, record again with ` +
    `'npx energy-rental-kit record --base-url ${target.baseUrl} --api-key KEY --out FILE'; to replay other traffic, record it through a proxy ` +
    `('npx energy-rental-kit serve --upstream URL --record FILE').`
  );
}

function missMessage(
  wanted: RecordedRequest,
  interactions: Interaction[],
  caseName: string,
  empty: boolean,
  advice: string,
): string {
  let best: { interaction: Interaction; score: number; diffs: string[] } | undefined;
  for (const interaction of interactions) {
    const diffs = differences(wanted, interaction.request);
    const r = interaction.request;
    const score =
      (r.method !== wanted.method ? 100 : 0) +
      (r.path !== wanted.path ? 50 : 0) +
      diffs.length * 2 +
      (interaction.case === caseName ? 0 : 1);
    if (!best || score < best.score) best = { interaction, score, diffs };
  }
  const head = `No recorded interaction matches ${describeRequest(wanted)}`;
  if (!best || empty) return `${head}; the recording is empty. ${advice}`;
  return (
    `${head}; the closest recorded request is ${describeRequest(best.interaction.request)} (case "${best.interaction.case}"), ` +
    `which differs in ${best.diffs.join('; ') || 'nothing but its case'}. ${advice}`
  );
}
