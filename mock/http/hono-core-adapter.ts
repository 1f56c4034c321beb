/**
 * The request core behind the Hono app: what `sim.fetch`, `app.request` and the MSW
 * handlers reach. It only translates, a WHATWG Request into the core's plain request and
 * the core's answer into a Response; every step of the request is the core's.
 */
import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import { SimulatorError } from '../engine/index.ts';
import type { SimEnv } from './context.ts';
import { DROPPED_HEADER, DROPPED_HOW_HEADER, type CoreRequest } from './exchange.ts';
import { bodyBytes, cutConnection, dripStream } from './fault-delivery.ts';
import type { RequestCore } from './request-core.ts';

/**
 * The Response of the core to the request on `c`.
 *
 * @example
 *   app.use('*', (c, next) => (core.takes(c.req.path) ? coreAnswerOf(c, core, 65536) : next()));
 */
export async function coreAnswerOf(
  c: Context<SimEnv>,
  core: RequestCore,
  maxBodyBytes: number,
): Promise<Response> {
  const raw = c.req.raw;
  const url = new URL(raw.url);
  // Behind @hono/node-server the target as sent; in process, the URL's (already normalised).
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  let body: Promise<Uint8Array> | undefined;
  let bytes: Uint8Array | undefined;
  const request: CoreRequest = {
    method: raw.method,
    target: incoming?.url?.startsWith('/') ? incoming.url : url.pathname + url.search,
    header: (name) => raw.headers.get(name) ?? undefined,
    hasBody: raw.body !== null,
    body: () => (body ??= readLimited(raw, maxBodyBytes).then((read) => (bytes = read))),
    bodyIfRead: () => bytes,
    started: performance.now(),
  };
  const answer = await core.handle(request);
  if (answer.dropped) {
    if (incoming?.socket) cutConnection(incoming.socket, answer.cut);
    // Never sent over a socket (it is gone); in process, the simulator's fetch rejects on it.
    const how = answer.cut === 'reset' ? 'reset' : answer.cut ? 'garbage' : 'close';
    return new Response(null, {
      status: 599,
      headers: { [DROPPED_HEADER]: answer.dropped, [DROPPED_HOW_HEADER]: how },
    });
  }
  if (answer.drip && answer.body !== null)
    return new Response(dripStream(bodyBytes(answer.body), answer.drip.chunks, answer.drip.ms), {
      status: answer.status,
      headers: answer.headers,
    });
  // An empty text is no body: a WHATWG Response would give it a text/plain type the answer never had.
  const content = answer.body === '' ? null : (answer.body as BodyInit | null);
  return new Response(content, { status: answer.status, headers: answer.headers });
}

/** A request's body, read up to `max` bytes; past it, the 413 rejection. */
async function readLimited(request: Request, max: number): Promise<Uint8Array> {
  const tooLarge = (): SimulatorError =>
    SimulatorError.answer(
      'bodyTooLarge',
      `The request body is larger than ${max} bytes; send a smaller body.`,
    );
  if (Number(request.headers.get('content-length') ?? 0) > max) throw tooLarge();
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}
