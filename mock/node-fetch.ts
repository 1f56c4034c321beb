/**
 * A `fetch` over Node's own http and https clients, with kept-alive connections: what
 * `serve --upstream` hands the proxy instead of the global fetch. The proxy's core takes
 * any fetch (the swap point tests and the recorder use); on Node this one does the same
 * work with less per-request machinery than undici's fetch, which showed large in the
 * proxy's profile (bench/README.md, "Figures behind the code").
 *
 * Written by hand: it covers only what the proxy asks of fetch (a method, headers, a byte
 * body, an abort signal, redirects left to the caller). The maintained alternative,
 * undici's own `request` (undici 7, Node >= 20.18), was measured in its place and served
 * no more (bench/README.md), so it would be a dependency for nothing.
 */
import http from 'node:http';
import https from 'node:https';

/** Status codes whose answer has no body (a Response refuses one). */
const NULL_BODY_STATUS = new Set([101, 204, 205, 304]);

export interface NodeFetch {
  (input: RequestInfo | URL, init?: RequestInit): Promise<Response>;
  /** Closes the kept-alive connections (at shutdown). */
  close(): void;
}

/**
 * Creates a fetch with its own connection pools.
 *
 * @example
 *   const upstreamFetch = createNodeFetch();
 *   createSimulator({ proxy: { upstream: 'https://api.eopen.io', fetch: upstreamFetch } });
 */
export function createNodeFetch(options: { maxSockets?: number } = {}): NodeFetch {
  const maxSockets = options.maxSockets ?? 256;
  const agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets }),
    'https:': new https.Agent({ keepAlive: true, maxSockets }),
  };

  const nodeFetch = (async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const request = input instanceof Request ? input : undefined;
    const url = new URL(request ? request.url : String(input));
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new TypeError(`fetch: only http and https URLs are supported (got ${url.protocol}).`);
    const method = (init.method ?? request?.method ?? 'GET').toUpperCase();
    const headers: Record<string, string> = {};
    new Headers(init.headers ?? request?.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const body = await bodyBytes(
      init.body ?? (request && request.body ? await request.arrayBuffer() : undefined),
    );
    if (body) headers['content-length'] = String(body.byteLength);
    const signal = init.signal ?? request?.signal ?? undefined;
    signal?.throwIfAborted();

    return new Promise<Response>((resolve, reject) => {
      const client = url.protocol === 'https:' ? https : http;
      const outgoing = client.request(
        url,
        { method, headers, agent: agents[url.protocol as 'http:' | 'https:'] },
        (incoming) => {
          const chunks: Buffer[] = [];
          incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
          incoming.on('error', fail);
          incoming.on('end', () => {
            signal?.removeEventListener('abort', abort);
            const status = incoming.statusCode ?? 502;
            const answerHeaders = new Headers();
            const raw = incoming.rawHeaders;
            for (let i = 0; i + 1 < raw.length; i += 2) answerHeaders.append(raw[i]!, raw[i + 1]!);
            const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
            try {
              resolve(
                new Response(
                  NULL_BODY_STATUS.has(status)
                    ? null
                    : new Uint8Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength),
                  { status, statusText: incoming.statusMessage ?? '', headers: answerHeaders },
                ),
              );
            } catch (error) {
              // A status a Response cannot carry (below 200 or above 599).
              reject(
                new TypeError(`fetch: the answer's status ${status} cannot be represented`, { cause: error }),
              );
            }
          });
        },
      );
      function fail(error: unknown): void {
        signal?.removeEventListener('abort', abort);
        reject(new TypeError('fetch failed', { cause: error }));
      }
      function abort(): void {
        outgoing.destroy();
        reject(signal!.reason);
      }
      signal?.addEventListener('abort', abort, { once: true });
      outgoing.on('error', (error) => {
        if (!signal?.aborted) fail(error);
      });
      outgoing.end(body);
    });
  }) as NodeFetch;
  nodeFetch.close = () => {
    agents['http:'].destroy();
    agents['https:'].destroy();
  };
  return nodeFetch;
}

/** The body as bytes: a byte array as it is (what the proxy sends), anything else through a Response, which reads every BodyInit. */
async function bodyBytes(body: BodyInit | ArrayBuffer | undefined | null): Promise<Uint8Array | undefined> {
  if (body === undefined || body === null) return undefined;
  if (body instanceof Uint8Array) return body;
  return new Uint8Array(await new Response(body).arrayBuffer());
}
