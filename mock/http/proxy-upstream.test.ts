/**
 * The proxy of `serve --upstream` against an upstream it cannot trust, over real sockets:
 * a local node:http upstream that answers too much, too slowly, or with a status HTTP does
 * not have. Each exchange is bounded in size and time, and nothing is a 500.
 */
import {
  createServer as createHttpServer,
  request,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createNodeFetch } from '../node-fetch.ts';
import { createSimulator, type ProxyOptions } from '../simulator.ts';
import { listen } from '../test-support/socket-test-support.ts';

const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

const PRICE = '/v1/tron/price?rentalCount=65000&period=1h';
const MiB = 1024 * 1024;

/** What the upstream saw of one request: its headers, how much of the answer it wrote, and whether the proxy hung up. */
interface Exchange {
  headers: IncomingMessage['headers'];
  written: number;
  closed: Promise<void>;
}

/** A node:http upstream on a free loopback port. */
async function upstream(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const exchanges: Exchange[] = [];
  const server = createHttpServer((req, res) => {
    const exchange: Exchange = {
      headers: req.headers,
      written: 0,
      closed: new Promise((resolve) => res.once('close', () => resolve())),
    };
    exchanges.push(exchange);
    const write = res.write.bind(res) as (chunk: Buffer | string) => boolean;
    res.write = ((chunk: Buffer | string) => {
      exchange.written += Buffer.byteLength(chunk);
      return write(chunk);
    }) as ServerResponse['write'];
    res.on('error', () => {});
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, exchanges };
}

/** An upstream that writes `raw` bytes as its whole answer, for what node:http will not send (status 999). */
async function rawUpstream(raw: string) {
  const server = createNetServer((socket: Socket) => {
    socket.on('error', () => {});
    socket.once('data', () => socket.end(raw));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Streams `total` bytes of JSON-ish filler in `chunk`-sized writes, waiting for drain, until done or cut. */
function stream(res: ServerResponse, total: number, chunk = 64 * 1024): void {
  const block = Buffer.alloc(chunk, 0x20);
  let sent = 0;
  const pump = (): void => {
    while (sent < total && !res.destroyed) {
      sent += chunk;
      if (!res.write(block)) return void res.once('drain', pump);
    }
    if (!res.destroyed) res.end();
  };
  pump();
}

/** The proxy over a socket, with createNodeFetch unless another fetch is given. */
async function proxy(url: string, options: Partial<ProxyOptions> = {}) {
  const reports: string[] = [];
  const unexpected: unknown[] = [];
  const nodeFetch = createNodeFetch();
  cleanups.push(() => nodeFetch.close());
  const sim = createSimulator({
    clock: 'manual',
    proxy: { upstream: url, fetch: nodeFetch, onViolation: (line) => reports.push(line), ...options },
    onUnexpectedError: (error) => unexpected.push(error),
  });
  const served = await listen(sim);
  cleanups.push(() => served.close());
  return { sim, port: served.port, reports, unexpected };
}

interface Reply {
  status: number;
  headers: IncomingMessage['headers'];
  /** The bytes as they came over the socket, not decoded. */
  bytes: Buffer;
  json: { code: number; msg: string; data: unknown } | undefined;
  ms: number;
}

/** One request over a socket; the answer's bytes exactly as sent (node:http decodes nothing). */
function get(port: number, path: string, headers: Record<string, string> = {}): Promise<Reply> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, headers: { 'api-key': 'live-key', ...headers }, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const bytes = Buffer.concat(chunks);
          let json: Reply['json'];
          try {
            json = JSON.parse(bytes.toString('utf8')) as Reply['json'];
          } catch {
            json = undefined;
          }
          resolve({
            status: res.statusCode!,
            headers: res.headers,
            bytes,
            json,
            ms: performance.now() - started,
          });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const fetches = [
  ['createNodeFetch', undefined],
  ['the global fetch', globalThis.fetch],
] as const;

describe('--upstream-max-bytes', () => {
  for (const [name, fetch] of fetches) {
    describe(`with ${name}`, () => {
      it('refuses an answer whose Content-Length is over the cap with the 502 envelope, before reading its body', async () => {
        const up = await upstream((_req, res) => {
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(100 * MiB) });
          res.flushHeaders();
          // The body would follow slowly; the proxy must not wait for it.
          const timer = setInterval(() => res.write(Buffer.alloc(1024, 0x20)), 200);
          res.once('close', () => clearInterval(timer));
        });
        const { sim, port } = await proxy(up.url, { maxBytes: MiB, ...(fetch ? { fetch } : {}) });
        const reply = await get(port, PRICE);
        expect(reply.status).toBe(502);
        expect(reply.json).toMatchObject({
          code: 50200,
          msg: expect.stringMatching(
            /answered 104857600 bytes \(its Content-Length\), over --upstream-max-bytes 1048576/,
          ),
          data: null,
        });
        expect(reply.json!.msg).not.toContain('could not be reached');
        await up.exchanges[0]!.closed;
        expect(up.exchanges[0]!.written).toBeLessThanOrEqual(1024);
        expect(sim.journal.list()[0]).toMatchObject({ status: 502 });
      });

      it('cuts an answer that grows past the cap as soon as it does, with the 502 envelope, never reading it whole', async () => {
        const up = await upstream((_req, res) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          stream(res, 100 * MiB);
        });
        const { port } = await proxy(up.url, { maxBytes: MiB, ...(fetch ? { fetch } : {}) });
        const reply = await get(port, PRICE);
        expect(reply.status).toBe(502);
        expect(reply.json).toMatchObject({
          code: 50200,
          msg: expect.stringMatching(/answered more than 1048576 bytes, over --upstream-max-bytes 1048576/),
        });
        await up.exchanges[0]!.closed;
        // What the kernel's socket buffers took before the cut, far from the 100 MiB on offer.
        expect(up.exchanges[0]!.written).toBeLessThan(24 * MiB);
      });
    });
  }

  it('reads the body of any fetch incrementally, cancelling it at the cap', async () => {
    let pulled = 0;
    let cancelled = false;
    const endless = (async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            pulled++;
            controller.enqueue(new Uint8Array(64 * 1024));
          },
          cancel() {
            cancelled = true;
          },
        }),
        { headers: { 'content-type': 'application/json' } },
      )) as typeof fetch;
    const sim = createSimulator({
      clock: 'manual',
      proxy: { upstream: 'http://upstream.test', fetch: endless, maxBytes: MiB },
    });
    const res = await sim.app.request(PRICE, { headers: { 'API-KEY': 'k' } });
    expect(res.status).toBe(502);
    expect(((await res.json()) as { msg: string }).msg).toContain('--upstream-max-bytes');
    expect(cancelled).toBe(true);
    expect(pulled).toBeLessThanOrEqual(MiB / (64 * 1024) + 2);
  });

  it('passes an answer of exactly the cap', async () => {
    const body = JSON.stringify({ code: 0, msg: 'x'.repeat(1000), time: '1', data: null });
    const up = await upstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    });
    const { port } = await proxy(up.url, { maxBytes: Buffer.byteLength(body) });
    const reply = await get(port, PRICE);
    expect(reply.status).toBe(200);
    expect(reply.bytes.toString()).toBe(body);
  });

  it('refuses a cap that is no whole number of bytes when the simulator is made', () => {
    expect(() => createSimulator({ proxy: { upstream: 'http://x.test', maxBytes: 0 } })).toThrow(
      /proxy\.maxBytes must be a whole number of bytes, at least 1 \(got 0\)/,
    );
  });
});

describe('--upstream-timeout bounds the whole exchange', () => {
  for (const [name, fetch] of fetches) {
    it(`answers the 504 envelope on time when the upstream sends its headers and then drips the body, with ${name}`, async () => {
      const up = await upstream((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{');
        const timer = setInterval(() => res.write(' '), 50);
        res.once('close', () => clearInterval(timer));
      });
      const { port } = await proxy(up.url, { timeoutMs: 400, ...(fetch ? { fetch } : {}) });
      const reply = await get(port, PRICE);
      expect(reply.status).toBe(504);
      expect(reply.json).toMatchObject({
        code: 50400,
        msg: expect.stringContaining('did not answer within 400 ms (--upstream-timeout)'),
      });
      expect(reply.ms).toBeLessThan(400 + 500);
      // The upstream's connection is let go, not left dripping into a buffer.
      await up.exchanges[0]!.closed;
    });
  }

  it('answers on time even when a fetch ignores the abort signal', async () => {
    const deaf = (async () =>
      new Response(new ReadableStream<Uint8Array>({ pull: () => new Promise(() => {}) }), {
        headers: { 'content-type': 'application/json' },
      })) as typeof fetch;
    const sim = createSimulator({
      clock: 'manual',
      proxy: { upstream: 'http://upstream.test', fetch: deaf, timeoutMs: 100 },
    });
    const started = performance.now();
    const res = await sim.app.request(PRICE, { headers: { 'API-KEY': 'k' } });
    expect(res.status).toBe(504);
    expect(performance.now() - started).toBeLessThan(100 + 500);
  });
});

describe('an upstream status HTTP does not have', () => {
  for (const status of ['999', '600', '42', '099']) {
    it(`answers status ${status} with the 502 envelope naming it, not as unreachable`, async () => {
      const url = await rawUpstream(
        `HTTP/1.1 ${status} Odd\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
      );
      const { port, unexpected } = await proxy(url);
      const reply = await get(port, PRICE);
      expect(reply.status).toBe(502);
      expect(reply.json).toMatchObject({
        code: 50200,
        msg: expect.stringContaining(
          `answered with status ${String(Number(status))}, which is not a final HTTP status (200 to 599)`,
        ),
        data: null,
      });
      expect(reply.json!.msg).not.toContain('could not be reached');
      expect(unexpected).toEqual([]);
    });
  }

  it('answers status 999 from the global fetch with the 502 envelope naming it', async () => {
    const url = await rawUpstream(
      'HTTP/1.1 999 Odd\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
    );
    const { port } = await proxy(url, { fetch: globalThis.fetch });
    const reply = await get(port, PRICE);
    expect(reply.status).toBe(502);
    expect(reply.json!.msg).toContain('answered with status 999');
  });
});
