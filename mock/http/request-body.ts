/**
 * What a request sent: its target as sent, its body (read once, bounded: over the limit a 413
 * before anything else) and its parameters.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { SimulatorError } from '../engine/index.ts';
import type { SimContext, SimEnv } from './context.ts';
import { bodyTooLarge } from './error-catalogue.ts';

/**
 * The path and query as sent, in origin form: over a socket the request target Node read
 * (an absolute-form target losing its scheme and host), in process the URL's.
 *
 * @example
 *   asSent(c); // { path: '/v1/tron/price', query: 'rentalCount=65000&period=1h' }
 */
export function asSent(c: SimContext): { path: string; query: string | undefined } {
  const sent = c.env?.incoming?.url;
  const raw = sent === undefined ? c.req.url.slice(c.req.url.indexOf('/', 8)) : originForm(sent);
  const q = raw.indexOf('?');
  return q === -1 ? { path: raw, query: undefined } : { path: raw.slice(0, q), query: raw.slice(q + 1) };
}

/**
 * A request target in origin form: routing reads the target alone, never the Host.
 *
 * @example
 *   originForm('http://127.0.0.1:8787/v1/account'); // '/v1/account'
 */
export function originForm(target: string): string {
  if (target.startsWith('/')) return target;
  const authority = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(target);
  if (!authority) return target;
  const rest = target.slice(authority[0].length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}

const EMPTY = new Uint8Array(0);
const UTF8 = new TextDecoder();

/** UTF-8 text of bytes, a malformed sequence replaced: `decodeText(new Uint8Array([0x6f, 0x6b]))` is 'ok'. */
export function decodeText(bytes: Uint8Array): string {
  return UTF8.decode(bytes);
}

/** The request's body as the body-limit step read it: its bytes, empty when none was sent. */
export function bodyOf(c: SimContext): Uint8Array {
  return c.get('body') ?? EMPTY;
}

/** The request's body as text (UTF-8, a malformed sequence replaced). */
export function textOf(c: SimContext): string {
  return decodeText(bodyOf(c));
}

/**
 * The step that reads the body, refusing it past `maxBytes` (413); a GET's or HEAD's is never read.
 *
 * @example
 *   app.use(limitBody(65536));
 */
export function limitBody(maxBytes: number): MiddlewareHandler<SimEnv> {
  return async (c, next) => {
    const length = c.req.header('content-length');
    if (Number(length ?? 0) > maxBytes) throw bodyTooLarge(maxBytes);
    const method = c.req.method;
    // Over a socket, a body is one the request declares; in process, any Request body.
    const declared = c.env?.incoming
      ? (length !== undefined && length !== '0') || c.req.header('transfer-encoding') !== undefined
      : c.req.raw.body !== null;
    if (method !== 'GET' && method !== 'HEAD' && declared) c.set('body', await readBody(c, maxBytes));
    await next();
  };
}

/** The request's body, at most `maxBytes` of it (past that, the 413 rejection). */
async function readBody(c: SimContext, maxBytes: number): Promise<Uint8Array> {
  // A length the socket's request declared bounds what Node's parser delivers.
  if (c.env?.incoming && c.req.header('content-length') !== undefined)
    return new Uint8Array(await c.req.raw.arrayBuffer());
  if (c.req.raw.body === null) return EMPTY;
  const reader = c.req.raw.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    size += value.byteLength;
    if (size > maxBytes) {
      // Let go, not cancelled: cancelling would reset the socket before the client reads the 413.
      reader.releaseLock();
      throw bodyTooLarge(maxBytes);
    }
    chunks.push(value);
  }
}

/**
 * The parameters of query strings and form bodies in one object; one given twice with
 * different values is refused.
 *
 * @example
 *   readParams([['rentalCount=65000&period=1h', 'query string']]); // { rentalCount: '65000', period: '1h' }
 */
export function readParams(
  sources: ReadonlyArray<readonly [text: string | undefined, where: string]>,
): Record<string, string> {
  const params = new Map<string, string>();
  for (const [text, where] of sources) {
    for (const [name, value] of new URLSearchParams(text ?? '')) {
      const seen = params.get(name);
      if (seen !== undefined && seen !== value) {
        throw new SimulatorError(
          'bodyInvalid',
          `Parameter '${name}' is given more than once with different values ('${seen}' and '${value}' in the ${where}); send it once.`,
        );
      }
      params.set(name, value);
    }
  }
  return Object.fromEntries(params);
}

/** The parameters of a control-plane request's query string (readParams). */
export function readQuery(c: Context): Record<string, string> {
  return readParams([[new URL(c.req.url).search.slice(1), 'query string']]);
}

/** How deep a JSON body may nest before anything recurses over it. */
export const MAX_JSON_DEPTH = 32;

// curl -d sends form or text types; the body is JSON either way.
const JSON_READABLE = new Set(['application/json', 'text/plain', 'application/x-www-form-urlencoded', '']);

/** Reads a JSON body of the control plane; an empty body reads as `{}`. Duplicate fields and unsafe numbers are refused. */
export async function readJsonBody(c: SimContext): Promise<unknown> {
  const text = textOf(c);
  if (text.trim().length === 0) return {};
  const type = c.req.header('content-type')?.split(';', 1)[0]!.trim().toLowerCase();
  if (type !== undefined && !JSON_READABLE.has(type)) {
    throw new SimulatorError(
      'contentTypeUnsupported',
      `Unsupported content type '${type}': the control plane takes application/json.`,
    );
  }
  if (nestsTooDeep(text)) {
    throw new SimulatorError(
      'bodyInvalid',
      `The body nests arrays or objects deeper than ${MAX_JSON_DEPTH} levels; send a flatter JSON object.`,
    );
  }
  return parseStrictJson(text);
}

/**
 * Whether a JSON text nests deeper than MAX_JSON_DEPTH, in one pass (JSON.parse has no depth option).
 *
 * @example
 *   nestsTooDeep('{"a":[1,{"b":"[["}]}'); // false
 */
export function nestsTooDeep(text: string): boolean {
  if (text.length <= 2 * MAX_JSON_DEPTH) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '[' || ch === '{') {
      if (++depth > MAX_JSON_DEPTH) return true;
    } else if (ch === ']' || ch === '}') depth--;
  }
  return false;
}

/**
 * Parses a control-plane body; a 400 naming the field on a duplicate field or an unsafe
 * number (JSON.parse merges and rounds them unseen), or text that is not JSON.
 *
 * @example
 *   parseStrictJson('{"trx":"5","trx":"6"}');  // throws: field 'trx' is given twice
 */
export function parseStrictJson(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new SimulatorError(
      'bodyInvalid',
      `The body is not valid JSON (${(error as Error).message}); send a JSON object.`,
    );
  }
  // Each open container: its field names seen (objects), its current field or index, whether a name comes next.
  const stack: { keys?: Set<string>; at: string | number; expectKey: boolean }[] = [];
  const path = (): string => stack.map((f) => f.at).join('.') || '(body)';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    const top = stack.at(-1);
    if (ch === '{') stack.push({ keys: new Set(), at: '', expectKey: true });
    else if (ch === '[') stack.push({ at: 0, expectKey: false });
    else if (ch === '}' || ch === ']') stack.pop();
    else if (ch === ',' && top) {
      if (top.keys) top.expectKey = true;
      else top.at = (top.at as number) + 1;
    } else if (ch === ':') top!.expectKey = false;
    else if (ch === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      if (top?.keys && top.expectKey) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        top.at = key;
        if (top.keys.has(key))
          throw new SimulatorError(
            'bodyInvalid',
            `Field '${path()}' is given more than once; a JSON object takes one value per field: send it once.`,
          );
        top.keys.add(key);
      }
      i = end;
    } else if (ch === '-' || (ch >= '0' && ch <= '9')) {
      let end = i + 1;
      while (end < text.length && /[-+.eE0-9]/.test(text[end]!)) end++;
      const raw = text.slice(i, end);
      if (Math.abs(Number(raw)) > Number.MAX_SAFE_INTEGER)
        throw new SimulatorError(
          'parameterInvalid',
          `Field '${path()}' is ${raw}, beyond ${Number.MAX_SAFE_INTEGER}, the largest integer a JSON number keeps exactly; send a smaller number.`,
        );
      i = end - 1;
    }
  }
  return value;
}
