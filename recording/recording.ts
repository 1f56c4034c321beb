/**
 * The recording format: what `energy-rental-kit record` saves and what a replay serves
 * and `drift` compares. Every exchange of a contract run at the fetch level, control
 * plane included, with API keys replaced by aliases, plus the lifecycle timing seen.
 *
 * No API key is ever stored: the run's key is 'key-1' and every other key gets the
 * next alias ('key-2', 'key-3', …) in order of first appearance, in request headers and
 * in response bodies alike. No Authorization header is stored either.
 */
import {
  BoundedFileError,
  DEFAULT_FILE_LIMIT,
  readBoundedFile,
  type FileLimit,
} from '../src/bounded-file.ts';
import type { components } from '../src/generated/control.ts';
import { isSecretName } from '../mock/http/journal-redaction.ts';
import { loadSpec } from '../src/spec/loader.ts';

/** What a simulator says it can do at /_sim/health (spec/control.yaml's Capability). */
export type Capability = components['schemas']['Capability'];

/** The target a contract run (or a proxy) talked to, as a recording keeps it. */
export interface TargetInfo {
  kind: 'in-process' | 'url' | 'replay';
  baseUrl: string;
  simulator: boolean;
  capabilities: Capability[];
  clock?: string;
  timing?: string;
  variant?: string;
  /** Replay only: the recording served. */
  recording?: string;
  /** Replay only: what was recorded, e.g. 'the in-process simulator' or its URL. */
  recordedFrom?: string;
}

export const RECORDING_FORMAT = 'energy-rental-kit/recording@1';

export interface Recording {
  format: typeof RECORDING_FORMAT;
  /** When the recording was assembled, ISO 8601. */
  recordedAt: string;
  /** Seeds the values the suite made up; a replay reuses it to send the same requests. */
  runId: string;
  /** The target recorded: in-process simulator, simulator at a URL, or the real service. */
  target: TargetInfo;
  /** The spending guard of the recording run; a replay runs under the same one. */
  settings: RecordingSettings;
  /** Every alias in use, with where its key came from (never the key). */
  apiKeys: RecordedApiKey[];
  interactions: Interaction[];
  timing: Timing;
}

export interface RecordingSettings {
  allowSpend: boolean;
  maxOrders: number;
  pledgeAddress?: string;
}

export interface RecordedApiKey {
  alias: string;
  /** 'main': the run's key; 'issued': returned by the target (createAccount); 'foreign': sent but never issued (e.g. a made-up key). */
  role: 'main' | 'issued' | 'foreign';
}

export interface Interaction {
  /** The contract case that sent it (vitest's full name, file first), or '(connect)'. */
  case: string;
  /** The test file of the case. */
  file: string;
  /** operationId of spec/openapi.yaml or spec/control.yaml, else 'METHOD /path'. */
  operation: string;
  request: RecordedRequest;
  /** Absent when no response arrived; `error` says why. */
  response?: RecordedResponse;
  error?: string;
  /** When the request was sent, ISO 8601 (wall clock). */
  at: string;
  durationMs: number;
}

export interface RecordedRequest {
  method: string;
  /** Relative to the target's base URL, e.g. '/v1/tron/price'. */
  path: string;
  /** Query parameters, keys sorted; a repeated parameter keeps all its values. */
  query: Record<string, string | string[]>;
  /** An application/x-www-form-urlencoded body. */
  form?: Record<string, string | string[]>;
  /** A JSON body. */
  json?: unknown;
  /** Any other body, as text. */
  text?: string;
  /** The alias of the API-KEY header; absent when none was sent. */
  apiKeyAlias?: string;
}

export interface RecordedResponse {
  status: number;
  /** content-type and retry-after only. */
  headers: Record<string, string>;
  /** The parsed JSON body; absent when the body is not JSON (then `text`). */
  body?: unknown;
  text?: string;
}

export type TimedStatus = 'PROCESSING' | 'COMPLETED' | 'FAILED' | 'REFUNDED';
export const TIMED_STATUSES: readonly TimedStatus[] = ['PROCESSING', 'COMPLETED', 'FAILED', 'REFUNDED'];

/**
 * Lifecycle timing from server time: an order's `createdAt` against the envelope `time`
 * (Unix seconds) of the first history response that showed each status. Polling makes
 * these upper bounds, to the polling interval.
 */
export interface Timing {
  orders: Array<{ orderId: string; file: string; secondsToStatus: Partial<Record<TimedStatus, number>> }>;
  summary: { orders: number; medianSecondsTo: Partial<Record<TimedStatus, number>> };
  /**
   * The resolution of the durations, seconds: 1 when the server's envelope `time` had
   * whole seconds (both ends are then taken in whole seconds, so no duration can come
   * out negative), 0.001 when it had milliseconds. Absent in recordings made before it
   * was stated (they read as 1).
   */
  resolutionSeconds?: number;
}

/** The case label of exchanges made while connecting, before any case runs. */
export const CONNECT_CASE = '(connect)';

/** The alias of the run's own API key. */
export const MAIN_KEY_ALIAS = 'key-1';

/** A recording that cannot be read, with what to do about it. */
export class RecordingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RecordingError';
  }
}

const cache = new Map<string, Recording>();

/**
 * Reads and checks a recording file (cached per path and limit: every contract file of a
 * replay reads the same one). Only a regular file of at most `limit` is read.
 *
 * @example
 *   loadRecording('fixtures/simulator-recording.json').interactions.length; // > 0
 */
export function loadRecording(
  file: string,
  limit: FileLimit = DEFAULT_FILE_LIMIT,
  onWarning: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Recording {
  const key = `${limit.maxBytes} ${file}`;
  const cached = cache.get(key);
  if (cached) return cached;
  let text: string;
  try {
    text = readBoundedFile(file, limit, 'pass the path of a recording file');
  } catch (error) {
    if (!(error instanceof BoundedFileError)) throw error;
    if (error.rule === 'not-regular' || error.rule === 'too-large') throw new RecordingError(error.message);
    const what = error.rule === 'missing' ? `${error.code}, there is no such file` : error.code;
    throw new RecordingError(
      `cannot read the recording '${file}': ${what}. Make one with 'energy-rental-kit record --out ${file}'.`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new RecordingError(
      `'${file}' is not JSON (${(error as Error).message}); a recording is the JSON file 'energy-rental-kit record --out FILE' writes.`,
    );
  }
  const recording = parseRecording(value, file);
  const keyLooking = keyLookingPaths(recording);
  if (keyLooking.length > 0)
    onWarning(
      `warning: '${file}' holds what looks like an API key in clear at ${keyLooking.slice(0, 5).join(', ')}${keyLooking.length > 5 ? ` and ${keyLooking.length - 5} more` : ''}; a recording keeps aliases (key-1, key-2, …): do not share or commit it until they are removed.`,
    );
  cache.set(key, recording);
  return recording;
}

/** What a recording keeps in place of a key: an alias, or the redaction mark. */
const KEPT_INSTEAD_OF_A_KEY = /^(key-\d+|key-local-\d+-(issued|foreign)|key-overflow|\[redacted\])$/;

/**
 * The JSON paths of a recording where a secret-named field or parameter (apiKey, api_key,
 * token, …) holds anything but an alias: a key a recorder older than this one, or a hand,
 * left in clear.
 *
 * @example
 *   keyLookingPaths(recording); // ['/interactions/3/request/query/api_key']
 */
export function keyLookingPaths(recording: Recording): string[] {
  const found: string[] = [];
  const walk = (value: unknown, at: string, depth: number): void => {
    if (typeof value !== 'object' || value === null || depth > 64) return;
    for (const [name, item] of Object.entries(value)) {
      const path = `${at}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      if (isSecretName(name) && !(typeof item === 'string' && KEPT_INSTEAD_OF_A_KEY.test(item))) {
        if (item !== null && item !== '' && typeof item !== 'boolean') found.push(path);
      } else walk(item, path, depth + 1);
    }
  };
  recording.interactions.forEach((interaction, i) => {
    const at = `/interactions/${i}`;
    walk(interaction.request.query, `${at}/request/query`, 0);
    walk(interaction.request.form, `${at}/request/form`, 0);
    walk(interaction.request.json, `${at}/request/json`, 0);
    walk(interaction.response?.body, `${at}/response/body`, 0);
  });
  return found;
}

/** Checks the shape of a parsed recording, naming the first thing that is off. */
export function parseRecording(value: unknown, name = 'the recording'): Recording {
  const fail = (what: string): never => {
    throw new RecordingError(
      `${name} is not an energy-rental-kit recording: ${what}. Make one with 'energy-rental-kit record --out FILE'.`,
    );
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return fail('it is not a JSON object');
  const r = value as Partial<Recording>;
  if (r.format !== RECORDING_FORMAT)
    return fail(`'format' is ${JSON.stringify(r.format)}, expected '${RECORDING_FORMAT}'`);
  if (typeof r.runId !== 'string' || r.runId === '') fail("'runId' is missing");
  if (typeof r.target !== 'object' || r.target === null) fail("'target' is missing");
  if (!Array.isArray(r.interactions)) fail("'interactions' is not an array");
  if (typeof r.timing !== 'object' || r.timing === null) fail("'timing' is missing");
  r.interactions!.forEach((i, n) => {
    if (
      typeof i?.operation !== 'string' ||
      typeof i.request?.method !== 'string' ||
      typeof i.request.path !== 'string'
    ) {
      fail(`interaction ${n} lacks operation, request.method or request.path`);
    }
  });
  return {
    ...r,
    settings: r.settings ?? { allowSpend: false, maxOrders: 1 },
    apiKeys: r.apiKeys ?? [{ alias: MAIN_KEY_ALIAS, role: 'main' }],
  } as Recording;
}

interface Route {
  method: string;
  pattern: RegExp;
  operationId: string;
}

let routes: Route[] | undefined;

/**
 * The operation a request belongs to: an operationId of either document, else
 * 'METHOD /path'. The real service's '/api' prefix is not part of the path here.
 *
 * @example
 *   operationOf('GET', '/v1/tron/price'); // 'getPrice'
 *   operationOf('GET', '/_sim/orders/OR20250312175009BJ1QRQH7'); // 'getOrderTimeline'
 */
export function operationOf(method: string, path: string): string {
  routes ??= (['api', 'control'] as const).flatMap((name) =>
    loadSpec(name).operations.map((op) => ({
      method: op.method,
      pattern: new RegExp(
        `^(?:/api)?${op.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}/?$`,
      ),
      operationId: op.operationId,
    })),
  );
  const upper = method.toUpperCase();
  return routes.find((r) => r.method === upper && r.pattern.test(path))?.operationId ?? `${upper} ${path}`;
}

/** Tells whether an operation belongs to the API document (not the control plane). */
export function isApiOperation(operation: string): boolean {
  return loadSpec('api').operations.some((op) => op.operationId === operation);
}

/** `METHOD /path?query` of a recorded request, with its body and key alias, for messages. */
export function describeRequest(request: RecordedRequest): string {
  const query = new URLSearchParams(
    Object.entries(request.query).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x]) : [[k, v]])),
  ).toString();
  const parts = [`${request.method} ${request.path}${query ? `?${query}` : ''}`];
  if (request.form)
    parts.push(
      `form ${new URLSearchParams(Object.entries(request.form).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x]) : [[k, v]]))).toString()}`,
    );
  if (request.json !== undefined) parts.push(`json ${JSON.stringify(request.json)}`);
  if (request.text !== undefined) parts.push(`body ${JSON.stringify(request.text.slice(0, 80))}`);
  parts.push(request.apiKeyAlias ? `API key ${request.apiKeyAlias}` : 'no API key');
  return parts.join(', ');
}
