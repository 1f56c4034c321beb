/** Tests over a real socket: headers fetch() will not set (Host, Origin), and raw bytes. */
import { request as httpRequest, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { createSimulatorServer, type RequestGuardOptions } from '../node-server.ts';
import type { Simulator } from '../simulator.ts';

export interface RawReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  // Envelopes are read field by field.
  body: any;
}

export interface Listening {
  port: number;
  /** `127.0.0.1:<port>`, the Host a local client sends. */
  host: string;
  close(): Promise<void>;
}

/** Serves `sim` on a free loopback port: `const served = await listen(sim); await served.close();`. */
export async function listen(sim: Simulator, options: RequestGuardOptions = {}): Promise<Listening> {
  const server: Server = createSimulatorServer(sim, options);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    host: `127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * Sends one request with exactly these headers (`host` replaces the real one); an event stream is
 * read to its first bytes: `await rawRequest(port, 'GET', '/v1/account', { host: 'evil.example' })`.
 */
export function rawRequest(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<RawReply> {
  // Node's client frames no body of a DELETE unless told its length.
  const framed =
    body === undefined || 'content-length' in headers || 'transfer-encoding' in headers
      ? headers
      : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, method, path, headers: framed, agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        const done = (): void =>
          resolve({ status: res.statusCode!, headers: res.headers, text, body: parseJson(text) });
        if (String(res.headers['content-type']).startsWith('text/event-stream')) {
          res.once('data', (chunk: string) => {
            text = chunk;
            res.destroy();
            done();
          });
          return;
        }
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', done);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The body read as JSON, when it is JSON. */
  json: any;
}

/**
 * Writes `data` on a fresh connection, half-closes it (unless `keepOpen`), and collects every byte,
 * the socket error and the responses until the server closes or `waitMs` passes: `exchange(port, text)`.
 */
export function exchange(
  port: number,
  data: string | Buffer | (string | Buffer)[],
  options: { keepOpen?: boolean; waitMs?: number } = {},
): Promise<{ text: string; error?: string; responses: RawResponse[] }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let error: string | undefined;
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('utf8');
      resolve({ text, ...(error ? { error } : {}), responses: parseResponses(text) });
    };
    const timer = setTimeout(done, options.waitMs ?? 10_000);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (e: NodeJS.ErrnoException) => {
      error = e.code ?? e.message;
    });
    socket.once('close', done);
    for (const part of Array.isArray(data) ? data : [data]) socket.write(part);
    if (!options.keepOpen) socket.end();
  });
}

/** A request's text: `head` (no blank line), then `body` with its Content-Length unless the head sets one. */
export function request(head: string, body = ''): string {
  const framed =
    /\r\n(content-length|transfer-encoding):/i.test(head) || body === ''
      ? head
      : `${head}\r\nContent-Length: ${Buffer.byteLength(body)}`;
  return `${framed}\r\n\r\n${body}`;
}

/** Splits the bytes of one connection into its HTTP/1.1 responses (Content-Length or chunked bodies). */
export function parseResponses(text: string): RawResponse[] {
  const out: RawResponse[] = [];
  let rest = text;
  while (rest.startsWith('HTTP/1.')) {
    const end = rest.indexOf('\r\n\r\n');
    if (end === -1) break;
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    rest = rest.slice(end + 4);
    let body = '';
    if (headers['content-length'] !== undefined) {
      const length = Number(headers['content-length']);
      body = Buffer.from(rest).subarray(0, length).toString('utf8');
      rest = Buffer.from(rest).subarray(length).toString('utf8');
    } else if (headers['transfer-encoding'] === 'chunked') {
      for (;;) {
        const lineEnd = rest.indexOf('\r\n');
        const size = parseInt(rest.slice(0, lineEnd), 16);
        rest = rest.slice(lineEnd + 2);
        if (!size) {
          rest = rest.slice(2);
          break;
        }
        body += rest.slice(0, size);
        rest = rest.slice(size + 2);
      }
    }
    out.push({ status: Number(statusLine!.split(' ')[1]), headers, body, json: parseJson(body) });
  }
  return out;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
