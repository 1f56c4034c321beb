/**
 * The fetch `serve --upstream` hands the proxy: over Node's http and https clients, it
 * passes a body on as the bytes the upstream sent. Hand-written because the platform's
 * fetch always decodes gzip, deflate and br, and the proxy passes a compressed answer (and
 * one that does not decode) as sent. It covers what the proxy asks: a method, headers, a
 * byte body, an abort signal, no redirects; a status no Response can carry and a body past
 * `maxBodyBytes` are refusals that name them.
 */
import http from 'node:http';
import https from 'node:https';
import { RAW_BODY, UpstreamStatusInvalid, UpstreamTooLarge } from './http/upstream-forward.ts';

/** Statuses whose response has no body (a Response refuses one). */
const NULL_BODY_STATUS = new Set([204, 205, 304]);

export interface NodeFetch {
  (input: RequestInfo | URL, init?: RequestInit): Promise<Response>;
  /** Closes the kept-alive connections (at shutdown). */
  close(): void;
}

/**
 * Creates a fetch with its own kept-alive connections; the body streams as the upstream sends it.
 *
 * @example
 *   const upstreamFetch = createNodeFetch({ maxBodyBytes: 8 * 1024 * 1024 });
 *   createSimulator({ proxy: { upstream: 'https://api.eopen.io', fetch: upstreamFetch } });
 */
export function createNodeFetch(options: { maxBodyBytes?: number } = {}): NodeFetch {
  const maxBodyBytes = options.maxBodyBytes ?? Infinity;
  const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
  const nodeFetch = (async (input: RequestInfo | URL, init: RequestInit = {}) => {
    // A Request (as the recorder of `--record` hands on) is taken apart into the same fields.
    const request = input instanceof Request ? input : undefined;
    const body =
      (init.body as Uint8Array | string | undefined) ??
      (request?.body ? new Uint8Array(await request.arrayBuffer()) : undefined);
    return new Promise<Response>((resolve, reject) => {
      const url = new URL(request?.url ?? String(input));
      const secure = url.protocol === 'https:';
      if (!secure && url.protocol !== 'http:')
        return reject(new TypeError(`fetch: only http and https URLs are supported (got ${url.protocol}).`));
      const signal = init.signal ?? request?.signal;
      const headers: Record<string, string> = {};
      new Headers(init.headers ?? request?.headers).forEach((value, name) => (headers[name] = value));
      const outgoing = (secure ? https : http).request(url, {
        method: init.method ?? request?.method ?? 'GET',
        headers,
        agent: secure ? agents.https : agents.http,
        signal,
      });
      outgoing.on('error', (error: NodeJS.ErrnoException) =>
        reject(
          error.code === 'HPE_INVALID_STATUS'
            ? new UpstreamStatusInvalid(statusOf(error))
            : error.name === 'AbortError'
              ? (signal?.reason ?? error)
              : new TypeError('fetch failed', { cause: error }),
        ),
      );
      outgoing.on('response', (incoming) => {
        const status = incoming.statusCode ?? 0;
        const refuse = (error: Error): void => {
          outgoing.destroy();
          reject(error);
        };
        if (status < 200 || status > 599) return refuse(new UpstreamStatusInvalid(String(status)));
        const declared = Number(incoming.headers['content-length']);
        if (declared > maxBodyBytes) return refuse(new UpstreamTooLarge(maxBodyBytes, declared));
        let received = 0;
        let over = false;
        const stream = new ReadableStream<Uint8Array>({
          start(controller) {
            const fail = (error: Error): void => {
              if (over) return;
              over = true;
              controller.error(error);
              outgoing.destroy();
            };
            incoming.on('data', (chunk: Buffer) => {
              if (over) return;
              received += chunk.byteLength;
              // Cut as soon as it is over: the rest is never read, let alone kept.
              if (received > maxBodyBytes) fail(new UpstreamTooLarge(maxBodyBytes));
              else controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
            });
            incoming.on('end', () => {
              if (over) return;
              over = true;
              controller.close();
            });
            // A connection lost mid-body, as the global fetch reports it.
            incoming.on('error', (error) => fail(new TypeError('fetch failed', { cause: error })));
            incoming.on('close', () => {
              if (!incoming.complete) fail(new TypeError('fetch failed', { cause: lost() }));
            });
          },
          cancel: () => {
            over = true;
            outgoing.destroy();
          },
        });
        const response = new Response(NULL_BODY_STATUS.has(status) ? null : stream, {
          status,
          statusText: incoming.statusMessage ?? '',
          headers: Object.entries(incoming.headersDistinct).flatMap(([name, values]) =>
            (values ?? []).map((value) => [name, value] as [string, string]),
          ),
        });
        Object.defineProperty(response, RAW_BODY, { value: true });
        resolve(response);
      });
      outgoing.end(body);
    });
  }) as NodeFetch;
  nodeFetch.close = () => {
    agents.http.destroy();
    agents.https.destroy();
  };
  return nodeFetch;
}

/** The status as sent, from the status line Node's parser refused (`HTTP/1.1 42 Weird`). */
function statusOf(error: Error & { rawPacket?: Buffer }): string {
  const line = error.rawPacket?.toString('latin1', 0, 64) ?? '';
  return /^HTTP\/\d\.\d +(\S{1,12})/.exec(line)?.[1] ?? 'unreadable';
}

function lost(): Error {
  return Object.assign(new Error('the connection closed before the answer was complete'), {
    code: 'ECONNRESET',
  });
}
