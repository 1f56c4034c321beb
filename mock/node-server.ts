/**
 * Serves a simulator over Node's HTTP: every request goes to the simulator's one Hono app
 * through @hono/node-server's listener, with the socket's Host and cross-site check
 * (request-guard.ts) for the app's first step. Used by the CLI and by startSimulator().
 *
 * What happens before a request exists stays here: requests Node's parser refuses and a
 * CONNECT are answered with the error envelope (client-errors.ts), as is a target the
 * listener cannot build a URL from; and a body the app does not read is drained, bounded,
 * so its answer is never lost to a reset.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { getRequestListener, RequestError } from '@hono/node-server';
import { respondToClientErrors, createOwedResponses } from './http/client-errors.ts';
import { errorEnvelopeText, unexpectedError, unreadableRequest } from './http/error-catalogue.ts';
import { createRequestGuard, SENT_HOST, type RequestGuardOptions } from './http/request-guard.ts';
import type { Simulator } from './simulator.ts';

export type { RequestGuardOptions } from './http/request-guard.ts';

/**
 * Bytes of an unread request body discarded after its answer (a 413, or an answer that
 * did not need the body) before the connection is cut. Why drain rather than close: a
 * socket closed while the client is still sending makes the kernel send a reset, and a
 * reset can reach the client before it has read the 413, which it then never sees.
 * Draining keeps the connection orderly; the bound keeps a client from
 * making the simulator read forever.
 */
export const DRAIN_LIMIT_BYTES: number = 8 * 1024 * 1024;

/** Longest a connection stays open after its answer to read the rest of an unread body. */
const DRAIN_TIMEOUT_MS = 30_000;

/**
 * Creates (does not start) the HTTP server of a simulator. `options` say which Host
 * names it answers besides localhost and IP addresses (see request-guard.ts).
 *
 * @example
 *   const server = createSimulatorServer(createSimulator(), { host: '127.0.0.1' });
 *   server.listen(8787, '127.0.0.1');
 */
export function createSimulatorServer(sim: Simulator, options: RequestGuardOptions = {}): Server {
  const guard = createRequestGuard(options);
  // Each request's bindings are an object of its own: the guard is put on it for the app's first step.
  const listener = getRequestListener(
    (request, env) => sim.app.fetch(request, Object.assign(env, { guard })),
    {
      // The listener's own clean-up cuts a connection 500 ms after the answer while the body
      // is still arriving; drainAfterAnswer below replaces it.
      autoCleanupIncoming: false,
      errorHandler: (error) => {
        let refusal;
        if (error instanceof RequestError) refusal = unreadableRequest(error.message);
        else {
          try {
            sim.onUnexpectedError?.(error);
          } catch {
            // A failing logger must not turn one bug into two.
          }
          refusal = unexpectedError(error);
        }
        return new Response(errorEnvelopeText(sim.engine, refusal), {
          status: refusal.status,
          headers: { 'content-type': 'application/json' },
        });
      },
    },
  );
  const { track, owed } = createOwedResponses();
  // Node answers an HTTP/1.1 request with no Host with a bare 400 of its own; the guard
  // answers it with the envelope instead (request-guard.ts).
  const server = createServer({ requireHostHeader: false }, (req, res) => {
    track(res);
    // Only a request that declares a body can leave one unread.
    if (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined)
      res.on('finish', drainRest);
    // The app builds its URL from the Host; routing comes from the request target alone. A
    // Host that is no plain authority gives way to the address the request came in on, and
    // the guard reads the one sent.
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

/**
 * After the answer, reads and discards what is left of the body, up to DRAIN_LIMIT_BYTES,
 * and only then lets the connection close.
 */
function drainRest(this: ServerResponse): void {
  const req = this.req;
  if (req.complete || req.destroyed) return;
  const socket = req.socket;
  // Under `Connection: close` Node has just ended the socket and destroys it once the
  // answer is flushed (net.Socket#destroySoon); destroying it while the body still
  // arrives is what resets. The socket is destroyed once the body is in instead.
  if (socket.writableEnded) socket.removeListener('finish', socket.destroy);
  const cut = (): void => {
    clearTimeout(timer);
    if (socket.writableEnded) socket.destroy();
  };
  const timer = setTimeout(() => socket.destroy(), DRAIN_TIMEOUT_MS).unref();
  let drained = 0;
  // As Node's own dump of an unread body does: whatever read part of it (the web stream
  // Hono reads a body through pauses the request when its queue is full) reads no more.
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

// host[:port], where host is a name, an IPv4 address or a bracketed IPv6 address: nothing
// that can end the authority (`/ ? # @`), no space, no control character.
const AUTHORITY = /^(?:[A-Za-z0-9._~-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The request's `Host` when it is a plain authority the URL parser takes, or else the
 * address the request came in on: `Host: x/y?z` would otherwise move `/y` into the path,
 * and `Host: a b` makes the URL unbuildable.
 *
 * @example
 *   routableHost({ headers: { host: 'x/y?z' }, socket: { localAddress: '127.0.0.1', localPort: 8787 } }); // '127.0.0.1:8787'
 */
export function routableHost(req: Pick<IncomingMessage, 'headers' | 'socket'>): string {
  const host = req.headers.host;
  // The shape alone is not enough: the URL parser also refuses names such as `a127.0.0.1`
  // (a last label that is a number makes the whole name an IPv4 address) or a port over 65535.
  if (host !== undefined && AUTHORITY.test(host) && URL.canParse(`http://${host}/`)) return host;
  const address = req.socket?.localAddress ?? '127.0.0.1';
  const name = address.includes(':') ? `[${address}]` : address;
  return req.socket?.localPort ? `${name}:${req.socket.localPort}` : name;
}
