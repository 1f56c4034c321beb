/**
 * The request core behind Node's HTTP server: a request becomes the core's plain request
 * straight from the IncomingMessage, and the core's answer is written straight to the
 * ServerResponse. No WHATWG Request or Response is built on this path: building them was
 * most of a request's cost in the CPU profile (bench/README.md, "Figures behind the
 * code"). It only translates; every step of the request is the core's.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SimulatorError } from '../engine/index.ts';
import type { ErrorBoundary } from './error-boundary.ts';
import type { CoreRequest } from './exchange.ts';
import { bodyBytes, cutConnection, dripPlan } from './fault-delivery.ts';
import { ClientClosed, type RequestCore } from './request-core.ts';

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
  return (req, res) => {
    const headers = req.headers;
    let body: Promise<Uint8Array> | undefined;
    const request: CoreRequest = {
      method: req.method ?? 'GET',
      target: originForm(req.url ?? '/'),
      header: (name) => {
        const value = headers[name];
        return Array.isArray(value) ? value.join(', ') : value;
      },
      hasBody: headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined,
      body: () => (body ??= readBody(req, maxBodyBytes)),
      connection: req.socket,
      started: performance.now(),
    };
    core.handle(request).then(
      (answer) => {
        if (answer.dropped) {
          cutConnection(req.socket, answer.cut);
          return;
        }
        // A copy: a source may share one headers object between its answers.
        const out: Record<string, string> = { ...answer.headers };
        const payload = answer.body;
        if (answer.drip && payload !== null) {
          drip(res, answer.status, out, bodyBytes(payload), answer.drip);
          return;
        }
        out['content-length'] =
          payload === null
            ? '0'
            : String(typeof payload === 'string' ? Buffer.byteLength(payload) : payload.byteLength);
        res.writeHead(answer.status, out);
        res.end(payload ?? undefined);
      },
      (error: unknown) => boundary.fail(req, res, error),
    );
  };
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

/**
 * The body, read up to `max` bytes: a declared or sent body past it is the 413 rejection
 * (what is left of it the server drains after the answer); a client gone mid-body is a
 * ClientClosed, journaled as such.
 */
function readBody(req: IncomingMessage, max: number): Promise<Uint8Array> {
  const tooLarge = (): SimulatorError =>
    new SimulatorError('bodyTooLarge', `The request body is larger than ${max} bytes; send a smaller body.`);
  if (Number(req.headers['content-length'] ?? 0) > max) return Promise.reject(tooLarge());
  if (req.complete) return Promise.resolve(new Uint8Array(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > max) {
        stop();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      stop();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    };
    const onGone = (): void => {
      stop();
      reject(new ClientClosed());
    };
    const stop = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onGone);
      req.off('aborted', onGone);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onGone);
    req.on('aborted', onGone);
  });
}
