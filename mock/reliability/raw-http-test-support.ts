/**
 * Helpers for tests that talk to a simulator's Node server over a raw TCP socket: what
 * fetch cannot send (a malformed Host, garbage, pipelined requests, half a body) and what
 * it hides (a reset, a connection closed with no answer).
 */
import { connect } from 'node:net';
import type { RequestGuardOptions } from '../http/request-guard.ts';
import { listen, type Listening } from '../test-support/socket-test-support.ts';
import type { Simulator } from '../simulator.ts';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The body read as JSON, when it is JSON. */
  json: any;
}

export interface Transcript {
  /** Every byte received, as text. */
  text: string;
  /** The socket error seen (ECONNRESET, …), if any. */
  error?: string;
  responses: RawResponse[];
}

/**
 * Serves `sim` with the Node server on a free loopback port. The Host check is off unless
 * `options` say otherwise: what these tests pin must hold whatever that check allows.
 *
 * @example
 *   const { port, close } = await serve(createSimulator());
 */
export function serve(
  sim: Simulator,
  options: RequestGuardOptions = { allowedHosts: 'all' },
): Promise<Listening> {
  return listen(sim, options);
}

/**
 * Writes `data` on a fresh connection, half-closes it (unless `keepOpen`), and collects
 * what comes back until the server closes the connection or `waitMs` passes.
 *
 * @example
 *   const { responses } = await exchange(port, 'GET /_sim/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
 */
export function exchange(
  port: number,
  data: string | Buffer | (string | Buffer)[],
  options: { keepOpen?: boolean; waitMs?: number } = {},
): Promise<Transcript> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let error: string | undefined;
    let settled = false;
    const done = (): void => {
      if (settled) return;
      settled = true;
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
    socket.on('close', done);
    for (const part of Array.isArray(data) ? data : [data]) socket.write(part);
    if (!options.keepOpen) socket.end();
  });
}

/**
 * A request's text: `head` is the request line and headers (no blank line), `body` is
 * appended with its Content-Length unless the head says otherwise.
 *
 * @example
 *   request('GET /v1/account HTTP/1.1\r\nHost: x\r\nAPI-KEY: demo-key');
 */
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
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      json = undefined;
    }
    out.push({ status: Number(statusLine!.split(' ')[1]), headers, body, json });
  }
  return out;
}
