/**
 * Serves a simulator's Hono app over Node's HTTP, with request-guard.ts as its first step.
 * What precedes a request (parser errors, CONNECT) is answered with the envelope here, and an
 * unread body drained, bounded, so its answer is not lost to a reset.
 */
import {
  createServer,
  STATUS_CODES,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { Socket } from 'node:net';
import { getRequestListener, RequestError } from '@hono/node-server';
import { SimulatorError, type Engine } from './engine/index.ts';
import { errorEnvelopeText, report, unexpectedError } from './http/error-catalogue.ts';
import { createRequestGuard, SENT_HOST, type RequestGuardOptions } from './http/request-guard.ts';
import type { Simulator } from './simulator.ts';

export type { RequestGuardOptions } from './http/request-guard.ts';

/** Bytes of an unread body drained after its answer: closing while the client sends resets before it reads the 413. */
const DRAIN_LIMIT_BYTES = 8 * 1024 * 1024;
const DRAIN_TIMEOUT_MS = 30_000;
/** Ends a socket that will not close itself after its last answer. */
const LINGER_MS = 2000;

/**
 * Creates (does not start) the HTTP server of a simulator; `options` are the Host check's.
 *
 * @example
 *   const server = createSimulatorServer(createSimulator(), { host: '127.0.0.1' });
 *   server.listen(8787, '127.0.0.1');
 */
export function createSimulatorServer(sim: Simulator, options: RequestGuardOptions = {}): Server {
  const guard = createRequestGuard(options);
  const listener = getRequestListener(
    // Each request's bindings are an object of its own: the guard is put on it for the app's first step.
    (request, env) => sim.app.fetch(request, Object.assign(env, { guard })),
    {
      // Its clean-up cuts a connection 500 ms after the answer while the body still arrives.
      autoCleanupIncoming: false,
      errorHandler: (error) => {
        if (!(error instanceof RequestError)) report(sim.onUnexpectedError, error);
        // A request target or Host no URL can be built from.
        const refusal =
          error instanceof RequestError
            ? new SimulatorError(
                'bodyInvalid',
                `The request could not be read (${error.message}); send an origin-form target such as /v1/account.`,
              )
            : unexpectedError(error);
        return new Response(errorEnvelopeText(sim.engine, refusal), {
          status: refusal.status,
          headers: { 'content-type': 'application/json' },
        });
      },
    },
  );
  const { track, owed } = createOwedResponses();
  // No Host: the guard answers with the envelope, not Node with a bare 400.
  const server = createServer({ requireHostHeader: false }, (req, res) => {
    track(res);
    if (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined)
      res.on('finish', drainRest);
    // The app builds its URL from the Host: a bad one gives way to the local address; the guard reads the sent one.
    const host = routableHost(req);
    if (host !== req.headers.host) {
      (req as IncomingMessage & { [SENT_HOST]?: string })[SENT_HOST] = req.headers.host;
      req.headers.host = host;
    }
    void listener(req, res);
  });
  respondToClientErrors(server, sim.engine, owed);
  return server;
}

/** After the answer, reads and discards the rest of the body, up to DRAIN_LIMIT_BYTES, then lets the connection close. */
function drainRest(this: ServerResponse): void {
  const req = this.req;
  if (req.complete || req.destroyed) return;
  const socket = req.socket;
  // Under `Connection: close` Node would destroy the socket once answered: wait for the body instead.
  if (socket.writableEnded) socket.removeListener('finish', socket.destroy);
  const cut = (): void => {
    clearTimeout(timer);
    if (socket.writableEnded) socket.destroy();
  };
  const timer = setTimeout(() => socket.destroy(), DRAIN_TIMEOUT_MS).unref();
  let drained = 0;
  // As Node's own dump of an unread body does: whatever read part of it reads no more.
  req.removeAllListeners('data');
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > DRAIN_LIMIT_BYTES) socket.destroy();
  });
  req.on('end', cut);
  req.on('error', cut);
  req.on('close', () => clearTimeout(timer));
  req.resume();
}

// host[:port]: a name, an IPv4 address or a bracketed IPv6 address, nothing that ends the authority.
const AUTHORITY = /^(?:[A-Za-z0-9._~-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The request's `Host` when it is a plain authority the URL parser takes, else the address
 * the request came in on (`Host: x/y?z` would move `/y` into the path).
 *
 * @example
 *   routableHost({ headers: { host: 'x/y?z' }, socket: { localAddress: '127.0.0.1', localPort: 8787 } }); // '127.0.0.1:8787'
 */
export function routableHost(req: Pick<IncomingMessage, 'headers' | 'socket'>): string {
  const host = req.headers.host;
  // The URL parser also refuses names such as `a127.0.0.1` or a port over 65535.
  if (host !== undefined && AUTHORITY.test(host) && URL.canParse(`http://${host}/`)) return host;
  const address = req.socket?.localAddress ?? '127.0.0.1';
  const name = address.includes(':') ? `[${address}]` : address;
  return req.socket?.localPort ? `${name}:${req.socket.localPort}` : name;
}

type OwedResponses = (socket: Socket) => readonly ServerResponse[];

/**
 * Tracks the responses each connection owes, in order, for when it sends something Node refuses.
 *
 * @example
 *   const { track, owed } = createOwedResponses();
 *   server.on('request', (req, res) => track(res));
 */
export function createOwedResponses(): { track(res: ServerResponse): void; owed: OwedResponses } {
  const bySocket = new WeakMap<Socket, ServerResponse[]>();
  return {
    track(res) {
      const socket = res.req.socket;
      const list = bySocket.get(socket);
      if (list === undefined) return void bySocket.set(socket, [res]);
      while (list.length > 0 && (list[0]!.writableFinished || list[0]!.destroyed)) list.shift();
      list.push(res);
    },
    owed: (socket) => bySocket.get(socket) ?? [],
  };
}

/**
 * The status and wording of a parser error.
 *
 * @example
 *   parserError({ code: 'HPE_HEADER_OVERFLOW' }).status; // 431
 */
export function parserError(error: NodeJS.ErrnoException): SimulatorError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new SimulatorError(
        'headersTooLarge',
        'The request headers are larger than the server accepts (16 KiB in all); send fewer or shorter headers.',
      );
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new SimulatorError(
        'requestTimeout',
        'The request was not received in time; send it again, whole.',
      );
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
    case 'HPE_INVALID_CONTENT_LENGTH':
      return new SimulatorError(
        'bodyInvalid',
        `The request's Content-Length is invalid or given more than once (${error.code}); send one Content-Length, or Transfer-Encoding: chunked.`,
      );
    default:
      return new SimulatorError(
        'bodyInvalid',
        `The request is not valid HTTP/1.1 (${error.code ?? 'parse error'}); check the request line, the headers and the body framing.`,
      );
  }
}

/** The methods some path answers; a CONNECT is told them. */
const ALLOWED_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE';

/** Answers what Node's parser refuses and a CONNECT with the envelope, after the answers owed; a bad `Expect` with 417. */
function respondToClientErrors(server: Server, engine: Engine, owed: OwedResponses): void {
  const responded = new WeakSet<Socket>();
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    // The parser calls again for every later chunk it cannot read; one answer per connection.
    if (responded.has(socket)) return;
    responded.add(socket);
    if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    endWithEnvelope(socket, engine, parserError(error), owed);
  });
  server.on('connect', (_req: IncomingMessage, socket: Socket) => {
    // Once handed over, the socket's errors are no longer the server's to swallow.
    socket.on('error', () => socket.destroy());
    const refusal = new SimulatorError(
      'methodNotAllowed',
      `Method CONNECT is not allowed: the simulator tunnels nothing; use ${ALLOWED_METHODS} on its paths (the API under /v1, the control plane under /_sim).`,
      { Allow: ALLOWED_METHODS },
    );
    endWithEnvelope(socket, engine, refusal, owed);
  });
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const message = `Expect: ${String(req.headers.expect)} is not supported; send Expect: 100-continue or no Expect header.`;
    const text = errorEnvelopeText(engine, new SimulatorError('expectationFailed', message));
    res.writeHead(417, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      connection: 'close',
    });
    res.end(text);
  });
}

/** Writes the envelope of `error` as the connection's last answer, after those it owes (a started one's included). */
function endWithEnvelope(socket: Socket, engine: Engine, error: SimulatorError, owed: OwedResponses): void {
  const text = errorEnvelopeText(engine, error);
  const write = (): void => {
    if (!socket.writable) return void socket.destroy();
    const extra = Object.entries(error.headers ?? {})
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.end(
      `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Bad Request'}\r\n${extra}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
    );
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  };
  const waiting = owed(socket).filter(
    (res) => !res.writableFinished && !res.destroyed && (res.req.complete || res.headersSent),
  );
  let left = waiting.length;
  if (left === 0) return write();
  for (const res of waiting) {
    const done = (): void => {
      if (--left === 0) write();
    };
    res.once('finish', done);
    res.once('close', () => {
      if (!res.writableFinished) done();
    });
  }
}
