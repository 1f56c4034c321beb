/**
 * The proxy of `serve --upstream` against an upstream it cannot trust, over real sockets:
 * a local node:http upstream that answers too much, too slowly, with a status HTTP does
 * not have, compressed, nested too deep or undecodable. Each exchange is bounded in size
 * and time, every answer that can be passed on goes as it was sent, and nothing is a 500.
 */
import {
  createServer as createHttpServer,
  request,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { brotliCompressSync, deflateRawSync, deflateSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { createNodeFetch } from '../node-fetch.ts';
import { createSimulator, type ProxyOptions, type Simulator } from '../simulator.ts';
import { CHECK_MAX_BYTES } from './upstream-forward.ts';
import { listen } from '../test-support/socket-test-support.ts';

const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

const PRICE = '/v1/tron/price?rentalCount=65000&period=1h';
/** A price answer that breaks one fact: trxPrice is a number, the spec says a string. */
const BROKEN_PRICE = JSON.stringify({
  code: 0,
  msg: 'Get price successfully',
  time: '1795316715',
  data: { sun: '65', trxPrice: 4.23, period: '1h', resourceType: 'ENERGY', rentalCount: 65000 },
});
const MiB = 1024 * 1024;

/** What the upstream saw of one request: its headers, how much of the answer it wrote, and whether the proxy hung up. */
interface UpstreamCall {
  headers: IncomingMessage['headers'];
  written: number;
  closed: Promise<void>;
}

/** A node:http upstream on a free loopback port. */
async function upstream(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const exchanges: UpstreamCall[] = [];
  const server = createHttpServer((req, res) => {
    const exchange: UpstreamCall = {
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
}

/** One request over a socket; the answer's bytes exactly as sent (node:http decodes nothing). */
function get(port: number, path: string, headers: Record<string, string> = {}): Promise<Reply> {
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
          resolve({ status: res.statusCode!, headers: res.headers, bytes, json });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function healthViolations(sim: Simulator): Promise<number> {
  const health = (await (await sim.app.request('/_sim/health')).json()) as { proxy: { violations: number } };
  return health.proxy.violations;
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
    it(`answers the 504 envelope when the upstream sends its headers and then drips the body past the timeout, and lets its connection go, with ${name}`, async () => {
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
      // The upstream's connection is let go, not left dripping into a buffer.
      await up.exchanges[0]!.closed;
    });
  }

  it('answers the 504 envelope even when a fetch ignores the abort signal and its body never ends', async () => {
    const deaf = (async () =>
      new Response(new ReadableStream<Uint8Array>({ pull: () => new Promise(() => {}) }), {
        headers: { 'content-type': 'application/json' },
      })) as typeof fetch;
    const sim = createSimulator({
      clock: 'manual',
      proxy: { upstream: 'http://upstream.test', fetch: deaf, timeoutMs: 100 },
    });
    const res = await sim.app.request(PRICE, { headers: { 'API-KEY': 'k' } });
    expect(res.status).toBe(504);
    expect(((await res.json()) as { msg: string }).msg).toContain('did not answer within 100 ms');
  });
});

describe('answers pass through as sent', () => {
  it('passes on content-type, content-encoding, location, retry-after and every rate-limit header, and no cookie or hop-by-hop header', async () => {
    const up = await upstream((_req, res) => {
      res.writeHead(302, {
        'content-type': 'application/json',
        location: '/v1/elsewhere',
        'retry-after': '7',
        ratelimit: 'limit=10, remaining=9, reset=5',
        'ratelimit-policy': '10;w=1',
        'ratelimit-limit': '10',
        'ratelimit-remaining': '9',
        'ratelimit-reset': '5',
        'x-ratelimit-limit': '10',
        'x-ratelimit-remaining': '9',
        'x-ratelimit-reset': '5',
        'set-cookie': 'session=upstream-secret',
        'keep-alive': 'timeout=99',
        'proxy-authenticate': 'Basic realm=upstream',
        'proxy-authorization': 'Basic dXA=',
        trailer: 'x-checksum',
        upgrade: 'h2c',
        te: 'trailers',
        connection: 'close',
        'x-powered-by': 'upstream',
      });
      res.end('{"code":0}');
    });
    const { port } = await proxy(up.url);
    const reply = await get(port, PRICE, { connection: 'keep-alive' });
    expect(reply.status).toBe(302);
    expect(reply.headers).toMatchObject({
      'content-type': 'application/json',
      location: '/v1/elsewhere',
      'retry-after': '7',
      ratelimit: 'limit=10, remaining=9, reset=5',
      'ratelimit-policy': '10;w=1',
      'ratelimit-limit': '10',
      'ratelimit-remaining': '9',
      'ratelimit-reset': '5',
      'x-ratelimit-limit': '10',
      'x-ratelimit-remaining': '9',
      'x-ratelimit-reset': '5',
    });
    for (const name of [
      'set-cookie',
      'proxy-authenticate',
      'proxy-authorization',
      'trailer',
      'upgrade',
      'te',
      'x-powered-by',
    ])
      expect(reply.headers[name], name).toBeUndefined();
    // Those two are the proxy's own connection's, never the upstream's.
    expect(reply.headers['keep-alive']).not.toBe('timeout=99');
    expect(reply.headers.connection).not.toBe('close');
    expect(reply.bytes.toString()).toBe('{"code":0}');
  });

  it('forwards only the API key, content type and accept of the request', async () => {
    const up = await upstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"code":0}');
    });
    const { port } = await proxy(up.url);
    await get(port, PRICE, {
      accept: 'application/json',
      cookie: 'sim=1',
      authorization: 'Bearer control-token',
      origin: 'http://127.0.0.1',
      'x-forwarded-for': '10.0.0.1',
      'accept-encoding': 'gzip',
    });
    const seen = Object.keys(up.exchanges[0]!.headers).sort();
    expect(seen).toEqual(['accept', 'api-key', 'connection', 'host']);
  });

  it('passes a gzip answer as the gzip bytes with its content-encoding, and checks what they decode to', async () => {
    const gzipped = gzipSync(BROKEN_PRICE);
    const up = await upstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipped);
    });
    const { sim, port, reports } = await proxy(up.url);
    const reply = await get(port, PRICE);
    expect(reply.status).toBe(200);
    expect(reply.headers['content-encoding']).toBe('gzip');
    expect(reply.bytes.equals(gzipped)).toBe(true);
    expect(gunzipSync(reply.bytes).toString()).toBe(BROKEN_PRICE);
    expect(sim.journal.list()[0]!.violations).toEqual([
      { path: '/data/trxPrice', message: 'must be string' },
    ]);
    expect(reports[0]).toContain('/data/trxPrice');
  });

  it.each([
    ['deflate', deflateSync],
    ['deflate', deflateRawSync],
    ['br', brotliCompressSync],
  ] as const)('checks what a %s answer decodes to and passes its bytes as sent', async (coding, compress) => {
    const encoded = compress(Buffer.from(BROKEN_PRICE));
    const up = await upstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': coding });
      res.end(encoded);
    });
    const { sim, port } = await proxy(up.url);
    const reply = await get(port, PRICE);
    expect(reply.headers['content-encoding']).toBe(coding);
    expect(reply.bytes.equals(encoded)).toBe(true);
    expect(sim.journal.list()[0]!.violations).toEqual([
      { path: '/data/trxPrice', message: 'must be string' },
    ]);
  });

  it('with the global fetch, which decodes, passes the decoded answer without the content-encoding that no longer holds', async () => {
    const up = await upstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipSync(BROKEN_PRICE));
    });
    const { sim, port } = await proxy(up.url, { fetch: globalThis.fetch });
    const reply = await get(port, PRICE);
    expect(reply.headers['content-encoding']).toBeUndefined();
    expect(reply.bytes.toString()).toBe(BROKEN_PRICE);
    expect(sim.journal.list()[0]!.violations).toEqual([
      { path: '/data/trxPrice', message: 'must be string' },
    ]);
  });
});

describe('answers that cannot be checked pass through, reported as not checked', () => {
  async function passedThrough(
    headers: Record<string, string>,
    body: Buffer | string,
    options: Partial<ProxyOptions> = {},
    path = PRICE,
  ) {
    const up = await upstream((_req, res) => {
      res.writeHead(200, headers);
      res.end(body);
    });
    const served = await proxy(up.url, options);
    const reply = await get(served.port, path);
    expect(reply.status).toBe(200);
    expect(reply.bytes.equals(Buffer.from(body))).toBe(true);
    expect(served.unexpected).toEqual([]);
    return { ...served, reply, entry: served.sim.journal.list()[0]! };
  }

  it('passes a JSON answer nested 100 000 levels deep unaltered, with a violation saying it was not checked', async () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const { sim, entry, reports } = await passedThrough({ 'content-type': 'application/json' }, deep);
    expect(entry.violations).toEqual([
      { path: '', message: 'not checked: the body nests deeper than 32 levels' },
    ]);
    expect(reports).toEqual([
      'spec violation: getPrice (HTTP 200): not checked: the body nests deeper than 32 levels',
    ]);
    expect(await healthViolations(sim)).toBe(1);
  });

  it('passes a deep answer to a path the spec does not know, and journals it without a 500', async () => {
    const deep = '{"a":'.repeat(50_000) + '1' + '}'.repeat(50_000);
    const { entry } = await passedThrough(
      { 'content-type': 'application/json' },
      deep,
      { forwardUnknown: true },
      '/v1/no/such/path',
    );
    expect(entry.status).toBe(200);
    expect(entry.violations).toBeUndefined();
  });

  it('passes an answer larger than the check takes unaltered, reported as not checked instead of holding up the loop', async () => {
    const big = JSON.stringify({ code: 0, msg: 'x'.repeat(CHECK_MAX_BYTES), time: '1', data: null });
    const { entry, reports } = await passedThrough({ 'content-type': 'application/json' }, big, {
      maxBytes: 8 * MiB,
    });
    expect(entry.status).toBe(200);
    expect(entry.violations).toEqual([
      {
        path: '',
        message: `not checked: the body (${big.length} bytes) is larger than the ${CHECK_MAX_BYTES} bytes the proxy checks without holding up other requests`,
      },
    ]);
    expect(reports).toHaveLength(1);
  });

  it('passes a gzip answer that decodes past the cap unaltered, with a violation naming --upstream-max-bytes', async () => {
    const bomb = gzipSync(JSON.stringify({ code: 0, msg: '0'.repeat(4 * MiB), time: '1', data: null }));
    expect(bomb.byteLength).toBeLessThan(MiB);
    const { sim, entry } = await passedThrough(
      { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      bomb,
      { maxBytes: MiB },
    );
    expect(entry.violations).toEqual([
      {
        path: '',
        message: 'not checked: decoded (gzip), the body is larger than 1048576 bytes (--upstream-max-bytes)',
      },
    ]);
    expect(await healthViolations(sim)).toBe(1);
  });

  it('passes an answer its content-encoding does not describe unaltered, with a violation saying it could not be decoded', async () => {
    const { entry } = await passedThrough(
      { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      'this is not gzip',
    );
    expect(entry.violations).toEqual([
      {
        path: '',
        message: expect.stringMatching(/^not checked: its gzip body could not be decoded \(.+\)$/),
      },
    ]);
  });

  it('passes an answer in an encoding it does not decode unaltered, with a violation naming the encoding', async () => {
    const { entry } = await passedThrough(
      { 'content-type': 'application/json', 'content-encoding': 'zstd' },
      Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0, 0]),
    );
    expect(entry.violations).toEqual([
      {
        path: '',
        message: "not checked: its content-encoding 'zstd' is not one the proxy decodes (gzip, deflate, br)",
      },
    ]);
  });

  it('passes an answer that says JSON and is not unaltered, with a violation saying so', async () => {
    const { entry } = await passedThrough({ 'content-type': 'application/json' }, '<html>Bad gateway</html>');
    expect(entry.violations).toEqual([
      {
        path: '',
        message: expect.stringMatching(
          /^not checked: the body is not JSON \(.+\), though its content type is application\/json$/,
        ),
      },
    ]);
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
