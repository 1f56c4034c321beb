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
 *
 * Where it departs from the fetch standard, on purpose: the body is the bytes as sent (a
 * gzip answer is not decompressed, the Response is marked RAW_BODY), so the proxy passes
 * it on as it came; and a status no Response can carry is a rejection that names it.
 */
import http from 'node:http';
import https from 'node:https';
import { urlToHttpOptions } from 'node:url';
import {
  forwardedResponseHeader,
  RAW_BODY,
  RAW_EXCHANGE,
  UpstreamStatusInvalid,
  UpstreamTooLarge,
  joinChunks,
  upstreamTimeout,
  type RawExchange,
  type UpstreamAnswer,
} from './http/upstream-forward.ts';

/** A path and query that WHATWG URL keeps byte for byte (no character it percent-encodes). */
const PLAIN_PATH = /^\/[A-Za-z0-9\-._~!$&()*+,;=:@/?%]*$/;
/** A `.` or `..` segment (also spelt `%2e`), which URL resolves away. */
const DOT_SEGMENT = /\/(?:\.|%2e)/i;

/** Status codes whose answer has no body (a Response refuses one). */
const NULL_BODY_STATUS = new Set([204, 205, 304]);

export interface NodeFetch {
  (input: RequestInfo | URL, init?: RequestInit): Promise<Response>;
  /** The same call with plain fields in and out, as the proxy asks it (upstream-forward.ts). */
  [RAW_EXCHANGE]: RawExchange;
  /** Closes the kept-alive connections (at shutdown). */
  close(): void;
}

export interface NodeFetchOptions {
  /** Connections kept per origin. Default 256. */
  maxSockets?: number;
  /**
   * Largest answer body, bytes: a Content-Length over it rejects before anything is read,
   * a body that grows past it fails (UpstreamTooLarge) and its connection is cut. Default:
   * no limit of its own (the proxy caps what it reads; this also bounds what a wrapper of
   * this fetch, such as the recorder of `--record`, reads first).
   */
  maxBodyBytes?: number;
}

/**
 * Creates a fetch with its own connection pools. The Response arrives with the headers;
 * its body streams as the upstream sends it.
 *
 * @example
 *   const upstreamFetch = createNodeFetch({ maxBodyBytes: 8 * 1024 * 1024 });
 *   createSimulator({ proxy: { upstream: 'https://api.eopen.io', fetch: upstreamFetch } });
 */
export function createNodeFetch(options: NodeFetchOptions = {}): NodeFetch {
  const maxSockets = options.maxSockets ?? 256;
  const maxBodyBytes = options.maxBodyBytes ?? Infinity;
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
      // Before the answer, a failure rejects the promise; after it, it fails the body.
      let answered = false;
      let failBody: ((reason: unknown) => void) | undefined;
      const outgoing = client.request(
        url,
        { method, headers, agent: agents[url.protocol as 'http:' | 'https:'] },
        (incoming) => {
          const status = incoming.statusCode ?? 0;
          if (status < 200 || status > 599) return refuse(new UpstreamStatusInvalid(String(status)));
          const declared = Number(incoming.headers['content-length']);
          if (declared > maxBodyBytes) return refuse(new UpstreamTooLarge(maxBodyBytes, declared));
          const answerHeaders = new Headers();
          const raw = incoming.rawHeaders;
          for (let i = 0; i + 1 < raw.length; i += 2) answerHeaders.append(raw[i]!, raw[i + 1]!);
          const bodiless = NULL_BODY_STATUS.has(status);
          const response = new Response(bodiless ? null : bodyStream(incoming), {
            status,
            statusText: incoming.statusMessage ?? '',
            headers: answerHeaders,
          });
          Object.defineProperty(response, RAW_BODY, { value: true });
          answered = true;
          if (bodiless) {
            incoming.resume();
            stopListening();
          }
          resolve(response);
        },
      );

      /** The body as it arrives: paused while unread, cut at maxBodyBytes, destroyed when cancelled. */
      function bodyStream(incoming: http.IncomingMessage): ReadableStream<Uint8Array> {
        let received = 0;
        let over = false;
        return new ReadableStream<Uint8Array>({
          start(controller) {
            failBody = (reason) => {
              if (over) return;
              over = true;
              stopListening();
              controller.error(reason);
            };
            incoming.on('data', (chunk: Buffer) => {
              if (over) return;
              received += chunk.byteLength;
              if (received > maxBodyBytes) {
                // Cut as soon as it is over: the rest is never read, let alone kept.
                outgoing.destroy();
                failBody!(new UpstreamTooLarge(maxBodyBytes));
                return;
              }
              controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
              if ((controller.desiredSize ?? 1) <= 0) incoming.pause();
            });
            incoming.on('end', () => {
              if (over) return;
              over = true;
              stopListening();
              controller.close();
            });
            // A connection lost mid-body (a reset, the upstream gone), as the global fetch reports it.
            const lost = (error?: Error): void =>
              failBody!(new TypeError('fetch failed', { cause: error ?? connectionLost() }));
            incoming.on('error', lost);
            incoming.on('close', () => {
              if (!incoming.complete) lost();
            });
          },
          pull() {
            incoming.resume();
          },
          cancel() {
            // Nobody reads the rest: the connection goes rather than back to the pool mid-answer.
            over = true;
            stopListening();
            outgoing.destroy();
          },
        });
      }

      function refuse(error: unknown): void {
        outgoing.destroy();
        stopListening();
        reject(error);
      }
      function stopListening(): void {
        signal?.removeEventListener('abort', abort);
      }
      function abort(): void {
        outgoing.destroy();
        if (answered) failBody?.(signal!.reason);
        else refuse(signal!.reason);
      }
      signal?.addEventListener('abort', abort, { once: true });
      outgoing.on('error', (error: NodeJS.ErrnoException) => {
        if (signal?.aborted || answered) return;
        refuse(
          error.code === 'HPE_INVALID_STATUS'
            ? new UpstreamStatusInvalid(statusOf(error))
            : new TypeError('fetch failed', { cause: error }),
        );
      });
      outgoing.end(body);
    });
  }) as NodeFetch;
  // The upstream's origin is the same on every exchange: parsed once, not per request
  // (the URL parse showed in the proxy's profile, ~3 % of its CPU).
  let lastOrigin = '';
  let lastParsed: http.RequestOptions = {};
  const requestOptions = (
    url: string,
    method: string,
    headers: Record<string, string>,
    agent: http.Agent,
  ): http.RequestOptions => {
    const slash = url.indexOf('/', url.indexOf('//') + 2);
    const path = slash === -1 ? '/' : url.slice(slash);
    // Only a path that URL would leave as it is skips the parse: anything it would
    // percent-encode, or a dot segment it would resolve, goes through it as before.
    if (!PLAIN_PATH.test(path) || DOT_SEGMENT.test(path))
      return { ...urlToHttpOptions(new URL(url)), method, headers, agent };
    const origin = slash === -1 ? url : url.slice(0, slash);
    if (origin !== lastOrigin) {
      const { protocol, hostname, port, auth } = urlToHttpOptions(new URL(origin));
      lastParsed = { protocol, hostname, port, auth };
      lastOrigin = origin;
    }
    // One literal of one shape rather than spreads: the spreads of the origin's fields and
    // of the request's showed in the proxy's profile (~1 µs of its ~10 of JavaScript).
    const { protocol, hostname, port, auth } = lastParsed;
    return { protocol, hostname, port, auth, path, method, headers, agent };
  };
  nodeFetch[RAW_EXCHANGE] = (exchange) => {
    const https_ = exchange.url.startsWith('https:');
    if (!https_ && !exchange.url.startsWith('http:'))
      return Promise.reject(
        new TypeError(`fetch: only http and https URLs are supported (got ${exchange.url}).`),
      );
    const cap = Math.min(maxBodyBytes, exchange.maxBytes);
    const headers = exchange.body
      ? { ...exchange.headers, 'content-length': String(exchange.body.byteLength) }
      : exchange.headers;
    return new Promise<UpstreamAnswer>((resolve, reject) => {
      let settled = false;
      // Armed once the request exists: a request Node refuses at once (a header it will not
      // send) rejects here, and no timer is left to destroy a request that never was.
      let timer: NodeJS.Timeout | undefined = undefined;
      const outgoing = (https_ ? https : http).request(
        requestOptions(exchange.url, exchange.method, headers, agents[https_ ? 'https:' : 'http:']),
        (incoming) => {
          const status = incoming.statusCode ?? 0;
          if (status < 200 || status > 599) return fail(new UpstreamStatusInvalid(String(status)));
          const declared = Number(incoming.headers['content-length']);
          if (declared > cap) return fail(new UpstreamTooLarge(cap, declared));
          const chunks: Buffer[] = [];
          let received = 0;
          incoming.on('data', (chunk: Buffer) => {
            received += chunk.byteLength;
            // Cut as soon as it is over: the rest is never read, let alone kept.
            if (received > cap) fail(new UpstreamTooLarge(cap));
            else chunks.push(chunk);
          });
          incoming.on('end', () => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            const answerHeaders: Record<string, string> = {};
            const raw = incoming.rawHeaders;
            for (let i = 0; i + 1 < raw.length; i += 2) {
              const name = raw[i]!.toLowerCase();
              if (!forwardedResponseHeader(name)) continue;
              const seen = answerHeaders[name];
              answerHeaders[name] = seen === undefined ? raw[i + 1]! : `${seen}, ${raw[i + 1]!}`;
            }
            // Joined a few megabytes per turn: a large answer copied at once would stall every other request.
            joinChunks(chunks, received).then(
              (body) => resolve({ status, headers: answerHeaders, body }),
              reject,
            );
          });
          // A connection lost mid-body (a reset, the upstream gone), as the global fetch reports it.
          incoming.on('error', (error) => fail(new TypeError('fetch failed', { cause: error })));
          incoming.on('close', () => {
            if (!incoming.complete) fail(new TypeError('fetch failed', { cause: connectionLost() }));
          });
        },
      );
      function fail(error: unknown): void {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        outgoing.destroy();
        reject(error);
      }
      timer = setTimeout(() => fail(upstreamTimeout(exchange.timeoutMs)), exchange.timeoutMs);
      outgoing.on('error', (error: NodeJS.ErrnoException) =>
        fail(
          error.code === 'HPE_INVALID_STATUS'
            ? new UpstreamStatusInvalid(statusOf(error))
            : new TypeError('fetch failed', { cause: error }),
        ),
      );
      outgoing.end(exchange.body);
    });
  };
  nodeFetch.close = () => {
    agents['http:'].destroy();
    agents['https:'].destroy();
  };
  return nodeFetch;
}

/** The status as sent, from the status line Node's parser refused (`HTTP/1.1 42 Weird`). */
function statusOf(error: Error & { rawPacket?: Buffer }): string {
  const line = error.rawPacket?.toString('latin1', 0, 64) ?? '';
  return /^HTTP\/\d\.\d +(\S{1,12})/.exec(line)?.[1] ?? 'unreadable';
}

function connectionLost(): Error {
  return Object.assign(new Error('the connection closed before the answer was complete'), {
    code: 'ECONNRESET',
  });
}

/** The body as bytes: a byte array as it is (what the proxy sends), anything else through a Response, which reads every BodyInit. */
async function bodyBytes(body: BodyInit | ArrayBuffer | undefined | null): Promise<Uint8Array | undefined> {
  if (body === undefined || body === null) return undefined;
  if (body instanceof Uint8Array) return body;
  return new Uint8Array(await new Response(body).arrayBuffer());
}
