/**
 * A fetch from a recording: a request matched by content (the same case's first) gets its responses in
 * recorded order, the last repeated; a miss is HTTP 501, code 59900, naming the closest recorded request.
 */
import { withoutApiPrefix } from '../mock/http/api-operations.ts';
import { redactBody, redactWith, replaceKeys } from '../mock/http/journal-redaction.ts';
import type { FileLimit } from '../src/bounded-file.ts';
import { canonical, createReplayIndex, type ReplayIndex } from './replay-index.ts';
import { LIVE_CASE } from './live-recording.ts';
import { readRecordingFile } from './recording-lines.ts';
import { recordedRequest } from './exchange-scrubber.ts';
import type { CaseTransport } from './recorder.ts';
import {
  describeRequest,
  MAIN_KEY_ALIAS,
  type Interaction,
  type RecordedRequest,
  type Recording,
  type TargetInfo,
} from './recording.ts';

export const REPLAY_MISS_CODE = 59900;
export const REPLAY_MISS_STATUS = 501;

export interface Replay {
  info: Pick<TargetInfo, 'simulator' | 'capabilities' | 'clock' | 'timing' | 'variant' | 'baseUrl' | 'kind'>;
  transport: CaseTransport;
  /** What matched nothing so far in this case (emptied by the call). */
  takeMisses(caseName: string): string[];
  /** How many recorded requests the last miss was compared with (bounded by the index). */
  readonly lastMissComparisons: number;
}

type ReplayOptions = { apiKey: string; onMiss?: (message: string) => void };
type Served = Pick<Recording, 'target' | 'apiKeys'> & {
  live: boolean;
  at(position: number): Interaction;
};

/**
 * Serves a recording.
 *
 * @example
 *   const replay = createReplay(loadRecording('fixtures/simulator-recording.json'), { apiKey: 'demo-key' });
 *   const response = await replay.transport(new Request('http://replay.invalid/v1/account', { headers: { 'API-KEY': 'demo-key' } }), caseName, file);
 */
export function createReplay(recording: Recording, options: ReplayOptions): Replay {
  const index = createReplayIndex(recording.apiKeys);
  recording.interactions.forEach((interaction, position) => index.add(interaction, position));
  const live = recording.interactions.some((i) => i.case === LIVE_CASE);
  const at = (position: number): Interaction => recording.interactions[position]!;
  return serveReplay({ ...recording, live, at }, index, options);
}

/**
 * Reads a recording file and serves it (`serve --replay`); recording@2 lines are parsed again when served.
 *
 * @example
 *   const replay = loadReplay('traffic.jsonl', fileLimit(256), { apiKey: '', onWarning: log.warn });
 */
export function loadReplay(
  file: string,
  limit: FileLimit,
  options: ReplayOptions & { onWarning: (line: string) => void },
): Replay {
  const lines: string[] = [];
  let index: ReplayIndex | undefined;
  let live = false;
  const { recording } = readRecordingFile(file, limit, options.onWarning, {
    onHeader: (header) => (index = createReplayIndex(header.apiKeys)),
    onInteraction: (interaction, text) => {
      index!.add(interaction, lines.push(text) - 1);
      live ||= interaction.case === LIVE_CASE;
    },
  });
  if (!index) return createReplay(recording, options);
  const at = (position: number): Interaction => JSON.parse(lines[position]!) as Interaction;
  return serveReplay({ ...recording, live, at }, index, options);
}

/** The transport of a replay over its recording's interactions, by position, and index. */
function serveReplay(data: Served, index: ReplayIndex, options: ReplayOptions): Replay {
  const { target, apiKeys } = data;
  const roles = new Map(apiKeys.map((k) => [k.alias, k.role]));
  const foreign = apiKeys.find((k) => k.role === 'foreign')?.alias ?? MAIN_KEY_ALIAS;
  let lastMissComparisons = 0;
  const misses = new Map<string, string[]>();
  const advice = missAdvice(target, data.live);

  /** The alias a replayed request's key stands for. */
  const aliasOf = (key: string | null): string | undefined => {
    if (key === null) return undefined;
    if (roles.has(key)) return key;
    return key === options.apiKey ? MAIN_KEY_ALIAS : foreign;
  };

  /** A replayed request's value as the recorder keeps one, so it can match and no miss repeats a key. */
  const keptAsRecorded = (value: unknown): unknown =>
    redactWith(value, {
      text: (text) => (options.apiKey ? replaceKeys(text, [[options.apiKey, MAIN_KEY_ALIAS]]) : text),
      secret: (held) => (typeof held === 'string' ? aliasOf(held) : '[redacted]'),
    }) ?? '[redacted]';

  const health = (): Response =>
    target.simulator
      ? Response.json({
          ok: true,
          simulator: 'energy-rental-kit',
          version: 'replay',
          clock: target.clock ?? 'manual',
          now: 0,
          timing: target.timing ?? 'realistic',
          capabilities: target.capabilities,
        })
      : new Response('Not Found', { status: 404 });

  return {
    info: { ...target, kind: 'replay', baseUrl: 'http://replay.invalid' },
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
      const text = request.body === null ? '' : await request.text();
      // Described as the recorder describes one; a secret-named pair in a text is never shown.
      const wanted = recordedRequest(request, url.pathname, text, keptAsRecorded, (t) =>
        redactBody(keptAsRecorded(t) as string),
      );
      const alias = aliasOf(request.headers.get('api-key'));
      if (alias !== undefined) wanted.apiKeyAlias = alias;
      const entry = index.responses(wanted);
      if (!entry) {
        const candidates = index.candidates(wanted).map((position) => data.at(position));
        lastMissComparisons = candidates.length;
        const msg = missMessage(wanted, candidates, caseName, advice);
        misses.set(caseName, [...(misses.get(caseName) ?? []), msg]);
        options.onMiss?.(msg);
        return Response.json(
          { code: REPLAY_MISS_CODE, msg, time: String(Math.floor(Date.now() / 1000)), data: null },
          { status: REPLAY_MISS_STATUS },
        );
      }
      const cursor = entry.byCase.get(caseName) ?? entry.all;
      const position = cursor.items[Math.min(cursor.next, cursor.items.length - 1)]!;
      cursor.next++;
      const { response: recorded, error } = data.at(position);
      if (!recorded) throw new TypeError(`fetch failed (as recorded: ${error ?? 'no response'})`);
      const headers = new Headers(recorded.headers);
      if (recorded.body === undefined)
        return new Response(recorded.text ?? '', { status: recorded.status, headers });
      if (!headers.has('content-type')) headers.set('content-type', 'application/json');
      return new Response(JSON.stringify(recorded.body), { status: recorded.status, headers });
    },
  };
}

/** The differences between two requests, field by field, for a message. */
function differences(a: RecordedRequest, b: RecordedRequest): string[] {
  const out: string[] = [];
  if (a.method !== b.method) out.push(`method ${a.method} here, ${b.method} recorded`);
  if (withoutApiPrefix(a.path) !== withoutApiPrefix(b.path))
    out.push(`path ${a.path} here, ${b.path} recorded`);
  const show = (v: unknown): string => (v === undefined ? 'absent' : JSON.stringify(v));
  for (const where of ['query', 'form', 'json'] as const) {
    const [xs, ys] = [fieldsOf(a[where]), fieldsOf(b[where])];
    for (const key of [...new Set([...Object.keys(xs), ...Object.keys(ys)])].sort())
      if (canonical(xs[key]) !== canonical(ys[key]))
        out.push(`${where} ${key}: ${show(xs[key])} here, ${show(ys[key])} recorded`);
  }
  if ((a.text ?? '') !== (b.text ?? '')) out.push('the text body differs');
  if (a.apiKeyAlias !== b.apiKeyAlias)
    out.push(`API key ${a.apiKeyAlias ?? 'none'} here, ${b.apiKeyAlias ?? 'none'} recorded`);
  return out;
}

/** The fields of a query, form or JSON body to compare; a JSON body that is no object is one field. */
function fieldsOf(value: unknown): Record<string, unknown> {
  if (value === undefined) return {};
  if (typeof value === 'object' && value !== null && !Array.isArray(value))
    return value as Record<string, unknown>;
  return { '(body)': value };
}

/**
 * What to do about a request the recording of `target` never saw, `live` when it holds a proxy's traffic.
 *
 * @example
 *   missAdvice(recording.target, true); // "It holds the live traffic a proxy forwarded to https://…; …"
 */
export function missAdvice(target: TargetInfo, live: boolean): string {
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
  if (!best) return `${head}; the recording is empty. ${advice}`;
  return (
    `${head}; the closest recorded request is ${describeRequest(best.interaction.request)} (case "${best.interaction.case}"), ` +
    `which differs in ${best.diffs.join('; ') || 'nothing but its case'}. ${advice}`
  );
}
