/** A recording as the API's response source (`serve --replay FILE`): answered as recorded, or 501. */
import { findApiOperation, isApiPath, withoutApiPrefix } from './api-operations.ts';
import type { SimContext } from './context.ts';
import type { ResponseSource } from './create-app.ts';
import { parsedOrText } from './journal.ts';
import { asSent, bodyOf } from './request-body.ts';
import { servedHeaders } from './upstream-forward.ts';

/** What a replay is asked: one API request (recording/replay-target.ts). */
export type ReplayFetch = (request: Request) => Promise<Response>;

/** Where a replay's responses come from (`serve --replay FILE`). */
export interface ReplayOptions {
  /** Answers one API request from the recording (recording/replay-target.ts). */
  fetch: ReplayFetch;
  /** What is replayed, for /_sim/health (the recording's file). */
  source: string;
}

/**
 * Creates the recording's response source.
 *
 * @example
 *   const source = recordingSource({ fetch: (request) => replay.transport(request, LIVE_CASE, LIVE_CASE), source: 'traffic.jsonl' });
 */
export function recordingSource(replay: ReplayOptions): ResponseSource {
  let replayed = 0;
  return {
    mode: 'replay',
    stats: () => ({ upstream: replay.source, forwarded: replayed, violations: 0, refusedOrders: 0 }),
    takes: isApiPath,
    route(c) {
      const op = findApiOperation(c.req.method, withoutApiPrefix(asSent(c).path));
      if (op) c.set('operation', op.id);
    },
    async respond(c) {
      const method = c.req.method;
      // The Request as it came; a body is read first, bounded as every body is.
      const request =
        method === 'GET' || method === 'HEAD'
          ? c.req.raw
          : new Request(c.req.raw, { body: new Uint8Array(bodyOf(c)) });
      replayed++;
      return answerFromRecording(c, replay.fetch, request);
    },
  };
}

/**
 * The answer a recording gives `request`: journaled, and served with a foreign answer's headers.
 *
 * @example
 *   return answerFromRecording(c, replay.fetch, c.req.raw);
 */
export async function answerFromRecording(
  c: SimContext,
  fetch: ReplayFetch,
  request: Request,
): Promise<Response> {
  const response = await fetch(request);
  const text = await response.text();
  c.set('response', parsedOrText(text));
  const headers = servedHeaders(response.headers);
  // The text is decoded: its encoding no longer holds.
  delete headers['content-encoding'];
  return new Response(text.length > 0 ? text : null, { status: response.status, headers });
}
