/**
 * Requests that Node's own HTTP parser refuses (garbage, two Content-Lengths, headers over
 * its limit, an `Expect` other than 100-continue) never reach the app; Node would answer
 * them with a bare status line and cut the connection, dropping the answers still owed to
 * valid requests pipelined ahead of the bad one. This answers them with the error envelope,
 * after those answers. A CONNECT, which Node hands over as a bare socket (and drops when
 * nobody listens), gets the envelope the same way. What Node does not let us do is in the
 * docs/limits.md.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { SimulatorError, type Engine } from '../engine/index.ts';
import { errorEnvelopeText } from './error-catalogue.ts';

/** The responses a connection may still owe (finished ones included), in the order they will be written. */
export type OwedResponses = (socket: Socket) => readonly ServerResponse[];

/** Ends a socket that will not close itself after its last answer: a peer that keeps sending gets no more time than this. */
const LINGER_MS = 2000;

/**
 * Tracks the responses each connection owes; call `track` for every request.
 *
 * The list is only read when a connection sends something Node refuses. A connection
 * answers in the order it was asked, so the finished responses are those at the list's
 * head: each request drops them there, and a connection keeps no more than it owes plus
 * its last answer.
 *
 * @example
 *   const owed = createOwedResponses();
 *   server.on('request', (req, res) => owed.track(res));
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

/**
 * Answers the parser's refusals on `server` with the envelope: `clientError` after every
 * answer the connection owes, and `checkExpectation` (an `Expect` that is not
 * 100-continue) with 417.
 *
 * @example
 *   const { track, owed } = createOwedResponses();
 *   respondToClientErrors(server, sim.engine, owed);
 */
export function respondToClientErrors(server: Server, engine: Engine, owed: OwedResponses): void {
  const responded = new WeakSet<Socket>();
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    // The parser calls again for every later chunk it cannot read; one answer per connection.
    if (responded.has(socket)) return;
    responded.add(socket);
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    endWithEnvelope(socket, engine, parserError(error), owed, {});
  });
  // A forward proxy's tunnel request: nothing here tunnels, and Node would drop the
  // connection without a word.
  server.on('connect', (_req: IncomingMessage, socket: Socket) => {
    // Once handed over, the socket's errors are no longer the server's to swallow.
    socket.on('error', () => socket.destroy());
    endWithEnvelope(
      socket,
      engine,
      new SimulatorError(
        'methodNotAllowed',
        `Method CONNECT is not allowed: the simulator tunnels nothing; use ${ALLOWED_METHODS.join(', ')} on its paths (the API under /v1, the control plane under /_sim).`,
      ),
      owed,
      { Allow: ALLOWED_METHODS.join(', ') },
    );
  });
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const text = errorEnvelopeText(
      engine,
      new SimulatorError(
        'expectationFailed',
        `Expect: ${String(req.headers.expect)} is not supported; send Expect: 100-continue or no Expect header.`,
      ),
    );
    res.writeHead(417, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      connection: 'close',
    });
    res.end(text);
  });
}

/** The methods some path answers; a CONNECT is told them. */
const ALLOWED_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * Writes the envelope of `error` as the connection's last answer and ends it, after the
 * answers it owes to complete requests ahead (and one already under way).
 */
function endWithEnvelope(
  socket: Socket,
  engine: Engine,
  error: SimulatorError,
  owed: OwedResponses,
  headers: Record<string, string>,
): void {
  const text = errorEnvelopeText(engine, error);
  const write = (): void => {
    if (!socket.writable) return void socket.destroy();
    const extra = Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.end(
      `HTTP/1.1 ${error.status} ${STATUS_TEXT[error.status] ?? 'Bad Request'}\r\n${extra}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
    );
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  };
  // Answers owed to complete requests ahead of the bad one come first, and so does one
  // already under way; a request whose own body the parser refused will never complete,
  // and unless its answer has started, this answer stands for it.
  const waiting = owed(socket).filter(
    (res) => !res.writableFinished && !res.destroyed && (res.req.complete || res.headersSent),
  );
  if (waiting.length === 0) return write();
  let left = waiting.length;
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

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};
