import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createNodeFetch, type NodeFetch } from './node-fetch.ts';
import { createSimulator } from './simulator.ts';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

describe('createNodeFetch', () => {
  let server: Server;
  let base: string;
  let seen: Seen[];
  let nodeFetch: NodeFetch;

  beforeEach(async () => {
    seen = [];
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        seen.push({
          method: req.method!,
          url: req.url!,
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        if (req.url === '/empty') {
          res.writeHead(204);
          res.end();
        } else if (req.url!.startsWith('/slow')) {
          setTimeout(() => res.end('late'), 2_000).unref();
        } else if (req.url === '/cut') {
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
          res.write('{"code":0');
          setTimeout(() => res.socket?.destroy(), 20);
        } else if (req.url === '/redirect') {
          res.writeHead(302, { location: '/elsewhere' });
          res.end();
        } else {
          res.writeHead(418, { 'content-type': 'application/json', 'retry-after': '3' });
          res.end(JSON.stringify({ code: 1, msg: 'é' }));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    nodeFetch = createNodeFetch();
  });

  afterEach(async () => {
    nodeFetch.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends the method, path, query, headers and body as given', async () => {
    await nodeFetch(`${base}/v1/tron/order?x=1`, {
      method: 'POST',
      headers: { 'API-KEY': 'k', 'content-type': 'application/x-www-form-urlencoded' },
      body: new TextEncoder().encode('a=1&b=2'),
    });
    expect(seen).toEqual([
      expect.objectContaining({ method: 'POST', url: '/v1/tron/order?x=1', body: 'a=1&b=2' }),
    ]);
    expect(seen[0]!.headers).toMatchObject({
      'api-key': 'k',
      'content-type': 'application/x-www-form-urlencoded',
      'content-length': '7',
    });
  });

  it('answers with the status, headers and bytes the server sent', async () => {
    const response = await nodeFetch(`${base}/anything`);
    expect(response.status).toBe(418);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('retry-after')).toBe('3');
    expect(await response.json()).toEqual({ code: 1, msg: 'é' });
  });

  it('takes a Request as the global fetch does', async () => {
    const response = await nodeFetch(
      new Request(`${base}/from-request`, { method: 'PUT', headers: { 'API-KEY': 'r' }, body: 'x=y' }),
    );
    expect(response.status).toBe(418);
    expect(seen[0]).toMatchObject({ method: 'PUT', url: '/from-request', body: 'x=y' });
    expect(seen[0]!.headers['api-key']).toBe('r');
  });

  it('gives a bodiless answer a null body', async () => {
    const response = await nodeFetch(`${base}/empty`);
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
  });

  it('leaves a redirect to the caller', async () => {
    const response = await nodeFetch(`${base}/redirect`, { redirect: 'manual' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('/elsewhere');
    expect(seen).toHaveLength(1);
  });

  it("rejects with the signal's reason when it is aborted", async () => {
    const controller = new AbortController();
    const reason = new DOMException('no answer within 50 ms', 'TimeoutError');
    setTimeout(() => controller.abort(reason), 50);
    await expect(nodeFetch(`${base}/slow`, { signal: controller.signal })).rejects.toBe(reason);
  });

  it('rejects at once on a signal already aborted, sending nothing', async () => {
    const controller = new AbortController();
    controller.abort(new DOMException('gone', 'AbortError'));
    await expect(nodeFetch(`${base}/anything`, { signal: controller.signal })).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(seen).toHaveLength(0);
  });

  it('rejects as the global fetch does when nothing listens, the cause carrying the code', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await nodeFetch(`http://127.0.0.1:${port}/v1/account`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as { cause?: { code?: string } }).cause?.code).toBe('ECONNREFUSED');
  });

  it('fails the body as the global fetch does when the answer is cut short, never hanging', async () => {
    const response = await nodeFetch(`${base}/cut`);
    const error = await response.arrayBuffer().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as { cause?: { code?: string } }).cause?.code).toBe('ECONNRESET');
  });

  it('speaks TLS to an https URL (a plain HTTP server cannot answer it)', async () => {
    const error = await nodeFetch(`${base.replace('http:', 'https:')}/v1/account`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as { cause?: { code?: string } }).cause?.code).toBe('EPROTO');
    expect(seen).toHaveLength(0);
  });

  it('refuses a URL that is not http or https', async () => {
    await expect(nodeFetch('file:///etc/passwd')).rejects.toThrow(/only http and https/);
  });

  it('keeps the connection alive between calls', async () => {
    const sockets = new Set<unknown>();
    server.on('connection', (socket) => sockets.add(socket));
    for (let i = 0; i < 5; i++) await (await nodeFetch(`${base}/anything`)).arrayBuffer();
    expect(sockets.size).toBe(1);
  });

  it('sends every target as WHATWG URL spells it, whichever origin and however odd the path', async () => {
    const port = (server.address() as AddressInfo).port;
    const targets = [
      `${base}/v1/tron/price?rentalCount=65000&period=1h`,
      `${base}/api/v1/account`,
      `http://localhost:${port}/v1/account?x=1`,
      `${base}/a b?q="<é>"`,
      `${base}/a/../b/./c`,
      `${base}/a/%2E%2e/b`,
      `${base}/.well-known/x?y=/.z`,
      `${base}/p%zz?r=%41#frag`,
    ];
    for (const url of targets) await (await nodeFetch(url)).arrayBuffer();
    expect(seen.map((s) => s.url)).toEqual(targets.map((url) => new URL(url).pathname + new URL(url).search));
    expect(seen[2]!.headers.host).toBe(`localhost:${port}`);
  });

  it('rejects a request Node will not send, sending nothing', async () => {
    await expect(nodeFetch(`${base}/v1/account`, { headers: { 'api-key': 'bad\nkey' } })).rejects.toThrow(
      TypeError,
    );
    expect(seen).toEqual([]);
  });

  describe('as the fetch of serve --upstream', () => {
    it('passes the upstream answer through byte for byte', async () => {
      const proxy = createSimulator({ proxy: { upstream: base, fetch: nodeFetch, onViolation: () => {} } });
      const res = await proxy.app.request('/v1/account', { headers: { 'API-KEY': 'k' } });
      expect(res.status).toBe(418);
      expect(await res.text()).toBe(JSON.stringify({ code: 1, msg: 'é' }));
      expect(seen[0]).toMatchObject({ method: 'GET', url: '/v1/account' });
    });

    it('answers 504 naming --upstream-timeout when the upstream is too slow', async () => {
      const proxy = createSimulator({ proxy: { upstream: `${base}/slow`, fetch: nodeFetch, timeoutMs: 50 } });
      const res = await proxy.app.request('/v1/account', { headers: { 'API-KEY': 'k' } });
      expect(res.status).toBe(504);
      expect(await res.json()).toMatchObject({
        code: 50400,
        msg: expect.stringContaining('did not answer within 50 ms (--upstream-timeout)'),
      });
    });

    it('answers 502 with the cause when nothing listens', async () => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as AddressInfo).port;
      await new Promise((resolve) => closed.close(resolve));
      const proxy = createSimulator({ proxy: { upstream: `http://127.0.0.1:${port}`, fetch: nodeFetch } });
      const res = await proxy.app.request('/v1/account', { headers: { 'API-KEY': 'k' } });
      expect(res.status).toBe(502);
      expect(await res.json()).toMatchObject({
        code: 50200,
        msg: expect.stringContaining('could not be reached (ECONNREFUSED)'),
      });
    });
  });
});
