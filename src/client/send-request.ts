/** One HTTP exchange. Not openapi-fetch: that drops a non-JSON body's text, which errors need. */
import type { OperationId } from '../models.ts';
import {
  EnergyRentalError,
  type EnergyRentalErrorDetails,
  type EnergyRentalErrorKind,
} from './energy-rental-error.ts';
import type { Exchange } from './exchange.ts';
import { ROUTES, type DataOf, type FormOf, type QueryOf } from './routes.ts';

/** What every exchange of one client shares. */
export interface Transport {
  /** Without a trailing slash. */
  baseUrl: string;
  apiKey?: string;
  fetch: (request: Request) => Promise<Response> | Response;
  timeoutMs: number;
  onResponse?: (exchange: Exchange) => void;
}

type Outcome = { data: unknown; error?: undefined } | { error: EnergyRentalError };

/**
 * Sends one request and returns the envelope's `data`, or throws an {@link EnergyRentalError}; no retry.
 *
 * @example
 *   const quote = await sendRequest(transport, 'getPrice', { query: { rentalCount: 65000, period: '1h' } });
 */
export async function sendRequest<Id extends OperationId>(
  transport: Transport,
  operation: Id,
  parts: { query?: QueryOf<Id>; form?: FormOf<Id> } = {},
): Promise<DataOf<Id>> {
  const [method, path] = ROUTES[operation];
  const search = new URLSearchParams(stringEntries(parts.query ?? {})).toString();
  const url = `${transport.baseUrl}${path}${search ? `?${search}` : ''}`;
  const headers: Record<string, string> = { Accept: 'application/json' };
  // An empty key is omitted rather than sent empty, so that a missing key can be tested.
  if (transport.apiKey) headers['API-KEY'] = transport.apiKey;
  let requestBody: string | undefined;
  if (parts.form !== undefined) {
    requestBody = new URLSearchParams(stringEntries(parts.form)).toString();
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
  }

  const sent: Omit<Exchange, 'durationMs'> = {
    operationId: operation,
    method: method.toUpperCase(),
    url,
    requestHeaders: transport.apiKey ? { ...headers, 'API-KEY': '[redacted]' } : { ...headers },
    ...(requestBody === undefined ? {} : { requestBody }),
  };
  const started = performance.now();
  const report = (received: Partial<Exchange>) =>
    transport.onResponse?.({ ...sent, ...received, durationMs: performance.now() - started });

  let response: Response;
  let text: string;
  try {
    ({ response, text } = await fetchWithin(transport, operation, url, {
      method: sent.method,
      headers,
      body: requestBody,
    }));
  } catch (error) {
    report({ error: error as EnergyRentalError });
    throw error;
  }

  let body: unknown = text;
  let json = true;
  try {
    body = JSON.parse(text);
  } catch {
    json = false;
  }
  const outcome = interpret(operation, response, json, body, text);
  report({
    status: response.status,
    responseHeaders: Object.fromEntries(response.headers),
    body,
    ...(outcome.error ? { error: outcome.error } : {}),
  });
  if (outcome.error) throw outcome.error;
  return outcome.data as DataOf<Id>;
}

/**
 * One response and its whole body within the deadline, else an EnergyRentalError `timeout` or `network`.
 *
 * @example
 *   const { response, text } = await fetchWithin(transport, 'getPrice', url, { method: 'GET', headers });
 */
export async function fetchWithin(
  transport: Pick<Transport, 'fetch' | 'timeoutMs'>,
  operation: EnergyRentalErrorDetails['operation'],
  url: string,
  init: RequestInit,
): Promise<{ response: Response; text: string }> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), transport.timeoutMs);
  try {
    const request = new Request(url, { ...init, signal: controller.signal });
    const response = await untilAborted(
      Promise.resolve().then(() => transport.fetch(request)),
      controller.signal,
    );
    return { response, text: await untilAborted(boundedText(response), controller.signal) };
  } catch (cause) {
    const timedOut = controller.signal.aborted;
    throw new EnergyRentalError(
      timedOut
        ? `no complete response within ${transport.timeoutMs} ms (timeout)`
        : `network error: ${describeCause(cause)}`,
      { operation, kind: timedOut ? 'timeout' : 'network', cause },
    );
  } finally {
    clearTimeout(timer);
  }
}

/** The most of a response body the client reads: an envelope of this API is a few hundred bytes. */
export const MAX_RESPONSE_BYTES: number = 8 * 1024 * 1024;

/**
 * A body read whole, or refused (and its stream cancelled) once past MAX_RESPONSE_BYTES.
 *
 * @example
 *   const bytes = await boundedBytes(await fetch(url)); // throws past 8 MiB
 */
export async function boundedBytes(response: Response): Promise<Uint8Array<ArrayBuffer>> {
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  const reader = response.body?.getReader();
  for (;;) {
    const read = await reader?.read();
    if (!read || read.done) break;
    bytes += read.value.byteLength;
    if (bytes > MAX_RESPONSE_BYTES) {
      await reader!.cancel().catch(() => undefined);
      throw new Error(`the response body is larger than ${MAX_RESPONSE_BYTES} bytes`);
    }
    chunks.push(read.value);
  }
  const whole = new Uint8Array(bytes);
  let at = 0;
  for (const chunk of chunks) {
    whole.set(chunk, at);
    at += chunk.byteLength;
  }
  return whole;
}

const boundedText = async (response: Response): Promise<string> =>
  new TextDecoder().decode(await boundedBytes(response));

/** Classifies a complete response; `body` is the parsed JSON when `json`, else the raw `text`. */
function interpret(
  operation: OperationId,
  response: Response,
  json: boolean,
  body: unknown,
  text: string,
): Outcome {
  const envelope = json && isEnvelope(body) ? body : undefined;
  const { status } = response;
  const fail = (reason: string, kind: EnergyRentalErrorKind, retryAfter?: number): Outcome => {
    const details = { operation, status, body, code: envelope?.code, msg: envelope?.msg, kind, retryAfter };
    return { error: new EnergyRentalError(reason, details) };
  };
  if (!response.ok) {
    // Read on any status: 503 uses Retry-After as well as 429.
    const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
    const what = envelope ? describeEnvelope(envelope) : text ? `: ${preview(text)}` : ' with an empty body';
    const wait = retryAfter === undefined ? '' : ` (retry after ${retryAfter} s)`;
    return fail(`HTTP ${status}${what}${wait}`, 'http', retryAfter);
  }
  if (!json) return fail(`the response body is not JSON: ${preview(text)}`, 'invalid-body');
  if (!envelope)
    return fail(
      `the response body is not an envelope { code, msg, time, data }: ${preview(text)}`,
      'invalid-body',
    );
  if (!isSuccess(operation, envelope)) return fail(`API error${describeEnvelope(envelope)}`, 'api');
  if (typeof envelope.data !== 'object' || envelope.data === null)
    return fail(`the success envelope carries no data object: ${preview(text)}`, 'invalid-body');
  return { data: envelope.data };
}

interface LooseEnvelope {
  code: number;
  msg?: string;
  data?: unknown;
}

function isEnvelope(value: unknown): value is LooseEnvelope {
  // Parsed JSON: only an object has a `code`.
  const { code, msg } = (value ?? {}) as { code?: unknown; msg?: unknown };
  return typeof code === 'number' && ['string', 'undefined'].includes(typeof msg);
}

/** Whether an envelope reports success: `code` 0, or the account's success message with code 1. */
export function isSuccess(operation: string, envelope: { code?: unknown; msg?: unknown }): boolean {
  if (envelope.code === 0) return true;
  // The provider has shown the account answering code 1 with a success message.
  const { msg } = envelope;
  return operation === 'getAccount' && envelope.code === 1 && typeof msg === 'string' && /success/i.test(msg);
}

function describeEnvelope(envelope: LooseEnvelope): string {
  return ` (code ${envelope.code})${envelope.msg === undefined ? '' : `: ${envelope.msg}`}`;
}

/** Seconds from a Retry-After header, which holds either seconds or an HTTP date. */
function parseRetryAfter(value: string | null): number | undefined {
  if (value === null) return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/** Settles with `work`, or rejects once `signal` aborts: a swapped-in fetch may ignore the signal. */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function stringEntries(params: object): [string, string][] {
  return Object.entries(params)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => [key, String(value)]);
}

function preview(text: string): string {
  return text.length > 100 ? `'${text.slice(0, 100)}'…` : `'${text}'`;
}

function describeCause(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  // Node's fetch says only "fetch failed"; the reason (ECONNREFUSED, …) is in its cause.
  return cause.cause instanceof Error ? `${cause.message} (${cause.cause.message})` : cause.message;
}
