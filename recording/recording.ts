/** Recordings: what `record` saves, a replay serves and `drift` compares. No key is stored, only aliases. */
import { DEFAULT_FILE_LIMIT, type FileLimit } from '../src/bounded-file.ts';
import type { components } from '../src/generated/control.ts';
import { RECORDING_FORMAT, RECORDING_V1_FORMAT, TIMED_STATUSES } from '../src/generated/lists.ts';
import { isSecretName } from '../mock/http/journal-redaction.ts';
import { createValidators, loadSpec, type ValidateFunction } from '../src/spec/loader.ts';
import { describeSchemaProblems } from '../src/spec/schema-problem.ts';
import { readRecordingFile } from './recording-lines.ts';

type C = components['schemas'];

/** What a simulator says it can do at /_sim/health (spec/control.yaml's Capability). */
export type Capability = C['Capability'];
/** The target a contract run (or a proxy) talked to, as a recording keeps it. */
export type TargetInfo = C['RecordingTarget'];
/** A recording in memory, of either format; `format` is the one its file had. */
export type Recording = Omit<C['Recording'], 'format'> & {
  format: typeof RECORDING_FORMAT | typeof RECORDING_V1_FORMAT;
};
export type RecordingSettings = C['RecordingSettings'];
export type RecordedApiKey = C['RecordedApiKey'];
export type Interaction = C['RecordedInteraction'];
export type RecordedRequest = C['RecordedRequest'];
export type RecordedResponse = C['RecordedResponse'];
export type Timing = C['RecordingTiming'];
export type TimedStatus = keyof C['TimedSeconds'];

export { RECORDING_FORMAT, RECORDING_V1_FORMAT, TIMED_STATUSES };

/** Milliseconds since `started` (performance.now()), to the microsecond. */
export function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 1000) / 1000;
}

/** The case label of exchanges made while connecting, before any case runs. */
export const CONNECT_CASE = '(connect)';

export const MAIN_KEY_ALIAS = 'key-1';

export class RecordingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RecordingError';
  }
}

/** The error of a file that is no recording: what is off, and how to make one. */
export const notARecording = (name: string, what: string): RecordingError =>
  new RecordingError(
    `${name} is not an energy-rental-kit recording: ${what}. Make one with 'energy-rental-kit record --out FILE'.`,
  );

const cache = new Map<string, Recording>();

/**
 * Reads and checks a recording file of either format, cached per path and limit.
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
  const recording = cache.get(key) ?? readRecordingFile(file, limit, onWarning).recording;
  cache.set(key, recording);
  return recording;
}

/** What a recording keeps in place of a key: an alias, or the redaction mark. */
const KEPT_INSTEAD_OF_A_KEY = /^(key-\d+|key-local-\d+-(issued|foreign)|key-overflow|\[redacted\])$/;

/**
 * The JSON paths of an interaction, prefixed by `at`, where a secret-named field holds anything but an alias.
 *
 * @example
 *   keyLookingPaths(interaction, 'line 5 '); // ['line 5 /request/query/api_key']
 */
export function keyLookingPaths(interaction: Interaction, at: string): string[] {
  const found: string[] = [];
  const walk = (value: unknown, names: string[]): void => {
    if (typeof value !== 'object' || value === null || names.length > 64) return;
    for (const [name, item] of Object.entries(value)) {
      const path = [...names, name];
      if (!isSecretName(name) || (typeof item === 'string' && KEPT_INSTEAD_OF_A_KEY.test(item)))
        walk(item, path);
      else if (item !== null && item !== '' && typeof item !== 'boolean')
        found.push(at + path.map((n) => `/${n.replace(/~/g, '~0').replace(/\//g, '~1')}`).join(''));
    }
  };
  for (const where of ['query', 'form', 'json'] as const)
    walk(interaction.request[where], ['request', where]);
  walk(interaction.response?.body, ['response', 'body']);
  return found;
}

let validateRecording: ValidateFunction | undefined;

/**
 * Checks a parsed recording@1 document, naming the first thing that is off; `settings`, `apiKeys` default.
 *
 * @example
 *   parseRecording(JSON.parse(text), 'recordings/upstream.json').interactions.length;
 */
export function parseRecording(value: unknown, name = 'the recording'): Recording {
  const fail = (what: string): never => {
    throw notARecording(name, what);
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return fail('it is not a JSON object');
  const r = value as Partial<Recording>;
  if (r.format !== RECORDING_V1_FORMAT)
    return fail(
      `'format' is ${JSON.stringify(r.format)}, expected '${RECORDING_V1_FORMAT}' (or a first line of format '${RECORDING_FORMAT}')`,
    );
  const recording = {
    ...r,
    settings: r.settings ?? { allowSpend: false, maxOrders: 1 },
    apiKeys: r.apiKeys ?? [{ alias: MAIN_KEY_ALIAS, role: 'main' }],
  };
  validateRecording ??= createValidators(loadSpec('control')).schema('Recording');
  if (!validateRecording(recording))
    return fail(describeSchemaProblems(validateRecording.errors ?? [], recording));
  return recording as Recording;
}

interface Route {
  method: string;
  pattern: RegExp;
  operationId: string;
}

let routes: Route[] | undefined;

/**
 * The operationId of either document a request belongs to, else 'METHOD /path'; an '/api' prefix is ignored.
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
  const text = (params: RecordedRequest['query']): string =>
    new URLSearchParams(Object.entries(params).flatMap(([k, v]) => [v].flat().map((x) => [k, x]))).toString();
  const query = text(request.query);
  const parts = [`${request.method} ${request.path}${query ? `?${query}` : ''}`];
  if (request.form) parts.push(`form ${text(request.form)}`);
  if (request.json !== undefined) parts.push(`json ${JSON.stringify(request.json)}`);
  if (request.text !== undefined) parts.push(`body ${JSON.stringify(request.text.slice(0, 80))}`);
  parts.push(request.apiKeyAlias ? `API key ${request.apiKeyAlias}` : 'no API key');
  return parts.join(', ');
}
