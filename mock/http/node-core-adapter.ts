/**
 * The request core behind Node's HTTP server: a request becomes the core's plain request
 * straight from the IncomingMessage, and the core's answer is written straight to the
 * ServerResponse. No WHATWG Request or Response is built on this path: building them was
 * most of a request's cost in the CPU profile (bench/README.md, "Figures behind the
 * code"). It only translates; every step of the request is the core's.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { SimulatorError } from '../engine/index.ts';
import type { ErrorBoundary } from './error-boundary.ts';
import type { CoreAnswer, CoreRequest } from './exchange.ts';
import { bodyBytes, cutConnection, dripPlan } from './fault-delivery.ts';
import { ClientClosed, isPromise, type RequestCore } from './request-core.ts';

/**
 * Creates the adapter; it answers one request through the core.
 *
 * @example
 *   const answer = createNodeCoreAdapter(sim.core, sim.maxBodyBytes, boundary);
 *   http.createServer((req, res) => (sim.core.takes(pathOf(req)) ? answer(req, res) : hono(req, res)));
 */
export function createNodeCoreAdapter(
  core: RequestCore,
  maxBodyBytes: number,
  boundary: ErrorBoundary,
): (req: IncomingMessage, res: ServerResponse) => void {
  const write = (req: IncomingMessage, res: ServerResponse, answer: CoreAnswer): void => {
    if (answer.dropped) {
      cutConnection(req.socket, answer.cut);
      return;
    }
    const payload = answer.body;
    if (answer.drip && payload !== null) {
      drip(res, answer.status, { ...answer.headers }, bodyBytes(payload), answer.drip);
      return;
    }
    const length =
      payload === null ? 0 : typeof payload === 'string' ? Buffer.byteLength(payload) : payload.byteLength;
    // A headers object of its own: a source may share one between its answers. The length
    // is set last: it is the length of what is written here, whatever a source's headers say.
    const out: Record<string, string | number> = {};
    const headers = answer.headers;
    for (const name in headers) out[name] = headers[name]!;
    out['content-length'] = length;
    res.writeHead(answer.status, out);
    if (typeof payload === 'string' || payload === null || payload.byteLength <= WRITE_TURN_BYTES)
      res.end(payload ?? undefined);
    else writeInTurns(res, payload);
  };
  const handle = (req: IncomingMessage, res: ServerResponse, request: CoreRequest): void => {
    // The core hands the answer over before its observers take their note: written at once.
    const answer = core.handle(request, (answered) => write(req, res, answered));
    if (isPromise(answer)) answer.then(undefined, (error: unknown) => boundary.fail(req, res, error));
  };
  return (req, res) => {
    const request = new NodeRequest(req);
    if (!request.hasBody) return handle(req, res, request);
    // The body is read before the core sees the request (bounded by the body limit), so the
    // core answers in the turn its last byte arrived, with no promise on its way.
    readBody(req, maxBodyBytes, (error, read) => {
      request.failure = error;
      request.bytes = read;
      handle(req, res, request);
    });
  };
}

/**
 * A Node request as the core reads it. A class, not an object of closures: one is made for
 * every request, and its three closures were a sixth of what the kit allocates for a read;
 * methods are shared.
 */
class NodeRequest implements CoreRequest {
  readonly method: string;
  readonly target: string;
  readonly hasBody: boolean;
  readonly connection: object;
  readonly started = performance.now();
  readonly #headers: IncomingHttpHeaders;
  /** The body once read; `failure` when reading it failed. */
  bytes: Uint8Array | undefined;
  failure: SimulatorError | ClientClosed | undefined;

  constructor(req: IncomingMessage) {
    const headers = req.headers;
    this.#headers = headers;
    this.method = req.method ?? 'GET';
    this.target = originForm(req.url ?? '/');
    this.hasBody = headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined;
    this.connection = req.socket;
  }

  header(name: string): string | undefined {
    const value = this.#headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  }

  // Made when asked for: a rejection nobody asks for must not go unhandled.
  body(): Promise<Uint8Array> {
    return this.failure ? Promise.reject(this.failure) : Promise.resolve(this.bytes ?? new Uint8Array(0));
  }

  bodyIfRead(): Uint8Array | undefined {
    return this.bytes;
  }
}

/**
 * Bytes of an answer's body written in one turn of the event loop, at most. Node writes what
 * it is given at once while the socket takes it: a 100 MB answer passed on by the proxy held
 * every other request for 87 ms in one `end` to a client reading as fast as it came.
 */
const WRITE_TURN_BYTES = 1024 * 1024;

/**
 * Writes a large body a piece per turn of the event loop, waiting for the socket to drain
 * when it is full; a client gone meanwhile stops it.
 */
function writeInTurns(res: ServerResponse, body: Uint8Array): void {
  let at = 0;
  const next = (): void => {
    if (res.destroyed) return;
    const piece = body.subarray(at, at + WRITE_TURN_BYTES);
    at += piece.byteLength;
    if (at >= body.byteLength) res.end(piece);
    else if (res.write(piece)) setImmediate(next);
    // Not straight on from 'drain': a write the socket takes at once emits the next 'drain'
    // in a nextTick, so the whole body would go in one turn, a chain of 100 MB of writes.
    else res.once('drain', () => setImmediate(next));
  };
  next();
}

/**
 * Writes a body in pieces over time (a drip fault): no Content-Length, so HTTP/1.1 sends
 * it chunked; a client gone meanwhile stops the timers.
 */
function drip(
  res: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: Uint8Array,
  { chunks, ms }: { chunks: number; ms: number },
): void {
  res.writeHead(status, headers);
  const plan = dripPlan(body, chunks, ms);
  let timer: ReturnType<typeof setTimeout> | undefined;
  res.once('close', () => clearTimeout(timer));
  const send = (i: number): void => {
    if (res.destroyed) return;
    const step = plan[i];
    if (!step) {
      res.end();
      return;
    }
    res.write(step.bytes);
    const after = plan[i + 1];
    if (after) timer = setTimeout(() => send(i + 1), after.waitMs);
    else res.end();
  };
  send(0);
}

/**
 * A request target in origin form: an absolute-form target (`http://host/path`) loses its
 * scheme and host, as routing by the target alone (never the Host) wants.
 *
 * @example
 *   originForm('http://elsewhere.example/v1/account?x=1'); // '/v1/account?x=1'
 */
export function originForm(target: string): string {
  if (target.charCodeAt(0) === 47 /* / */) return target;
  const authority = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(target);
  if (!authority) return target;
  const rest = target.slice(authority[0].length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/** Set on a request whose body readBody has read to its last byte. */
const READ_WHOLE = Symbol('body read whole');
type MarkedRequest = IncomingMessage & { [READ_WHOLE]?: true };

/**
 * Whether the adapter read the request's body to its last byte, so nothing of it is left
 * to drain after the answer. `req.complete` cannot tell yet: Node sets it as the stream
 * ends, a turn after a body read by its Content-Length has been answered (node-server.ts
 * would otherwise arm a drain, its timer and four listeners for every order).
 *
 * @example
 *   res.on('finish', () => { if (!req.complete && !bodyReadWhole(req)) drain(req); });
 */
export function bodyReadWhole(req: IncomingMessage): boolean {
  return (req as MarkedRequest)[READ_WHOLE] === true;
}

/**
 * The body, read up to `max` bytes: a declared or sent body past it is the 413 rejection
 * (what is left of it the server drains after the answer); a client gone mid-body is a
 * ClientClosed, journaled as such.
 */
function readBody(
  req: IncomingMessage,
  max: number,
  done: (error: SimulatorError | ClientClosed | undefined, bytes?: Uint8Array) => void,
): void {
  const tooLarge = (): SimulatorError =>
    SimulatorError.answer(
      'bodyTooLarge',
      `The request body is larger than ${max} bytes; send a smaller body.`,
    );
  const declared = req.headers['content-length'];
  const length = declared === undefined ? undefined : Number(declared);
  if (length !== undefined && length > max) return done(tooLarge());
  if (req.complete || length === 0) return done(undefined, new Uint8Array(0));
  const chunks: Buffer[] = [];
  let size = 0;
  const end = (): void => {
    stop();
    (req as MarkedRequest)[READ_WHOLE] = true;
    done(undefined, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
  };
  const onData = (chunk: Buffer): void => {
    size += chunk.length;
    if (size > max) {
      stop();
      done(tooLarge());
      return;
    }
    chunks.push(chunk);
    // Node's parser delivers exactly Content-Length bytes, so the last of them ends the
    // body: answering then, not at 'end', saves the stream a turn through its ticks.
    if (size === length) end();
  };
  const onGone = (): void => {
    stop();
    done(new ClientClosed());
  };
  const stop = (): void => {
    req.off('data', onData);
    req.off('end', end);
    req.off('error', onGone);
    req.off('aborted', onGone);
  };
  req.on('data', onData);
  req.on('end', end);
  req.on('error', onGone);
  req.on('aborted', onGone);
}
