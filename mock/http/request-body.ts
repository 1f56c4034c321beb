/**
 * A request's body, read once and bounded by the simulator's body limit, before any step
 * that needs it (an order's form, a control-plane JSON body, the upstream, a replay, the
 * journal): a body over the limit is refused before anything else (413), a declared one
 * before a byte of it is read, one that grows past it while it is read then.
 */
import type { MiddlewareHandler } from 'hono';
import { bodyTooLarge } from './error-catalogue.ts';
import type { SimContext, SimEnv } from './context.ts';
import { decodeText } from './decode-text.ts';

const EMPTY = new Uint8Array(0);

/**
 * The request's body as the body-limit step read it: its bytes, empty when none was sent
 * (or its method has none).
 *
 * @example
 *   const bytes = bodyOf(c);
 */
export function bodyOf(c: SimContext): Uint8Array {
  return c.get('body') ?? EMPTY;
}

/**
 * The request's body as text (UTF-8, a malformed sequence replaced).
 *
 * @example
 *   const text = textOf(c);
 */
export function textOf(c: SimContext): string {
  return decodeText(bodyOf(c));
}

/**
 * The step that reads the body of a request whose method has one, refusing it past
 * `maxBytes` (413) whatever else is wrong with the request: every oversized body gets the
 * one answer. A declared length over the limit is refused whatever the method; a GET's or
 * HEAD's body is never read (the Node server drains it).
 *
 * @example
 *   app.use(limitBody(65536));
 */
export function limitBody(maxBytes: number): MiddlewareHandler<SimEnv> {
  return (c, next) => {
    if (Number(c.req.header('content-length') ?? 0) > maxBytes) throw bodyTooLarge(maxBytes);
    const method = c.req.method;
    if (method === 'GET' || method === 'HEAD' || !mayHaveBody(c)) return next();
    return readBody(c, maxBytes).then(next);
  };
}

/** The request's body, at most `maxBytes` of it (past that, the 413 rejection), kept on the context. */
async function readBody(c: SimContext, maxBytes: number): Promise<void> {
  let bytes: Uint8Array = EMPTY;
  // A length the socket's request declared bounds what Node's parser delivers (limitBody
  // checked it): @hono/node-server reads that straight off the socket.
  if (c.env?.incoming && c.req.header('content-length') !== undefined)
    bytes = new Uint8Array(await c.req.raw.arrayBuffer());
  else if (c.req.raw.body !== null) {
    const reader = c.req.raw.body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        // Let go, not cancelled: cancelling would reset the socket before the client reads
        // the 413; the Node server drains the rest after the answer.
        reader.releaseLock();
        throw bodyTooLarge(maxBytes);
      }
      chunks.push(value);
    }
    bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  }
  c.set('body', bytes);
}

/** Whether a request may carry a body: over a socket, one it declares; in process, any Request body. */
function mayHaveBody(c: SimContext): boolean {
  if (!c.env?.incoming) return c.req.raw.body !== null;
  const length = c.req.header('content-length');
  return (length !== undefined && length !== '0') || c.req.header('transfer-encoding') !== undefined;
}
