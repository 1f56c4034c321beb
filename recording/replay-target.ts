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
 */
import { paramsOf, type CaseTransport } from './recorder.ts';
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
  /** The recorded target, as the contract suite should see it. */
  info: Pick<TargetInfo, 'simulator' | 'capabilities' | 'clock' | 'timing' | 'variant' | 'baseUrl' | 'kind'>;
  transport: CaseTransport;
  /** What matched nothing so far in this case (emptied by the call). */
  takeMisses(caseName: string): string[];
}

interface Cursor {
  items: Interaction[];
  next: number;
}

/** JSON with object keys sorted, so equal content gives equal text. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) =>
    typeof v === 'object' && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
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
      r.path,
      r.query,
      r.form ?? null,
      r.json ?? null,
      r.text ?? null,
      keyClass(r.apiKeyAlias) ?? null,
    ]);

  const byCase = new Map<string, Cursor>();
  const bySignature = new Map<string, Cursor>();
  for (const interaction of recording.interactions) {
    const sig = signature(interaction.request);
    for (const [map, key] of [
      [byCase, `${interaction.case}\n${sig}`],
      [bySignature, sig],
    ] as const) {
      let cursor = map.get(key);
      if (!cursor) map.set(key, (cursor = { items: [], next: 0 }));
      cursor.items.push(interaction);
    }
  }
  const misses = new Map<string, string[]>();

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
      const cursor = byCase.get(`${caseName}\n${sig}`) ?? bySignature.get(sig);
      if (!cursor) {
        const msg = missMessage(wanted, recording.interactions, caseName);
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
  if (a.path !== b.path) out.push(`path ${a.path} here, ${b.path} recorded`);
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

function missMessage(wanted: RecordedRequest, interactions: Interaction[], caseName: string): string {
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
  if (!best) return `${head}; the recording is empty.`;
  return (
    `${head}; the closest recorded request is ${describeRequest(best.interaction.request)} (case "${best.interaction.case}"), ` +
    `which differs in ${best.diffs.join('; ') || 'nothing but its case'}. ` +
    `If the contract suite changed since it was recorded, record again with 'energy-rental-kit record --out FILE'.`
  );
}
