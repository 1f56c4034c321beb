/**
 * The proxy's edge over real sockets, against an upstream that logs every request it gets:
 * no spelling or method of the order path spends without `--allow-spend`, `--max-orders`
 * and `--max-spend` hold whatever the spelling, and the guard's counts say what happened.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createNodeFetch } from '../node-fetch.ts';
import { createSimulator, type ProxyOptions } from '../simulator.ts';
import { orderSpelling } from '../test-support/order-spellings.ts';
import { listen, rawRequest, type Listening } from '../test-support/socket-test-support.ts';
import { normalisePath } from './edge-classifier.ts';
import { ADDRESS } from '../test-support/fixtures.ts';

const ORDER_BODY = `pledgeAddress=${ADDRESS}&rentalCount=65000&period=1h`;
const FORM = { 'content-type': 'application/x-www-form-urlencoded', 'api-key': 'live-key-123456' };
const METHODS = ['POST', 'GET', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'] as const;

interface LoggingUpstream {
  url: string;
  /** `METHOD target` of every request that arrived. */
  log: string[];
  /**
   * The orders it took, as a lenient server reads them: the body over the query, a
   * repeated name's last value, any content type as a form.
   */
  orders: string[];
  /** How the price operation answers: a price, or an HTTP error. */
  price: { trxPrice: string } | { status: number };
  close(): Promise<void>;
}

async function loggingUpstream(): Promise<LoggingUpstream> {
  const upstream: Partial<LoggingUpstream> & { log: string[]; orders: string[] } = {
    log: [],
    orders: [],
    price: { trxPrice: '4.23' },
  };
  const server: Server = createServer((req: IncomingMessage, res) => {
    upstream.log.push(`${req.method} ${req.url}`);
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const json = (status: number, body: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      const time = String(Math.floor(Date.now() / 1000));
      const target = (req.url ?? '').replace(/^\/api\//, '/');
      if (target.startsWith('/v1/tron/price?')) {
        const price = upstream.price!;
        if ('status' in price) return json(price.status, { code: 50000, msg: 'down', time, data: null });
        const query = new URL(target, 'http://x').searchParams;
        return json(200, {
          code: 0,
          msg: 'Get price successfully',
          time,
          data: {
            sun: '65',
            trxPrice: price.trxPrice,
            period: query.get('period'),
            resourceType: 'ENERGY',
            rentalCount: Number(query.get('rentalCount')),
          },
        });
      }
      if (req.method === 'POST' && target.startsWith('/v1/tron/order')) {
        const read = new Map(new URL(target, 'http://x').searchParams);
        for (const [name, value] of new URLSearchParams(body.replace(/;/g, '&'))) read.set(name, value);
        upstream.orders.push(`${read.get('rentalCount')} ${read.get('period')}`);
        return json(200, {
          code: 0,
          msg: 'Order generated successfully, please check order processing status later',
          time,
          data: { id: 'OR20250312175009BJ1QRQH7', amount: 4.23, currency: 'TRX' },
        });
      }
      return json(404, { code: 40400, msg: 'no', time, data: null });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  upstream.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  upstream.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return upstream as LoggingUpstream;
}

const open: Array<{ close(): Promise<void> | void }> = [];
afterEach(async () => {
  for (const thing of open.splice(0)) await thing.close();
});

async function proxyBefore(options: Partial<ProxyOptions> = {}) {
  const upstream = await loggingUpstream();
  const fetch = createNodeFetch();
  const sim = createSimulator({
    clock: 'manual',
    proxy: { upstream: upstream.url, fetch, onViolation: () => {}, ...options },
  });
  const served: Listening = await listen(sim);
  open.push(served, fetch, upstream);
  const health = async () => (await rawRequest(served.port, 'GET', '/_sim/health')).body.proxy;
  return { upstream, served, health };
}

/**
 * The status of one request written on a socket as given: a target Node's parser refuses
 * is answered before the method is known, with a body even to a HEAD, which Node's own
 * client would take for a broken answer.
 */
function onSocket(
  port: number,
  method: string,
  target: string,
  body: string,
  options: { type?: string; chunked?: boolean; cut?: boolean } = {},
): Promise<{ status: number; text: string }> {
  // A cut body: chunked, its last chunk never sent, the connection half-closed.
  const framing = options.chunked
    ? `Transfer-Encoding: chunked\r\n\r\n${body
        .match(/.{1,4096}/gs)!
        .map((piece) => `${Buffer.byteLength(piece).toString(16)}\r\n${piece}\r\n`)
        .join('')}${options.cut ? '' : '0\r\n\r\n'}`
    : `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(
        `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nAPI-KEY: ${FORM['api-key']}\r\n` +
          `Content-Type: ${options.type ?? FORM['content-type']}\r\nConnection: close\r\n${framing}`,
      );
      if (options.cut) socket.end();
    });
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('end', () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]), text }));
    socket.on('error', reject);
  });
}

/** Requests that reached the upstream and spell the order path. */
const orderShaped = (log: string[]): string[] =>
  log.filter((line) =>
    normalisePath(line.slice(line.indexOf(' ') + 1).split('?')[0]!).segments.includes('order'),
  );

describe('the proxy edge over real sockets', () => {
  it('lets no order-shaped request reach the upstream without --allow-spend, over generated spellings and methods', async () => {
    const { upstream, served, health } = await proxyBefore();
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(orderSpelling, fc.constantFrom(...METHODS), async (path, method) => {
        const reply = await onSocket(
          served.port,
          method,
          path,
          method === 'GET' || method === 'HEAD' ? '' : ORDER_BODY,
        );
        // A target Node's parser refuses (400) never became a request: it counts as nothing.
        if (reply.status !== 400) sent++;
        // 400: the Node layer refuses some targets outright (a backslash in the path).
        expect([400, 403, 404, 405]).toContain(reply.status);
      }),
      { numRuns: 300 },
    );
    expect(upstream.log).toEqual([]);
    expect((await health()).refusedOrders).toBe(sent);
  });

  it('refuses every other method on the exact order path with 405 naming POST, even with --allow-spend', async () => {
    const { upstream, served } = await proxyBefore({ allowSpend: true });
    for (const method of METHODS.filter((m) => m !== 'POST')) {
      const reply = await rawRequest(served.port, method, '/v1/tron/order', FORM);
      expect(reply.status, method).toBe(405);
      expect(reply.headers.allow).toBe('POST');
      if (method !== 'HEAD') expect(reply.body.msg).toMatch(/use POST/);
    }
    expect(upstream.log).toEqual([]);
  });

  it('forwards at most --max-orders orders, whatever spellings are tried besides', async () => {
    const { upstream, served, health } = await proxyBefore({ allowSpend: true, maxOrders: 2 });
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      for (const path of ['/v1/tron/order', '/v1/tron/order/', '/api/v1/tron/order', '/v1/tron//order'])
        statuses.push((await rawRequest(served.port, 'POST', path, FORM, ORDER_BODY)).status);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(2);
    expect(orderShaped(upstream.log)).toEqual(['POST /v1/tron/order', 'POST /api/v1/tron/order']);
    expect(await health()).toMatchObject({ forwarded: 2, refusedOrders: 38 });
  });

  it('forwards no order past --max-spend, at the price the upstream names for each', async () => {
    const { upstream, served } = await proxyBefore({ allowSpend: true, maxSpend: '10' });
    const replies = [];
    for (let i = 0; i < 4; i++)
      replies.push(await rawRequest(served.port, 'POST', '/v1/tron/order', FORM, ORDER_BODY));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 403, 403]);
    expect(replies[2]!.body.msg).toMatch(/costs 4\.23 TRX.*8\.46 TRX.*--max-spend 10 TRX/);
    expect(orderShaped(upstream.log)).toEqual(['POST /v1/tron/order', 'POST /v1/tron/order']);
    expect(upstream.log.filter((l) => l.startsWith('GET /v1/tron/price?'))).toHaveLength(4);
  });

  it('takes the order from the query or the form body to price it, as the service does', async () => {
    const { upstream, served } = await proxyBefore({ allowSpend: true, maxSpend: '100' });
    const reply = await rawRequest(served.port, 'POST', `/v1/tron/order?${ORDER_BODY}`, {
      'api-key': 'k-123456789',
    });
    expect(reply.status).toBe(200);
    expect(upstream.log[0]).toBe('GET /v1/tron/price?rentalCount=65000&period=1h');
  });

  it('refuses under --max-spend an order whose cost cannot be known', async () => {
    const { upstream, served } = await proxyBefore({ allowSpend: true, maxSpend: '100' });
    upstream.price = { status: 503 };
    const down = await rawRequest(served.port, 'POST', '/v1/tron/order', FORM, ORDER_BODY);
    expect(down.status).toBe(403);
    expect(down.body.msg).toMatch(/cost could not be known \(the upstream's price answered HTTP 503\)/);
    const nameless = await rawRequest(
      served.port,
      'POST',
      '/v1/tron/order',
      FORM,
      `pledgeAddress=${ADDRESS}`,
    );
    expect(nameless.status).toBe(403);
    expect(nameless.body.msg).toMatch(/names no rentalCount or no period/);
    expect(orderShaped(upstream.log)).toEqual([]);
  });

  it('forwards an order only when every server reads its parameters alike, and refuses the rest 400 naming the parameter', async () => {
    const { upstream, served, health } = await proxyBefore({
      allowSpend: true,
      maxSpend: '10',
      maxOrders: 5,
    });
    const priced = `pledgeAddress=${ADDRESS}&rentalCount=64000&period=1h`;
    const hostile: Array<
      [query: string, body: string, options?: { type?: string; chunked?: boolean; cut?: boolean }]
    > = [
      [priced, 'rentalCount=100000000&period=30d'],
      ['', `${priced}&rentalCount=100000000`],
      [`${priced}&rentalCount=100000000`, ''],
      [priced, 'rentalcount=100000000'],
      [priced, 'rental%43ount=100000000'],
      ['', `${priced};rentalCount=100000000`],
      ['', `${priced}&period=30d`, { chunked: true }],
      [priced, '{"rentalCount":100000000,"period":"30d"}', { type: 'application/json' }],
      [priced, 'rentalCount=100000000&period=30d', { type: 'text/plain' }],
      ['', priced, { type: 'application/x-www-form-urlencoded; charset=utf-16' }],
      ['', `${priced}&note=%FF`],
    ];
    for (const [query, body, options] of hostile) {
      const reply = await onSocket(
        served.port,
        'POST',
        `/v1/tron/order${query ? `?${query}` : ''}`,
        body,
        options,
      );
      expect(reply.status, `${query} | ${body}`).toBe(400);
      expect(reply.text).toMatch(
        /"code":20003,"msg":"Order not forwarded: (parameter '(rentalCount|rentalcount|period)' is given more than once|the form body (is not plain form encoding|holds an escape)|its body is '[^']+', not application)/,
      );
    }
    // A body the guard cannot read whole is never forwarded either: past the limit, the
    // pipeline's one 413 before any step reads it; cut, no answer owed.
    const huge = `${priced}&note=${'x'.repeat(70_000)}&rentalCount=100000000`;
    expect((await onSocket(served.port, 'POST', '/v1/tron/order', huge)).status).toBe(413);
    expect((await onSocket(served.port, 'POST', '/v1/tron/order', huge, { chunked: true })).status).toBe(413);
    await onSocket(served.port, 'POST', '/v1/tron/order', `${priced}&rentalCount=100000000`, {
      chunked: true,
      cut: true,
    });
    const honest = [];
    for (let i = 0; i < 3; i++)
      honest.push((await onSocket(served.port, 'POST', '/v1/tron/order', priced)).status);
    expect(honest).toEqual([200, 200, 403]);
    // What the upstream charged is what was priced: two orders of 64 000 for 1h, 8.46 TRX.
    expect(upstream.orders).toEqual(['64000 1h', '64000 1h']);
    expect(await health()).toMatchObject({ forwarded: 5, refusedOrders: hostile.length + 1 });
  });
});
