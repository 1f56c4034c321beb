/** One call to the upstream of `serve --upstream`, bounded in time and size: a failure is a 502 or 504, never a hang. */
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { SimulatorError } from '../engine/index.ts';
import type { SimContext } from './context.ts';
import { asSent, decodeText, MAX_JSON_DEPTH, nestsTooDeep } from './request-body.ts';
import { JOURNAL_RESPONSE_LIMIT } from './journal.ts';
import { redactUrl, type KeyAliases } from './journal-redaction.ts';

export interface UpstreamOptions {
  /** The upstream's base URL, e.g. https://api.eopen.io (a path is kept as a prefix). */
  url: string;
  /** How long the whole exchange may take, the response's body included, ms. */
  timeoutMs: number;
  /** Largest response body read, bytes. Default DEFAULT_UPSTREAM_MAX_BYTES. */
  maxBytes?: number | undefined;
  fetch?: typeof fetch | undefined;
  /** The request headers passed on. Default: the API's (FORWARDED_REQUEST_HEADERS). */
  headers?: readonly string[] | undefined;
  /** The option naming `url` in messages. Default '--upstream'. */
  flag?: string | undefined;
}

/** The default of `--upstream-max-bytes`. */
export const DEFAULT_UPSTREAM_MAX_BYTES: number = 8 * 1024 * 1024;

/** Marks a Response whose body is still content-encoded (createNodeFetch); the platform's fetch decodes it. */
export const RAW_BODY: unique symbol = Symbol('energy-rental-kit.rawBody');

/** The upstream's response is larger than `maxBytes` (thrown here and by createNodeFetch). */
export class UpstreamTooLarge extends Error {
  constructor(
    readonly maxBytes: number,
    /** The Content-Length the upstream declared, when that alone refused it. */
    readonly declared?: number,
  ) {
    super(
      declared === undefined
        ? `the answer grew past ${maxBytes} bytes`
        : `the answer declared ${declared} bytes, over ${maxBytes}`,
    );
    this.name = 'UpstreamTooLarge';
  }
}

/** The upstream answered with a status no Response can carry (below 200 or above 599). */
export class UpstreamStatusInvalid extends Error {
  constructor(readonly status: string) {
    super(`the answer's status ${status} is not a final HTTP status`);
    this.name = 'UpstreamStatusInvalid';
  }
}

/** The request headers passed on: what the API reads. Host, Origin and cookies stay here. */
const FORWARDED_REQUEST_HEADERS = ['api-key', 'content-type', 'accept'];
/** The response's headers passed back: never set-cookie nor a hop-by-hop header. */
const FORWARDED_RESPONSE_HEADERS =
  /^(content-type|content-encoding|location|retry-after|ratelimit.*|x-ratelimit-.*)$/;

/**
 * The headers a foreign answer (the upstream's, a recording's) is served with on the local
 * origin, which any web page can reach: the allow-list, `nosniff`, and unless JSON a sandbox.
 *
 * @example
 *   servedHeaders(new Headers({ 'content-type': 'text/html', 'set-cookie': 'a=1' }));
 *   // { 'content-type': 'text/html', 'x-content-type-options': 'nosniff', 'content-security-policy': 'sandbox' }
 */
export function servedHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (FORWARDED_RESPONSE_HEADERS.test(name)) out[name] = value;
  });
  out['x-content-type-options'] = 'nosniff';
  if (!/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(out['content-type'] ?? ''))
    out['content-security-policy'] = 'sandbox';
  return out;
}

/** Statuses whose response has no body (a Response refuses one). */
const NULL_BODY_STATUS = new Set([204, 205, 304]);

export interface UpstreamRequest {
  readonly method: string;
  readonly pathAndQuery: string;
  header(name: string): string | undefined;
}

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string>;
  /** The body as it came, in the pieces it came in: still encoded when `headers['content-encoding']` says so. */
  chunks: Uint8Array[];
  size: number;
}

/**
 * Forwards a request; the path and query are the client's, joined to the upstream's URL.
 *
 * @example
 *   await forwardToUpstream({ url: 'https://api.eopen.io', timeoutMs: 10_000 }, request, undefined);
 */
export async function forwardToUpstream(
  options: UpstreamOptions,
  request: UpstreamRequest,
  body: Uint8Array<ArrayBuffer> | undefined,
): Promise<UpstreamResponse> {
  const maxBytes = options.maxBytes ?? DEFAULT_UPSTREAM_MAX_BYTES;
  const headers = new Headers();
  for (const name of options.headers ?? FORWARDED_REQUEST_HEADERS) {
    const value = request.header(name);
    if (value !== undefined) headers.set(name, value);
  }
  const signal = AbortSignal.timeout(options.timeoutMs);
  // A fetch, or a body, that ignores the signal still ends the exchange on time.
  const deadline = new Promise<never>((_resolve, reject) =>
    signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }),
  );
  deadline.catch(() => {});
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  try {
    const response = await Promise.race([
      (options.fetch ?? fetch)(options.url.replace(/\/+$/, '') + request.pathAndQuery, {
        method: request.method,
        headers,
        body: body && body.byteLength > 0 ? body : undefined,
        redirect: 'manual',
        signal,
      }),
      deadline,
    ]);
    const status = response.status;
    if (status < 200 || status > 599) throw new UpstreamStatusInvalid(String(status));
    const declared = Number(response.headers.get('content-length') ?? 0);
    if (declared > maxBytes) {
      void response.body?.cancel().catch(() => {});
      throw new UpstreamTooLarge(maxBytes, declared);
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    reader = response.body?.getReader();
    while (reader) {
      const { done, value } = await Promise.race([reader.read(), deadline]);
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) throw new UpstreamTooLarge(maxBytes);
      chunks.push(value);
    }
    reader = undefined;
    const empty = NULL_BODY_STATUS.has(status);
    return { status, headers: passedOn(response), chunks: empty ? [] : chunks, size: empty ? 0 : size };
  } catch (error) {
    // What the upstream still sends is never read: its connection is let go.
    void reader?.cancel().catch(() => {});
    throw upstreamError(options, maxBytes, error);
  }
}

/**
 * The upstream's response passed on as it came, still encoded if it was.
 *
 * @example
 *   return passOn(await forwardToUpstream(options, request, body));
 */
export function passOn({ status, headers, chunks, size }: UpstreamResponse): Response {
  const next = chunks.values();
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = next.next();
      if (chunk.done) controller.close();
      else controller.enqueue(chunk.value);
    },
  });
  return new Response(size > 0 ? body : null, { status, headers });
}

/** The headers passed back; a content-encoding another fetch has already undone is dropped with it. */
function passedOn(response: Response): Record<string, string> {
  const out = servedHeaders(response.headers);
  // A Response made by hand (type 'default', a test's stand-in) holds what it was given.
  const raw = (response as Response & { [RAW_BODY]?: boolean })[RAW_BODY] === true;
  if (out['content-encoding'] !== undefined && !raw && response.type !== 'default')
    delete out['content-encoding'];
  return out;
}

function upstreamError(options: UpstreamOptions, maxBytes: number, error: unknown): SimulatorError {
  const upstream = redactUrl(options.url);
  if (error instanceof UpstreamTooLarge) {
    const size =
      error.declared === undefined
        ? `more than ${maxBytes} bytes`
        : `${error.declared} bytes (its Content-Length)`;
    return new SimulatorError(
      'upstreamUnreachable',
      `The upstream ${upstream} answered ${size}, over --upstream-max-bytes ${maxBytes}; the answer was cut and not passed on. Raise --upstream-max-bytes (ENERGY_SIM_UPSTREAM_MAX_BYTES) if answers this large are expected.`,
    );
  }
  if (error instanceof UpstreamStatusInvalid) {
    return new SimulatorError(
      'upstreamUnreachable',
      `The upstream ${upstream} answered with status ${error.status}, which is not a final HTTP status (200 to 599); the answer was not passed on.`,
    );
  }
  const cause = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (cause?.name === 'TimeoutError' || cause?.name === 'AbortError') {
    return new SimulatorError(
      'upstreamTimeout',
      `The upstream ${upstream} did not answer within ${options.timeoutMs} ms (--upstream-timeout); nothing more is known of this request's fate there.`,
    );
  }
  const why = cause?.cause?.code ?? cause?.cause?.message ?? cause?.message ?? String(error);
  return new SimulatorError(
    'upstreamUnreachable',
    `The upstream ${upstream} could not be reached (${why}). Check ${options.flag ?? '--upstream'} and that the service is up.`,
  );
}

/**
 * Forwards the request of `c` as sent and reads the answer for the journal.
 *
 * @example
 *   const { response, read } = await forwardSent(c, proxy.upstream, body);
 *   return passOn(response);
 */
export async function forwardSent(
  c: SimContext,
  options: UpstreamOptions,
  body: Uint8Array<ArrayBuffer> | undefined,
): Promise<{ response: UpstreamResponse; read: ReadResponse }> {
  const { path, query } = asSent(c);
  const request = {
    method: c.req.method,
    pathAndQuery: query === undefined ? path : `${path}?${query}`,
    header: (name: string) => c.req.header(name),
  };
  const response = await forwardToUpstream(options, request, body);
  const read = await readUpstreamResponse(response, options.maxBytes);
  c.set('response', read.journal);
  if (read.json !== undefined) c.set('responseText', read.text);
  return { response, read };
}

/**
 * Adds keys (empty ones skipped), with their aliases, to those a kept copy of the exchange must not hold.
 *
 * @example
 *   addKeys(c, aliases, [c.req.header('api-key') ?? '']);
 */
export function addKeys(c: SimContext, aliases: KeyAliases, keys: readonly string[]): void {
  const more = keys.filter(Boolean);
  if (more.length > 0)
    c.set('keys', [...(c.get('keys') ?? []), ...more.map((k) => [k, aliases.alias(k)] as const)]);
}

/** Why an answer was not checked: `rule` is stable (one report per operation and rule), `message` says it in full. */
export interface Unchecked {
  rule: 'depth' | 'size' | 'encoding' | 'json';
  message: string;
}

/** An upstream response as read: JSON to check, or what the journal keeps and, when it should have been checked, why it was not. */
export type ReadResponse =
  | { json: unknown; journal: unknown; text: string; unchecked?: undefined }
  | { json?: undefined; journal: string; unchecked?: Unchecked | undefined };

/** Bytes of an unchecked body decoded for the journal. */
const JOURNAL_TEXT_BYTES = 2 * JOURNAL_RESPONSE_LIMIT;

/** The largest body checked against the spec: checking holds the event loop. */
export const CHECK_MAX_BYTES: number = 4 * 1024 * 1024;

/**
 * Reads a response for the check and the journal; a body too large to check keeps only its start.
 *
 * @example
 *   const read = await readUpstreamResponse(response, options.maxBytes);
 *   if (read.json !== undefined) validation.check('getPrice', response.status, read.json);
 */
export async function readUpstreamResponse(
  response: UpstreamResponse,
  maxBytes: number = DEFAULT_UPSTREAM_MAX_BYTES,
): Promise<ReadResponse> {
  const type = response.headers['content-type'];
  const encoding = response.headers['content-encoding']?.trim().toLowerCase();
  const encoded = encoding !== undefined && encoding !== '' && encoding !== 'identity';
  const start = (chunks: readonly Uint8Array[], size: number): string =>
    decodeText(Buffer.concat(chunks, Math.min(size, JOURNAL_TEXT_BYTES)));
  const tooLarge = (size: number): Unchecked => ({
    rule: 'size',
    message: `not checked: the body (${size} bytes) is larger than the ${CHECK_MAX_BYTES} bytes the proxy checks without holding up other requests`,
  });
  if (!type || !/\bjson\b/i.test(type)) {
    if (encoded) return { journal: `[${encoding}-encoded answer, not kept]` };
    return { journal: start(response.chunks, response.size) };
  }
  if (!encoded && response.size > CHECK_MAX_BYTES)
    return { journal: start(response.chunks, response.size), unchecked: tooLarge(response.size) };
  let bytes: Uint8Array = Buffer.concat(response.chunks);
  if (encoded) {
    const decoded = await decode(bytes, encoding, maxBytes);
    if (!(decoded instanceof Uint8Array))
      return { journal: `[answer not kept: ${decoded.message}]`, unchecked: decoded };
    bytes = decoded;
  }
  if (bytes.byteLength === 0) return { journal: '' };
  if (bytes.byteLength > CHECK_MAX_BYTES)
    return { journal: start([bytes], bytes.byteLength), unchecked: tooLarge(bytes.byteLength) };
  const text = decodeText(bytes);
  const journal = text.slice(0, JOURNAL_TEXT_BYTES);
  // Checking and journaling recurse: too deep a body is not checked.
  const depth = `not checked: the body nests deeper than ${MAX_JSON_DEPTH} levels`;
  if (nestsTooDeep(text)) return { journal, unchecked: { rule: 'depth', message: depth } };
  try {
    const json: unknown = JSON.parse(text);
    return { json, journal: json, text };
  } catch (error) {
    const message = `not checked: the body is not JSON (${(error as Error).message}), though its content type is ${type}`;
    return { journal, unchecked: { rule: 'json', message } };
  }
}

/** The decoders of a content coding; HTTP's deflate is zlib-wrapped, but servers send raw deflate too. */
const DECODERS: Record<string, (bytes: Uint8Array, options: zlib.ZlibOptions) => Promise<Buffer>> = {
  gzip: promisify(zlib.gunzip),
  'x-gzip': promisify(zlib.gunzip),
  br: promisify(zlib.brotliDecompress),
  deflate: (bytes, options) =>
    promisify((bytes[0]! & 0x0f) === 8 ? zlib.inflate : zlib.inflateRaw)(bytes, options),
};

/** Undoes a content-encoding (the last coding applied first), each step at most `maxBytes` out. */
async function decode(body: Uint8Array, encoding: string, maxBytes: number): Promise<Uint8Array | Unchecked> {
  const codings = encoding
    .split(',')
    .map((coding) => coding.trim())
    .filter((coding) => coding !== '' && coding !== 'identity')
    .reverse();
  let bytes = body;
  for (const coding of codings) {
    const decoder = DECODERS[coding];
    if (!decoder)
      return {
        rule: 'encoding',
        message: `not checked: its content-encoding '${coding}' is not one the proxy decodes (gzip, deflate, br)`,
      };
    try {
      bytes = await decoder(bytes, { maxOutputLength: maxBytes });
    } catch (error) {
      const failure = error as NodeJS.ErrnoException;
      if (failure.code !== 'ERR_BUFFER_TOO_LARGE')
        return {
          rule: 'encoding',
          message: `not checked: its ${coding} body could not be decoded (${failure.message})`,
        };
      const message = `not checked: decoded (${coding}), the body is larger than ${maxBytes} bytes (--upstream-max-bytes)`;
      return { rule: 'size', message };
    }
  }
  return bytes;
}
