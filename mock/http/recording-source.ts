/**
 * A recording as the API's answer source (`serve --replay FILE`): every request under the
 * API's /v1 goes to the replay, which answers what was recorded for the same request (the
 * recorded unknown path and wrong method included) and 501 for what it never saw. Nothing
 * is spent and nothing goes to a network.
 */
import { findApiOperation, withoutApiPrefix } from './api-operations.ts';
import type { CoreAnswer } from './exchange.ts';
import type { AnswerSource } from './request-core.ts';

/** What a replay is asked: one API request, as a WHATWG Request (the recording's own transport). */
export type ReplayFetch = (request: Request) => Promise<Response>;

/** The API's paths, with and without the real service's /api prefix. */
const API_NAMESPACE = /^(\/api)?\/v1\//;
/** The request headers a recorded request is matched on. */
const REPLAYED_HEADERS = ['api-key', 'content-type', 'accept'];

/**
 * Creates the recording's answer source.
 *
 * @example
 *   const source = recordingSource((request) => replay.transport(request, LIVE_CASE, LIVE_CASE));
 */
export function recordingSource(replay: ReplayFetch): AnswerSource<undefined> {
  return {
    mode: 'replay',
    takes: (path) => API_NAMESPACE.test(path),
    route(request, exchange) {
      const op = findApiOperation(request.method, withoutApiPrefix(exchange.path));
      if (op) exchange.operation = op.id;
      return undefined;
    },
    async answer(request, exchange): Promise<CoreAnswer> {
      const headers = new Headers();
      for (const name of REPLAYED_HEADERS) {
        const value = request.header(name);
        if (value !== undefined) headers.set(name, value);
      }
      const method = request.method;
      const body =
        method === 'GET' || method === 'HEAD' || !request.hasBody ? undefined : await request.body();
      const response = await replay(
        new Request(`http://replay.local${request.target}`, {
          method,
          headers,
          ...(body && body.byteLength > 0 ? { body: new Uint8Array(body) } : {}),
        }),
      );
      const text = await response.text();
      const answerHeaders: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        answerHeaders[name] = value;
      });
      try {
        exchange.response = JSON.parse(text);
      } catch {
        exchange.response = text;
      }
      return { status: response.status, headers: answerHeaders, body: text.length > 0 ? text : null };
    },
  };
}
