/**
 * Helpers for tests that reach a simulator over a real socket with headers a browser
 * would send (Host, Origin, Sec-Fetch-Site), which fetch() does not let a caller set.
 */
import { request, type Server } from 'node:http';
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

/**
 * Serves `sim` on a free loopback port.
 *
 * @example
 *   const served = await listen(createSimulator({ clock: 'manual' }));
 *   await served.close();
 */
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
 * Sends one request with exactly the headers given (a `host` header replaces the real
 * one). An event stream is read up to its first bytes, then closed.
 *
 * @example
 *   await rawRequest(served.port, 'GET', '/v1/account', { host: 'evil.example', 'api-key': 'demo-key' });
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
    const req = request({ host: '127.0.0.1', port, method, path, headers: framed, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      const done = (): void => {
        let parsed: unknown;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          parsed = undefined;
        }
        resolve({ status: res.statusCode!, headers: res.headers, text, body: parsed });
      };
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
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Writes `head` (request line and headers, without the blank line) on a fresh socket and
 * answers the status and the body: for what http.request cannot send, such as no Host.
 *
 * @example
 *   await socketRequest(served.port, 'GET /_sim/health HTTP/1.0'); // { status: 403, … }
 */
export function socketRequest(port: number, head: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(`${head}\r\nConnection: close\r\n\r\n`));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('end', () => {
      const body = text.slice(text.indexOf('\r\n\r\n') + 4);
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        parsed = undefined;
      }
      resolve({ status: Number(/^HTTP\/1\.\d (\d{3})/.exec(text)?.[1]), body: parsed });
    });
    socket.on('error', reject);
  });
}
