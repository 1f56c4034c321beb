/**
 * Proxy mode (`serve --upstream`): the simulator in front of an upstream made in the test,
 * a second simulator or a stand-in that breaks one fact.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createSimulatorServer } from '../node-server.ts';
import { createSimulator, type ProxyOptions, type Simulator } from '../simulator.ts';
import type { ExchangeFinished } from './exchange.ts';
import { ADDRESS } from '../test-support/fixtures.ts';

const KEY = { 'API-KEY': 'demo-key' };
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const ORDER = `pledgeAddress=${ADDRESS}&rentalCount=65000&period=1h`;

/** An upstream simulator and the requests that reached it. */
function upstreamSimulator() {
  const upstream = createSimulator({ clock: 'manual', timing: 'instant', seed: 5 });
  const reached: string[] = [];
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    reached.push(`${request.method} ${new URL(request.url).pathname}${new URL(request.url).search}`);
    return upstream.fetch(request);
  }) as typeof globalThis.fetch;
  return { upstream, reached, fetch };
}

function proxyOf(fetch: typeof globalThis.fetch, options: Partial<ProxyOptions> = {}) {
  const reports: string[] = [];
  const proxy = createSimulator({
    clock: 'manual',
    proxy: { upstream: 'http://upstream.test', fetch, onViolation: (line) => reports.push(line), ...options },
  });
  return { proxy, reports };
}

async function text(sim: Simulator, path: string, init: RequestInit = {}) {
  const res = await sim.app.request(path, init);
  return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
}

describe('forwarding', () => {
  it('answers every API call with the upstream answer, byte for byte, status and content type included', async () => {
    const { upstream, fetch } = upstreamSimulator();
    const { proxy } = proxyOf(fetch, { allowSpend: true });
    const twin = createSimulator({ clock: 'manual', timing: 'instant', seed: 5 });
    for (const [path, init] of [
      ['/v1/tron/price?rentalCount=65000&period=1h', { headers: KEY }],
      ['/api/v1/tron/price?rentalCount=64000&period=30d', { headers: KEY }],
      ['/v1/account', { headers: KEY }],
      ['/v1/account', { headers: { 'API-KEY': 'wrong' } }],
      ['/v1/tron/order', { method: 'POST', headers: { ...KEY, ...FORM }, body: ORDER }],
    ] as const) {
      const through = await text(proxy, path, init);
      const direct = await text(twin, path, init);
      // Envelope times come from each simulator's own clock; both are manual and unmoved.
      expect(through, path).toEqual(direct);
    }
    expect(upstream.engine.authenticate('demo-key')!.orders.length).toBe(1);
  });

  it('sends the path, query, method and body as the client sent them, with the API key, and nothing of the control plane', async () => {
    const { reached, fetch } = upstreamSimulator();
    const { proxy } = proxyOf(fetch, { allowSpend: true });
    await proxy.app.request('/api/v1/tron/history?orderId=OR1&x=%20y', { headers: KEY });
    await proxy.app.request('/v1/tron/order?outOrderNo=a%2Bb', {
      method: 'POST',
      headers: { ...KEY, ...FORM },
      body: ORDER,
    });
    await proxy.app.request('/_sim/health');
    await proxy.app.request('/_sim/no-such-thing');
    await proxy.app.request('/docs');
    expect(reached).toEqual([
      'GET /api/v1/tron/history?orderId=OR1&x=%20y',
      'POST /v1/tron/order?outOrderNo=a%2Bb',
    ]);
  });

  it('answers an undocumented method or path itself and forwards nothing of it', async () => {
    const { reached, fetch } = upstreamSimulator();
    const { proxy } = proxyOf(fetch, { allowSpend: true });
    const deleted = await text(proxy, '/v1/tron/price', { method: 'DELETE', headers: KEY });
    expect(deleted.status).toBe(405);
    expect(JSON.parse(deleted.body)).toMatchObject({ code: 40500, msg: expect.stringContaining('use GET') });
    const unknown = await text(proxy, '/v1/no/such/path', { headers: KEY });
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body).msg).toMatch(/not part of the API.*--forward-unknown/);
    const slash = await text(proxy, '/v1/account/', { headers: KEY });
    expect(slash.status).toBe(404);
    expect(JSON.parse(slash.body).msg).toContain('/v1/account only as spelled so');
    expect(reached).toEqual([]);
  });

  it('forwards GET and HEAD of other paths with --forward-unknown, never another method or an order path', async () => {
    const { reached, fetch } = upstreamSimulator();
    const { proxy } = proxyOf(fetch, { allowSpend: true, forwardUnknown: true });
    expect((await text(proxy, '/v2/status', { headers: KEY })).status).toBe(404);
    await proxy.app.request('/v2/status', { method: 'HEAD', headers: KEY });
    expect((await text(proxy, '/v2/status', { method: 'POST', headers: KEY })).status).toBe(404);
    expect((await text(proxy, '/v2/tron/order', { headers: KEY })).status).toBe(404);
    expect(reached).toEqual(['GET /v2/status', 'HEAD /v2/status']);
  });

  it('never keeps the API key: not in the journal, not in a report', async () => {
    const { fetch } = upstreamSimulator();
    const { proxy, reports } = proxyOf(fetch);
    await proxy.app.request('/v1/account?api_key=live-key-1', { headers: { 'API-KEY': 'live-key-2' } });
    await proxy.app.request('/v1/tron/order', {
      method: 'POST',
      headers: { 'API-KEY': 'live-key-3', ...FORM },
      body: `${ORDER}&apiKey=live-key-4`,
    });
    const kept = JSON.stringify([proxy.journal.list(), reports]);
    for (const key of ['live-key-1', 'live-key-2', 'live-key-3', 'live-key-4'])
      expect(kept).not.toContain(key);
  });
});

describe('what the journal keeps of an answer', () => {
  it("redacts a secret-named field of the upstream's answer that no request carried", async () => {
    const fetch = (async () =>
      new Response(
        JSON.stringify({
          code: 0,
          msg: 'ok',
          time: '1',
          data: { session: { token: 'upstream-own-token-1' } },
        }),
        {
          headers: { 'content-type': 'application/json' },
        },
      )) as typeof globalThis.fetch;
    const { proxy } = proxyOf(fetch);
    const res = await proxy.app.request('/v1/account', { headers: KEY });
    expect(await res.text()).toContain('upstream-own-token-1');
    const kept = JSON.stringify(proxy.journal.list());
    expect(kept).not.toContain('upstream-own-token-1');
    expect(kept).toContain('[redacted]');
  });

  it("hides a key the upstream's answer gives as a pair inside a string wherever else it repeats it", async () => {
    const issued = 'sk_pair_issued_0042';
    const fetch = (async () =>
      new Response(
        JSON.stringify({
          code: 0,
          msg: `created; api_key=${issued}`,
          time: '1',
          data: { reference: issued },
        }),
        { headers: { 'content-type': 'application/json' } },
      )) as typeof globalThis.fetch;
    const { proxy } = proxyOf(fetch);
    const res = await proxy.app.request('/v1/account', { headers: KEY });
    expect(await res.text()).toContain(issued);
    expect(JSON.stringify(proxy.journal.list())).not.toContain(issued);
  });

  /** A proxy in front of a stand-in that answers this JSON text: what its journal and its exchange event keep of the answer to a GET /v1/account with `key`. */
  async function kept(sent: string, key = 'live-key-77') {
    const fetch = (async () =>
      new Response(sent, { headers: { 'content-type': 'application/json' } })) as typeof globalThis.fetch;
    const { proxy } = proxyOf(fetch);
    const heard: ExchangeFinished[] = [];
    proxy.exchanges.subscribe((exchange) => heard.push(exchange));
    const res = await proxy.app.request('/v1/account', { headers: { 'API-KEY': key } });
    expect(await res.text()).toBe(sent);
    return { journal: JSON.stringify(proxy.journal.list()), event: heard[0]! };
  }

  it('keeps an answer that hides nothing as the upstream sent it, layout and all, without writing its JSON again', async () => {
    const sent = '{ "code": 0, "msg": "ok", "time": "1", "data": { "name": "n", "referralCount": 0 } }';
    const { journal, event } = await kept(sent);
    expect(event.responseText).toBe(sent);
    expect(event.response).toEqual(JSON.parse(sent));
    expect(JSON.parse(journal)[0].response).toEqual(JSON.parse(sent));
  });

  it.each([
    [
      'by value under a name the parse dropped for its duplicate',
      '{"code":0,"msg":"ok","time":"1","data":{"echo":"live-key-77","echo":"x"}}',
    ],
    [
      'spelled with JSON escapes inside it',
      '{"code":0,"msg":"ok","time":"1","data":{"echo":"live\\u002dkey\\u002d77"}}',
    ],
    [
      'under a secret name the parse dropped for its duplicate',
      '{"code":0,"msg":"ok","time":"1","data":{"apiKey":"upstream-secret-99","apiKey":null}}',
    ],
    [
      'short, under a secret name whose duplicate already reads as redacted',
      '{"code":0,"msg":"ok","time":"1","data":{"apiKey":"sk9","apiKey":"[redacted]"}}',
    ],
  ])('never keeps a key the upstream sent %s', async (_how, sent) => {
    const { journal, event } = await kept(sent);
    expect(event.responseText).toBeUndefined();
    const everything = `${journal} ${JSON.stringify(event)}`;
    for (const secret of ['live-key-77', 'live\\u002dkey', 'upstream-secret-99', 'sk9'])
      expect(everything).not.toContain(secret);
  });
});

describe('the spending guard', () => {
  it('refuses an order without --allow-spend, journals it as refused, and sends nothing upstream', async () => {
    const { reached, fetch } = upstreamSimulator();
    const { proxy } = proxyOf(fetch);
    const res = await proxy.app.request('/v1/tron/order', {
      method: 'POST',
      headers: { ...KEY, ...FORM },
      body: ORDER,
    });
    expect(res.status).toBe(403);
    const body = (await res.json()) as { code: number; msg: string };
    expect(body.code).toBe(10007);
    expect(body.msg).toContain('--allow-spend');
    expect(reached).toEqual([]);
    expect(proxy.journal.list()[0]).toMatchObject({
      operation: 'createOrder',
      status: 403,
      refused: expect.stringContaining('--allow-spend'),
    });
  });

  it('forwards at most --max-orders orders and refuses the next one, naming the flag', async () => {
    const { reached, fetch } = upstreamSimulator();
    const { proxy } = proxyOf(fetch, { allowSpend: true, maxOrders: 2 });
    const statuses: number[] = [];
    let last = '';
    for (let i = 0; i < 3; i++) {
      const res = await proxy.app.request('/api/v1/tron/order', {
        method: 'POST',
        headers: { ...KEY, ...FORM },
        body: ORDER,
      });
      statuses.push(res.status);
      last = ((await res.json()) as { msg: string }).msg;
    }
    expect(statuses).toEqual([200, 200, 403]);
    expect(last).toContain('--max-orders 2');
    expect(reached.filter((r) => r.startsWith('POST'))).toHaveLength(2);
    const health = (await (await proxy.app.request('/_sim/health')).json()) as {
      mode: string;
      proxy: Record<string, unknown>;
    };
    expect(health).toMatchObject({
      mode: 'proxy',
      proxy: { upstream: 'http://upstream.test', forwarded: 2, violations: 0, refusedOrders: 1 },
    });
  });
});

describe('live validation', () => {
  /** An upstream that sends trxPrice as a number, which the spec says is a string. */
  const breaksOneFact = (async () =>
    new Response(
      JSON.stringify({
        code: 0,
        msg: 'Get price successfully',
        time: '1795316715',
        data: { sun: '65', trxPrice: 4.23, period: '1h', resourceType: 'ENERGY', rentalCount: 65000 },
      }),
      {
        status: 200,
        headers: { 'content-type': 'application/json' },
      },
    )) as typeof fetch;

  it('reports a violation once, journals it on every answer that has it, and passes the answer on unaltered', async () => {
    const { proxy, reports } = proxyOf(breaksOneFact);
    const first = await text(proxy, '/v1/tron/price?rentalCount=65000&period=1h', { headers: KEY });
    await text(proxy, '/v1/tron/price?rentalCount=65000&period=1h', { headers: KEY });
    expect(JSON.parse(first.body).data.trxPrice).toBe(4.23);
    expect(reports, reports.join('\n')).toHaveLength(1);
    expect(reports[0]).toMatch(
      /getPrice .*\/data\/trxPrice.*expected schema .*"type":"string".*actual value 4\.23/,
    );
    const entries = proxy.journal.list();
    expect(entries.map((e) => e.violations)).toEqual([
      [{ path: '/data/trxPrice', message: 'must be string' }],
      [{ path: '/data/trxPrice', message: 'must be string' }],
    ]);
    const health = (await (await proxy.app.request('/_sim/health')).json()) as {
      proxy: { violations: number };
    };
    expect(health.proxy.violations).toBe(2);
  });

  it('finds nothing to report in the answers of a faithful upstream', async () => {
    const { fetch } = upstreamSimulator();
    const { proxy, reports } = proxyOf(fetch, { allowSpend: true });
    await proxy.app.request('/v1/tron/price?rentalCount=65000&period=1h', { headers: KEY });
    await proxy.app.request('/v1/account', { headers: KEY });
    await proxy.app.request('/v1/tron/order', { method: 'POST', headers: { ...KEY, ...FORM }, body: ORDER });
    expect(reports).toEqual([]);
    expect(proxy.journal.list().some((e) => e.violations)).toBe(false);
  });
});

describe('an upstream that fails', () => {
  it('answers 502 naming the upstream when it cannot be reached', async () => {
    const refused = (async () => {
      throw new TypeError('fetch failed', {
        cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }),
      });
    }) as typeof fetch;
    const { proxy } = proxyOf(refused);
    const res = await proxy.app.request('/v1/account', { headers: KEY });
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({
      code: 50200,
      msg: expect.stringMatching(/http:\/\/upstream\.test could not be reached \(ECONNREFUSED\)/),
      data: null,
    });
  });

  it('answers 504 naming the upstream and --upstream-timeout when it does not answer in time', async () => {
    const silent = ((_input: RequestInfo | URL, init?: RequestInit) =>
      new Promise((_resolve, reject) =>
        init!.signal!.addEventListener('abort', () => reject(init!.signal!.reason)),
      )) as typeof fetch;
    const { proxy } = proxyOf(silent, { timeoutMs: 50 });
    const res = await proxy.app.request('/v1/account', { headers: KEY });
    expect(res.status).toBe(504);
    expect(await res.json()).toMatchObject({
      code: 50400,
      msg: expect.stringContaining('did not answer within 50 ms (--upstream-timeout)'),
    });
  });

  it('refuses an upstream that is no http(s) URL when the simulator is made', () => {
    expect(() => createSimulator({ proxy: { upstream: 'ftp://x' } })).toThrow(
      /proxy\.upstream must be an http\(s\) URL/,
    );
  });
});

describe('faults and the rate limit in proxy mode', () => {
  it('applies an injected fault before forwarding, so the upstream never sees the request', async () => {
    const { reached, fetch } = upstreamSimulator();
    const { proxy } = proxyOf(fetch);
    const fault = await proxy.app.request('/_sim/faults', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ operation: 'getPrice', response: 'status', status: 503, times: 1 }),
    });
    expect(fault.status).toBe(201);
    expect(
      (await proxy.app.request('/v1/tron/price?rentalCount=65000&period=1h', { headers: KEY })).status,
    ).toBe(503);
    expect(reached).toEqual([]);
    expect(
      (await proxy.app.request('/v1/tron/price?rentalCount=65000&period=1h', { headers: KEY })).status,
    ).toBe(200);
    expect(reached).toHaveLength(1);
  });

  it('counts the rate limit per API key before forwarding', async () => {
    const { reached, fetch } = upstreamSimulator();
    const { proxy } = proxyOf(fetch);
    await proxy.app.request('/_sim/config', {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ rateLimit: { requests: 1, windowMs: 60_000 } }),
    });
    expect((await proxy.app.request('/v1/account', { headers: KEY })).status).toBe(200);
    expect((await proxy.app.request('/v1/account', { headers: KEY })).status).toBe(429);
    expect((await proxy.app.request('/v1/account', { headers: { 'API-KEY': 'other' } })).status).toBe(401);
    expect(reached).toHaveLength(2);
  });
});

describe('proxy mode over a socket', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
  });

  it('sends the happy path upstream too: the Node fast path steps aside', async () => {
    const { reached, fetch } = upstreamSimulator();
    const { proxy } = proxyOf(fetch);
    const server = createSimulatorServer(proxy);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const res = await globalThis.fetch(`${base}/v1/tron/price?rentalCount=65000&period=1h`, { headers: KEY });
    expect(res.status).toBe(200);
    expect(reached).toEqual(['GET /v1/tron/price?rentalCount=65000&period=1h']);
    const health = (await (await globalThis.fetch(`${base}/_sim/health`)).json()) as {
      mode: string;
      capabilities: string[];
    };
    expect(health.mode).toBe('proxy');
    expect(health.capabilities).toEqual([]);
  });
});
