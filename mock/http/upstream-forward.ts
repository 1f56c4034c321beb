/**
 * One call to the upstream of `serve --upstream`: the method, path, query, body and the
 * API-KEY header as the client sent them, to the upstream's base URL. The whole exchange,
 * the answer's body included, is bounded in time (`timeoutMs`) and in size (`maxBytes`):
 * an upstream that cannot be reached, answers too much, answers with a status HTTP does
 * not have, or does not finish in time is an error envelope that names it (502 or 504),
 * never a hang and never a process grown to the size of the answer.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { SimulatorError } from '../engine/index.ts';
import { redactUrl } from './journal-redaction.ts';

export interface UpstreamOptions {
  /** The upstream's base URL, e.g. https://api.eopen.io (a path is kept as a prefix). */
  url: string;
  /** How long the whole exchange may take, the answer's body included, ms. */
  timeoutMs: number;
  /** Largest answer body read, bytes. Default DEFAULT_UPSTREAM_MAX_BYTES. */
  maxBytes?: number | undefined;
  /** Where calls go; a test passes a stand-in. Default: the global fetch. */
  fetch?: typeof fetch | undefined;
}

/** The default of `--upstream-max-bytes`: 8 MiB, far above any answer of the API, far below what hurts a process. */
export const DEFAULT_UPSTREAM_MAX_BYTES: number = 8 * 1024 * 1024;

/**
 * Marks a Response whose body is the bytes the upstream sent, its content-encoding not
 * undone (createNodeFetch sets it). The fetch standard decodes gzip, deflate and br, so a
 * body from any other network fetch arrives decoded under a content-encoding that no
 * longer holds.
 */
export const RAW_BODY: unique symbol = Symbol('energy-rental-kit.rawBody');

/**
 * The upstream's answer is larger than `maxBytes`. Thrown here and by createNodeFetch when
 * given `maxBodyBytes` (which bounds what a wrapper, such as the recorder of `--record`,
 * reads before the proxy does).
 *
 * @example
 *   throw new UpstreamTooLarge(8_388_608, 104_857_600); // a Content-Length over the cap
 */
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

/**
 * The upstream answered with a status no Response can carry: below 200 or above 599
 * (999, 600, 42). `status` is as sent.
 *
 * @example
 *   throw new UpstreamStatusInvalid('999');
 */
export class UpstreamStatusInvalid extends Error {
  constructor(readonly status: string) {
    super(`the answer's status ${status} is not a final HTTP status`);
    this.name = 'UpstreamStatusInvalid';
  }
}

/**
 * Marks a fetch that also answers with plain fields (createNodeFetch): the proxy then asks
 * it for the status, the headers it passes on and the bytes, and no Headers, Response or
 * ReadableStream is built per call (they were most of a forward's cost beside a bare
 * node:http proxy, bench/README.md). Any other fetch is called as a fetch.
 */
export const RAW_EXCHANGE: unique symbol = Symbol('energy-rental-kit.rawExchange');

/** One exchange asked of a RAW_EXCHANGE transport. */
export interface RawExchangeRequest {
  url: string;
  method: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: Uint8Array | undefined;
  /** The whole exchange's deadline: past it the exchange fails with a DOMException named TimeoutError. */
  timeoutMs: number;
  /** The largest body read: past it the exchange fails with UpstreamTooLarge. */
  maxBytes: number;
}

/**
 * The error of an exchange past its deadline, as AbortSignal.timeout() words it.
 *
 * @example
 *   upstreamTimeout(10_000).name; // 'TimeoutError'
 */
export function upstreamTimeout(timeoutMs: number): DOMException {
  return new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError');
}

/** A transport's plain exchange: status, the headers a client reads (forwardedResponseHeader), the bytes as sent. */
export type RawExchange = (request: RawExchangeRequest) => Promise<UpstreamAnswer>;

/** The request headers passed on: what the API reads. Host, Origin and cookies stay here. */
const FORWARDED_REQUEST_HEADERS = ['api-key', 'content-type', 'accept'];
/**
 * The answer's headers passed back: what a client of the API reads, rate-limit headers of
 * every spelling included. Never set-cookie (the simulator's origin is not the service's)
 * and never a hop-by-hop header (connection, keep-alive, transfer-encoding, te, trailer,
 * upgrade, proxy-*), which describe the upstream's connection, not the answer.
 */
const FORWARDED_RESPONSE_HEADERS = new Set(['content-type', 'content-encoding', 'location', 'retry-after']);
export const forwardedResponseHeader = (name: string): boolean =>
  FORWARDED_RESPONSE_HEADERS.has(name) || name.startsWith('ratelimit') || name.startsWith('x-ratelimit-');

/** Statuses whose answer has no body (a Response refuses one). */
const NULL_BODY_STATUS = new Set([204, 205, 304]);

/** What is forwarded of a request: its method, its target (path and query, as sent) and the headers read. */
export interface UpstreamRequest {
  readonly method: string;
  readonly target: string;
  header(name: string): string | undefined;
}

export interface UpstreamAnswer {
  status: number;
  headers: Record<string, string>;
  /** As the upstream sent it: still encoded when `headers['content-encoding']` says so. */
  body: Uint8Array<ArrayBuffer>;
}

const EMPTY = new Uint8Array(0);

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
): Promise<UpstreamAnswer> {
  const target = upstreamUrl(options.url, request.target);
  const maxBytes = options.maxBytes ?? DEFAULT_UPSTREAM_MAX_BYTES;
  const call = options.fetch ?? fetch;
  const raw = (call as { [RAW_EXCHANGE]?: RawExchange })[RAW_EXCHANGE];
  if (raw) {
    // Plain fields and the transport's own deadline: no Headers, no AbortController, no
    // race, which showed in the proxy's profile.
    const plain: Record<string, string> = {};
    for (const name of FORWARDED_REQUEST_HEADERS) {
      const value = request.header(name);
      if (value !== undefined) plain[name] = value;
    }
    try {
      const answered = await raw({
        url: target,
        method: request.method,
        headers: plain,
        body,
        timeoutMs: options.timeoutMs,
        maxBytes,
      });
      return NULL_BODY_STATUS.has(answered.status) ? { ...answered, body: EMPTY } : answered;
    } catch (error) {
      throw upstreamError(options, maxBytes, error);
    }
  }
  const headers = new Headers();
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = request.header(name);
    if (value !== undefined) headers.set(name, value);
  }
  // A controller and a timer rather than AbortSignal.timeout(): that showed in the proxy's
  // profile, and the timer is cleared as soon as the answer is in. The deadline is raced
  // as well as signalled: a fetch, or a body stream, that ignores the signal still ends
  // the exchange on time.
  const controller = new AbortController();
  let expire: (reason: unknown) => void = () => {};
  const deadline = new Promise<never>((_resolve, reject) => (expire = reject));
  const timer = setTimeout(() => {
    const reason = upstreamTimeout(options.timeoutMs);
    controller.abort(reason);
    expire(reason);
  }, options.timeoutMs);
  let response: Response | undefined;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let finished = false;
  try {
    response = await Promise.race([
      call(target, {
        method: request.method,
        headers,
        body: body && body.byteLength > 0 ? body : undefined,
        redirect: 'manual',
        signal: controller.signal,
      }),
      deadline,
    ]);
    const status = response.status;
    if (status < 200 || status > 599) throw new UpstreamStatusInvalid(String(status));
    const declared = response.headers.get('content-length');
    if (declared !== null && Number(declared) > maxBytes)
      throw new UpstreamTooLarge(maxBytes, Number(declared));
    let bytes: Uint8Array<ArrayBuffer> = EMPTY;
    if (response.body !== null) {
      reader = response.body.getReader();
      bytes = await readCapped(reader, maxBytes, deadline);
    }
    finished = true;
    return {
      status,
      headers: answerHeaders(response),
      body: NULL_BODY_STATUS.has(status) ? EMPTY : bytes,
    };
  } catch (error) {
    throw upstreamError(options, maxBytes, error);
  } finally {
    clearTimeout(timer);
    // Cancelling a body left unread closes its connection (createNodeFetch destroys the
    // socket): what the upstream still sends is never read.
    if (!finished) (reader ?? response?.body)?.cancel().catch(() => {});
  }
}

/** Reads a body whole, refusing it as soon as it grows past `maxBytes`. */
async function readCapped(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  maxBytes: number,
  deadline: Promise<never>,
): Promise<Uint8Array<ArrayBuffer>> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await Promise.race([reader.read(), deadline]);
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) throw new UpstreamTooLarge(maxBytes);
    chunks.push(value);
  }
  return joinChunks(chunks, total);
}

/** How many bytes of a body are copied in one turn of the event loop when its chunks are joined, at most. */
const JOIN_TURN_BYTES = 4 * 1024 * 1024;
/** How long one turn of joining may hold the event loop, ms, at most. */
const JOIN_TURN_MS = 5;

/**
 * The chunks of a body as one byte array. A large one is copied over several turns of the
 * event loop, each ending after a few megabytes or a few milliseconds, whichever comes
 * first: copying 100 MB at once held every other request for 50-100 ms
 * (cli/serve-upstream-bounds.test.ts). Time as well as bytes, because the copy's cost is
 * the machine's: into fresh memory, each 4 KB page faults once, and 4 MB took 1-2 ms on one
 * machine and 13-22 ms on another whose system calls are dear. `now` is for a test.
 *
 * @example
 *   const body = await joinChunks(chunks, chunks.reduce((sum, c) => sum + c.byteLength, 0));
 */
export async function joinChunks(
  chunks: readonly Uint8Array[],
  total: number,
  now: () => number = () => performance.now(),
): Promise<Uint8Array<ArrayBuffer>> {
  if (chunks.length === 1 && chunks[0]!.buffer instanceof ArrayBuffer)
    return chunks[0] as Uint8Array<ArrayBuffer>;
  // Not zero-filled first: every byte is written below.
  const bytes = new Uint8Array(Buffer.allocUnsafeSlow(total).buffer, 0, total);
  let at = 0;
  let sinceTurn = 0;
  let turnStarted = now();
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
    sinceTurn += chunk.byteLength;
    if (sinceTurn >= JOIN_TURN_BYTES || now() - turnStarted >= JOIN_TURN_MS) {
      sinceTurn = 0;
      await nextTurn();
      turnStarted = now();
    }
  }
  return bytes;
}

/** The headers passed back; a content-encoding another fetch has already undone is dropped with it. */
function answerHeaders(response: Response): Record<string, string> {
  const out: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (forwardedResponseHeader(name)) out[name] = value;
  });
  // A Response made by hand (type 'default', a test's stand-in) holds what it was given.
  if (out['content-encoding'] !== undefined && !isRaw(response) && response.type !== 'default')
    delete out['content-encoding'];
  return out;
}

function isRaw(response: Response): boolean {
  return (response as Response & { [RAW_BODY]?: boolean })[RAW_BODY] === true;
}

/**
 * The upstream URL of a client's path and query: the upstream's own path is a prefix.
 *
 * @example
 *   upstreamUrl('https://api.eopen.io/', '/api/v1/account'); // 'https://api.eopen.io/api/v1/account'
 */
export function upstreamUrl(base: string, pathAndQuery: string): string {
  return base.replace(/\/+$/, '') + pathAndQuery;
}

function upstreamError(options: UpstreamOptions, maxBytes: number, error: unknown): SimulatorError {
  if (error instanceof UpstreamTooLarge) {
    const size =
      error.declared === undefined
        ? `more than ${maxBytes} bytes`
        : `${error.declared} bytes (its Content-Length)`;
    return new SimulatorError(
      'upstreamUnreachable',
      `The upstream ${redactUrl(options.url)} answered ${size}, over --upstream-max-bytes ${maxBytes}; the answer was cut and not passed on. Raise --upstream-max-bytes (ENERGY_SIM_UPSTREAM_MAX_BYTES) if answers this large are expected.`,
    );
  }
  if (error instanceof UpstreamStatusInvalid) {
    return new SimulatorError(
      'upstreamUnreachable',
      `The upstream ${redactUrl(options.url)} answered with status ${error.status}, which is not a final HTTP status (200 to 599); the answer was not passed on.`,
    );
  }
  const cause = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (cause?.name === 'TimeoutError' || cause?.name === 'AbortError') {
    return new SimulatorError(
      'upstreamTimeout',
      `The upstream ${redactUrl(options.url)} did not answer within ${options.timeoutMs} ms (--upstream-timeout); nothing more is known of this request's fate there.`,
    );
  }
  const why = cause?.cause?.code ?? cause?.cause?.message ?? cause?.message ?? String(error);
  return new SimulatorError(
    'upstreamUnreachable',
    `The upstream ${redactUrl(options.url)} could not be reached (${why}). Check --upstream and that the service is up.`,
  );
}
