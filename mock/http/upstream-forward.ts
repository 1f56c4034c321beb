/**
 * One call to the upstream of `serve --upstream`: the method, path, query, body and the
 * API-KEY header as the client sent them, to the upstream's base URL, within a timeout.
 * An upstream that cannot be reached or does not answer in time is an error envelope
 * that names it (502 or 504), never a hang.
 */
import { SimulatorError } from '../engine/index.ts';

export interface UpstreamOptions {
  /** The upstream's base URL, e.g. https://api.eopen.io (a path is kept as a prefix). */
  url: string;
  /** How long to wait for the upstream's answer, ms. */
  timeoutMs: number;
  /** Where calls go; a test passes a stand-in. Default: the global fetch. */
  fetch?: typeof fetch | undefined;
}

/** The request headers passed on: what the API reads. Host, Origin and cookies stay here. */
const FORWARDED_REQUEST_HEADERS = ['api-key', 'content-type', 'accept'];
/** The answer's headers passed back: what a client of the API reads. */
const FORWARDED_RESPONSE_HEADERS = ['content-type', 'retry-after'];

export interface UpstreamAnswer {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array<ArrayBuffer>;
}

/**
 * Forwards a request; the path and query are the client's, joined to the upstream's URL.
 *
 * @example
 *   await forwardToUpstream({ url: 'https://api.eopen.io', timeoutMs: 10_000 }, request, undefined);
 */
export async function forwardToUpstream(
  options: UpstreamOptions,
  request: Request,
  body: Uint8Array<ArrayBuffer> | undefined,
  pathAndQuery?: string,
): Promise<UpstreamAnswer> {
  const incoming = new URL(request.url);
  // The target as the client sent it when the caller has it: WHATWG parsing re-encodes a query.
  const target = upstreamUrl(options.url, pathAndQuery ?? incoming.pathname + incoming.search);
  const headers = new Headers();
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = request.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  const call = options.fetch ?? fetch;
  // A controller and a timer rather than AbortSignal.timeout(): that showed in the proxy's
  // profile, and the timer is cleared as soon as the answer is in.
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException(`no answer within ${options.timeoutMs} ms`, 'TimeoutError')),
    options.timeoutMs,
  );
  let response: Response;
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    response = await call(target, {
      method: request.method,
      headers,
      body: body && body.byteLength > 0 ? body : undefined,
      redirect: 'manual',
      signal: controller.signal,
    });
    bytes = new Uint8Array(await response.arrayBuffer());
  } catch (error) {
    throw upstreamError(options, error);
  } finally {
    clearTimeout(timer);
  }
  const out: Record<string, string> = {};
  for (const name of FORWARDED_RESPONSE_HEADERS) {
    const value = response.headers.get(name);
    if (value !== null) out[name] = value;
  }
  return { status: response.status, headers: out, body: bytes };
}

/**
 * The upstream URL of a client's path and query: the upstream's own path is a prefix.
 *
 * @example
 *   upstreamUrl('https://api.eopen.io/', '/api/v1/account'); // 'https://api.eopen.io/api/v1/account'
 */
export function upstreamUrl(base: string, pathAndQuery: string): string {
  return base.replace(/\/+$/, '') + pathAndQuery;
}

function upstreamError(options: UpstreamOptions, error: unknown): SimulatorError {
  const cause = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (cause?.name === 'TimeoutError' || cause?.name === 'AbortError') {
    return new SimulatorError(
      'upstreamTimeout',
      `The upstream ${options.url} did not answer within ${options.timeoutMs} ms (--upstream-timeout); nothing more is known of this request's fate there.`,
    );
  }
  const why = cause?.cause?.code ?? cause?.cause?.message ?? cause?.message ?? String(error);
  return new SimulatorError(
    'upstreamUnreachable',
    `The upstream ${options.url} could not be reached (${why}). Check --upstream and that the service is up.`,
  );
}
