/**
 * Serves a simulator over Node's HTTP: the API straight to the request core
 * (node-core-adapter.ts), the control plane, the dashboard and the docs to the Hono app.
 * Used by the CLI and by startSimulator().
 *
 * No request can stop the process: every path ends in the error envelope (error-boundary.ts),
 * requests Node's parser refuses, a CONNECT and an HTTP/1.1 request with no Host get it too
 * (client-errors.ts, request-guard.ts), and a body the simulator does not read is drained,
 * bounded, so its answer is never lost to a reset.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { answerClientErrors, createOwedResponses } from './http/client-errors.ts';
import { createErrorBoundary } from './http/error-boundary.ts';
import { bodyReadWhole, createNodeCoreAdapter, originForm } from './http/node-core-adapter.ts';
import { createNodeRequestGuard, type RequestGuardOptions } from './http/request-guard.ts';
import { routableHost } from './http/request-origin.ts';
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

/**
 * Creates (does not start) the HTTP server of a simulator. `options` say which Host
 * names it answers besides localhost and IP addresses (see request-guard.ts).
 *
 * @example
 *   const server = createSimulatorServer(createSimulator(), { host: '127.0.0.1' });
 *   server.listen(8787, '127.0.0.1');
 */
export function createSimulatorServer(sim: Simulator, options: RequestGuardOptions = {}): Server {
  const boundary = createErrorBoundary(sim);
  const api = createNodeCoreAdapter(sim.core, sim.maxBodyBytes, boundary);
  // The adapter's own clean-up cuts a connection 500 ms after the answer while the body is
  // still arriving; drainAfterAnswer below replaces it.
  const hono = getRequestListener(sim.app.fetch, {
    autoCleanupIncoming: false,
    errorHandler: (error) => boundary.response(error),
  });
  // Only a socket is reachable from a web page, so the Host and cross-site checks live
  // here, first, where neither the core nor the app can skip them.
  const refused = createNodeRequestGuard(sim.engine, options);
  const { track, owed } = createOwedResponses();
  // Node answers an HTTP/1.1 request with no Host with a bare 400 of its own; the guard
  // answers it with the envelope instead (request-guard.ts).
  const server = createServer({ requireHostHeader: false }, (req, res) => {
    track(res);
    // Only a request that declares a body can leave one unread.
    if (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined)
      drainAfterAnswer(res);
    try {
      // The guard reads the Host as sent; routing below never does.
      if (refused(req, res)) return;
      // Routing comes from the request target alone; a Host that is no plain authority
      // gives way to the address the request came in on.
      const host = routableHost(req);
      if (host !== req.headers.host) req.headers.host = host;
      const url = originForm(req.url ?? '/');
      const q = url.indexOf('?');
      if (sim.core.takes(q === -1 ? url : url.slice(0, q))) api(req, res);
      else hono(req, res).catch((error: unknown) => boundary.fail(req, res, error));
    } catch (error) {
      boundary.fail(req, res, error);
    }
  });
  answerClientErrors(server, sim.engine, owed);
  return server;
}

/** Longest a connection stays open after its answer to read the rest of an unread body. */
const DRAIN_TIMEOUT_MS = 30_000;

/**
 * After the answer, reads and discards what is left of the body, up to DRAIN_LIMIT_BYTES,
 * and only then lets the connection close.
 */
function drainAfterAnswer(res: ServerResponse): void {
  // One function shared by every response, not a closure each: this runs for every order.
  res.on('finish', drainRest);
}

/** The 'finish' listener of drainAfterAnswer ('finish' is emitted once). */
function drainRest(this: ServerResponse): void {
  const req = this.req;
  if (req.complete || req.destroyed || bodyReadWhole(req)) return;
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
