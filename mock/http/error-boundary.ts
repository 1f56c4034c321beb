/**
 * The last line of defence of the Node server: whatever a request's handling throws, the
 * request is answered with the error envelope and the process lives on. The Hono app's
 * `onError` covers what runs inside the app; this covers the Node fast path, the replay of
 * its rejections and the Hono listener around the app, where a throw would otherwise reach
 * Node's event emitter and end the process.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { RequestError } from '@hono/node-server';
import { SimulatorError, type Engine } from '../engine/index.ts';
import { envelopeTime } from './envelope.ts';
import type { Journal } from './journal.ts';

export interface BoundaryContext {
  engine: Engine;
  journal: Journal;
  /** Reports an unexpected error (a 500 is a simulator bug): the one log line. */
  onUnexpectedError?: ((error: unknown) => void) | undefined;
}

/** The journal status of a request whose client went away before it was read (nginx's 499). */
export const CLIENT_CLOSED_STATUS = 499;
/** What the journal says of such a request. */
export const CLIENT_CLOSED_NOTE =
  'The client closed the connection before the request was read; nothing was done.';

/**
 * The SimulatorError an unexpected error is answered with: the one wording of a 500.
 *
 * @example
 *   unexpectedError(new RangeError('Invalid time value')).code; // 50000
 */
export function unexpectedError(error: unknown): SimulatorError {
  let detail: string;
  try {
    detail = error instanceof Error ? error.message : String(error);
  } catch {
    detail = 'unprintable error';
  }
  return SimulatorError.answer(
    'internal',
    `Unexpected simulator error: ${detail.replace(/\.+$/, '')}. This is a simulator bug; please report it.`,
  );
}

/**
 * The error envelope's JSON text for `error`.
 *
 * @example
 *   errorEnvelopeText(engine, SimulatorError.answer('notFound', 'No such path.')); // '{"code":40400,"msg":"No such path.","time":"1741801809","data":null}'
 */
export function errorEnvelopeText(engine: Engine, error: SimulatorError): string {
  let time: string;
  try {
    time = envelopeTime(engine);
  } catch {
    // A clock that cannot be read must not stop the error from being told.
    time = String(Math.floor(Date.now() / 1000));
  }
  return JSON.stringify({ code: error.code, msg: error.message, time, data: null });
}

/**
 * Whether the request's client went away before its body was read: an aborted upload is
 * the client's doing, not a simulator bug.
 *
 * @example
 *   if (clientClosed(req)) return; // nothing to answer, nothing to report
 */
export function clientClosed(req: IncomingMessage | undefined): boolean {
  if (req === undefined) return false;
  return (
    (!req.complete && (req.destroyed || req.socket?.destroyed === true)) ||
    (req as { aborted?: boolean }).aborted === true
  );
}

export interface ErrorBoundary {
  /** Answers a request whose handling threw with the 500 envelope, reports it once; never throws. */
  fail(req: IncomingMessage, res: ServerResponse, error: unknown): void;
  /** The envelope for an error of @hono/node-server's listener (its `errorHandler`). */
  response(error: unknown, req?: IncomingMessage): Response;
}

/**
 * Creates the boundary of one simulator.
 *
 * @example
 *   const boundary = createErrorBoundary(sim);
 *   try { handle(req, res); } catch (error) { boundary.fail(req, res, error); }
 */
export function createErrorBoundary(ctx: BoundaryContext): ErrorBoundary {
  const report = (error: unknown): void => {
    try {
      ctx.onUnexpectedError?.(error);
    } catch {
      // A failing logger must not turn one bug into two.
    }
  };
  const journal = (
    req: IncomingMessage | undefined,
    status: number,
    responseText: string | undefined,
  ): void => {
    try {
      const url = req?.url ?? '/';
      const q = url.indexOf('?');
      const entry = {
        at: ctx.engine.clock.now(),
        method: req?.method ?? 'GET',
        path: q === -1 ? url : url.slice(0, q),
        status,
        durationMs: 0,
      };
      ctx.journal.record(
        status === CLIENT_CLOSED_STATUS
          ? { ...entry, response: { note: CLIENT_CLOSED_NOTE } }
          : { ...entry, ...(responseText === undefined ? {} : { responseText }) },
      );
    } catch {
      // The answer matters more than its journal entry.
    }
  };
  return {
    fail(req, res, error) {
      if (clientClosed(req) || res.destroyed) {
        journal(req, CLIENT_CLOSED_STATUS, undefined);
        res.destroy();
        return;
      }
      report(error);
      try {
        if (res.headersSent) {
          // Half an answer is out: the only honest end is to cut it.
          res.destroy();
          return;
        }
        const text = errorEnvelopeText(ctx.engine, unexpectedError(error));
        res.writeHead(500, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
        res.end(text);
        journal(req, 500, text);
      } catch {
        res.destroy();
      }
    },
    response(error, req) {
      let simError: SimulatorError;
      if (error instanceof RequestError) {
        simError = SimulatorError.answer(
          'bodyInvalid',
          `The request could not be read (${error.message}); send an origin-form target such as /v1/account.`,
        );
      } else if (error instanceof SimulatorError) {
        simError = error;
      } else {
        report(error);
        simError = unexpectedError(error);
      }
      const text = errorEnvelopeText(ctx.engine, simError);
      journal(req, simError.status, text);
      return new Response(text, {
        status: simError.status,
        headers: { 'content-type': 'application/json', ...simError.headers },
      });
    },
  };
}
