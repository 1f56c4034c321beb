/**
 * A web page must not drive or read a simulator on a socket: the Host check against DNS
 * rebinding, the refusal of cross-site writes to the control plane, no CORS, and the
 * token rules of the live-event stream, all over a real socket with the headers a
 * browser sends.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createValidators, loadSpec } from '../../src/spec/loader.ts';
import { createSimulator, type Simulator } from '../simulator.ts';
import { createRequestGuard, parseAllowedHosts, type RequestGuardOptions } from './request-guard.ts';
import {
  exchange,
  listen,
  rawRequest,
  request,
  type Listening,
  type RawReply,
} from '../test-support/socket-test-support.ts';

const errorEnvelope = createValidators(loadSpec('control')).schema('Error');
const JSON_TYPE = { 'content-type': 'application/json' };
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function served(
  options: RequestGuardOptions = {},
  sim: Simulator = createSimulator({ clock: 'manual' }),
): Promise<Listening & { sim: Simulator }> {
  const listening = await listen(sim, options);
  cleanups.push(listening.close);
  return { ...listening, sim };
}

function expectRefused(reply: RawReply, status: number, code: number, msg: RegExp): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.headers['content-type']).toBe('application/json');
  expect(reply.body).toMatchObject({ code, msg: expect.stringMatching(msg), data: null });
  expect(errorEnvelope(reply.body), JSON.stringify(errorEnvelope.errors)).toBe(true);
}

/** Everything a refused request could have changed. */
const stateOf = (sim: Simulator) =>
  JSON.stringify({ version: sim.engine.version, snapshot: sim.engine.snapshot(), faults: sim.faults.list() });

describe('the Host check', () => {
  it.each([
    ['GET', '/v1/account'],
    ['GET', '/v1/tron/price?rentalCount=65000&period=1h'],
    ['GET', '/api/v1/account'],
    ['GET', '/_sim/accounts'],
    ['GET', '/_sim/journal'],
    ['GET', '/_sim/health'],
    ['GET', '/_sim/dashboard'],
    ['GET', '/_sim/ui'],
    ['GET', '/_sim/events'],
    ['GET', '/docs'],
    ['GET', '/docs/control'],
    ['POST', '/_sim/reset'],
  ])(
    'refuses %s %s under a foreign Host with 403, code 10005, naming --allowed-hosts',
    async (method, path) => {
      const { port } = await served();
      const reply = await rawRequest(port, method, path, {
        host: 'evil.example:8787',
        'api-key': 'demo-key',
      });
      expectRefused(
        reply,
        403,
        10005,
        /Host 'evil\.example:8787' is not allowed.*--allowed-hosts evil\.example.*ENERGY_SIM_ALLOWED_HOSTS/,
      );
    },
  );

  it('refuses before the fast path: a rebound page can neither read a price nor create an order', async () => {
    const { port, sim } = await served();
    const before = stateOf(sim);
    expectRefused(
      await rawRequest(port, 'GET', '/v1/tron/price?rentalCount=65000&period=1h', {
        host: 'evil.example',
        'api-key': 'demo-key',
      }),
      403,
      10005,
      /evil\.example/,
    );
    const form = 'pledgeAddress=TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3&rentalCount=65000&period=1h';
    const order = await rawRequest(
      port,
      'POST',
      '/v1/tron/order',
      { host: 'evil.example', 'api-key': 'demo-key', 'content-type': 'application/x-www-form-urlencoded' },
      form,
    );
    expectRefused(order, 403, 10005, /evil\.example/);
    expect(stateOf(sim)).toBe(before);
    expect(sim.journal.list({ limit: 10 })).toEqual([]);
  });

  it.each([
    '127.0.0.1',
    '127.0.0.1:8787',
    'localhost',
    'LOCALHOST:1234',
    'localhost.',
    '[::1]:8787',
    '[::1]',
    'app.localhost:5173',
    '10.1.2.3:8787',
    '[fe80::1]',
  ])('answers the Host %j, a loopback name or an IP address', async (host) => {
    const { port } = await served();
    const reply = await rawRequest(port, 'GET', '/v1/account', { host, 'api-key': 'demo-key' });
    expect(reply.status, reply.text).toBe(200);
  });

  it.each([
    'evil.example',
    'localhost.evil.example',
    'evillocalhost',
    '127.0.0.1.evil.example',
    'evil.example@127.0.0.1',
    'a b',
    '[::1',
    'energy-sim',
  ])('refuses the Host %j', async (host) => {
    const { port } = await served();
    expect((await rawRequest(port, 'GET', '/_sim/accounts', { host })).status).toBe(403);
  });

  it('answers the --host name and the names of --allowed-hosts, a leading dot adding a domain and its subdomains', async () => {
    const { port } = await served({ host: 'sim.lan', allowedHosts: ['energy-sim', '.example.com'] });
    for (const host of [
      'sim.lan:8787',
      'energy-sim:8787',
      'ENERGY-SIM',
      'example.com',
      'api.example.com:443',
      'a.b.example.com',
    ]) {
      expect((await rawRequest(port, 'GET', '/_sim/health', { host })).status, host).toBe(200);
    }
    for (const host of ['evil-example.com', 'example.com.evil.example', 'other-sim']) {
      expect((await rawRequest(port, 'GET', '/_sim/health', { host })).status, host).toBe(403);
    }
  });

  it('turns the check off with --allowed-hosts all', async () => {
    const { port } = await served({ allowedHosts: 'all' });
    expect((await rawRequest(port, 'GET', '/_sim/accounts', { host: 'evil.example:8787' })).status).toBe(200);
  });

  it('refuses a request with no Host (HTTP/1.0) with the envelope, even with all, instead of a bare 400', async () => {
    for (const options of [{}, { allowedHosts: 'all' as const }]) {
      const { port } = await served(options);
      const [reply] = (await exchange(port, request('GET /_sim/health HTTP/1.0'))).responses;
      expect(reply?.status).toBe(403);
      expect(reply?.json).toMatchObject({
        code: 10005,
        msg: expect.stringMatching(/no Host header.*'Host: 127\.0\.0\.1:8787'/),
        data: null,
      });
    }
  });

  it('refuses an empty Host', async () => {
    const { port } = await served();
    const { responses } = await exchange(port, request('GET /_sim/accounts HTTP/1.1\r\nHost: '));
    expect(responses[0]?.status).toBe(403);
  });

  it('keeps a keep-alive connection usable after refusing a request with a body', async () => {
    const { port } = await served();
    const body = JSON.stringify({ balance: { trx: '5' }, pad: 'x'.repeat(10_000) });
    expect(
      (await rawRequest(port, 'POST', '/_sim/accounts', { host: 'evil.example', ...JSON_TYPE }, body)).status,
    ).toBe(403);
    expect((await rawRequest(port, 'GET', '/_sim/health')).status).toBe(200);
  });
});

describe('the verdicts the guard keeps', () => {
  it('gives every Host the same verdict each time it is sent, past the number of verdicts it keeps', () => {
    const guard = createRequestGuard({ host: '127.0.0.1' });
    const get = (host: string) => guard({ method: 'GET', url: '/v1/account', headers: { host } });
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 3000; i++) expect(get(`h${i}.example:8787`)?.code).toBe(10005);
      expect(get('localhost:8787')).toBeNull();
      expect(get('127.0.0.1:8787')).toBeNull();
      expect(get('evil.example')?.code).toBe(10005);
    }
  });

  it('looks for the control plane in every spelling of a write, escaped or not, and nowhere else', () => {
    const guard = createRequestGuard({ host: '127.0.0.1' });
    const post = (url: string) =>
      guard({ method: 'POST', url, headers: { host: '127.0.0.1:8787', origin: 'https://evil.example' } });
    for (const url of ['/_sim/reset', '/%5Fsim/reset', '/%5fSIM/reset', '//_sim/reset', '/v1/../_sim/reset'])
      expect(post(url)?.code, url).toBe(10006);
    for (const url of ['/v1/tron/order', '/api/v1/tron/order?x=1', '/sim/reset'])
      expect(post(url), url).toBeNull();
  });
});

describe('cross-site writes to the control plane', () => {
  it("refuses the issue's text/plain POST with a foreign Origin, and creates no account", async () => {
    const { port, sim } = await served();
    const before = stateOf(sim);
    const reply = await rawRequest(
      port,
      'POST',
      '/_sim/accounts',
      { 'content-type': 'text/plain', origin: 'http://evil.example' },
      '{"balance":{"trx":"5"}}',
    );
    expectRefused(
      reply,
      403,
      10006,
      /Cross-site write refused: POST \/_sim\/accounts came from Origin 'http:\/\/evil\.example'/,
    );
    expect(stateOf(sim)).toBe(before);
  });

  it('refuses a foreign Origin even with a JSON body, and on a bodiless reset', async () => {
    const { port, sim } = await served();
    await rawRequest(port, 'POST', '/_sim/accounts', JSON_TYPE, '{"balance":{"trx":"5"}}');
    const before = stateOf(sim);
    expectRefused(
      await rawRequest(
        port,
        'POST',
        '/_sim/accounts',
        { ...JSON_TYPE, origin: 'http://evil.example' },
        '{"balance":{"trx":"5"}}',
      ),
      403,
      10006,
      /Origin/,
    );
    expectRefused(
      await rawRequest(port, 'POST', '/_sim/reset', { origin: 'http://evil.example' }),
      403,
      10006,
      /POST \/_sim\/reset/,
    );
    expectRefused(
      await rawRequest(port, 'DELETE', '/_sim/journal', { origin: 'null' }),
      403,
      10006,
      /Origin 'null'/,
    );
    expect(stateOf(sim)).toBe(before);
  });

  it.each([
    ['another port of the same machine', (port: number) => `http://127.0.0.1:${port + 1}`],
    ['another name of the same machine', (port: number) => `http://localhost:${port}`],
    ['a path after the origin', (port: number) => `http://127.0.0.1:${port}/x`],
    ['another scheme', (port: number) => `ftp://127.0.0.1:${port}`],
  ])('counts an Origin on %s as foreign', async (_what, origin) => {
    const { port } = await served();
    expect((await rawRequest(port, 'POST', '/_sim/reset', { origin: origin(port) })).status).toBe(403);
  });

  it('refuses what Sec-Fetch-Site calls cross-site or same-site', async () => {
    const { port, sim } = await served();
    const before = stateOf(sim);
    for (const site of ['cross-site', 'same-site']) {
      expectRefused(
        await rawRequest(
          port,
          'PATCH',
          '/_sim/config',
          { ...JSON_TYPE, 'sec-fetch-site': site },
          '{"failureRate":1}',
        ),
        403,
        10006,
        new RegExp(`Sec-Fetch-Site: ${site}`),
      );
    }
    expect(stateOf(sim)).toBe(before);
  });

  it.each([
    ['text/plain', 'text/plain;charset=UTF-8'],
    ['a form', 'application/x-www-form-urlencoded'],
    ['multipart', 'multipart/form-data; boundary=x'],
    ['a JSON look-alike', 'application/jsonx'],
  ])(
    'refuses a body sent as %s with 415, code 20005, naming the content type to send',
    async (_what, type) => {
      const { port, sim } = await served();
      const before = stateOf(sim);
      const reply = await rawRequest(port, 'PUT', '/_sim/supply', { 'content-type': type }, '{"energy":5}');
      expectRefused(reply, 415, 20005, /send 'content-type: application\/json' with PUT \/_sim\/supply/);
      expect(stateOf(sim)).toBe(before);
    },
  );

  it('refuses a body with no content type, as curl -d sends with a form type', async () => {
    const { port } = await served();
    expectRefused(
      await rawRequest(port, 'POST', '/_sim/clock/advance', { 'transfer-encoding': 'chunked' }, '{"ms":5}'),
      415,
      20005,
      /got no content type/,
    );
  });

  it('takes a bodiless POST /_sim/reset from curl, and JSON writes from tools and from its own pages', async () => {
    const { port, host, sim } = await served();
    expect((await rawRequest(port, 'POST', '/_sim/reset')).status).toBe(200);
    expect(
      (await rawRequest(port, 'POST', '/_sim/reset', { 'content-type': 'text/plain', 'content-length': '0' }))
        .status,
    ).toBe(200);
    const own = { ...JSON_TYPE, origin: `http://${host}`, 'sec-fetch-site': 'same-origin' };
    const created = await rawRequest(
      port,
      'POST',
      '/_sim/accounts',
      { 'content-type': 'application/json; charset=utf-8' },
      '{"balance":{"trx":"5"}}',
    );
    expect(created.status, created.text).toBe(201);
    const fromPage = await rawRequest(port, 'POST', '/_sim/accounts', own, '{"balance":{"trx":"6"}}');
    expect(fromPage.status, fromPage.text).toBe(201);
    expect((await rawRequest(port, 'POST', '/_sim/clock/advance', own, '{"ms":1000}')).status).toBe(200);
    expect(sim.engine.accounts()).toHaveLength(3);
  });

  it('takes an Origin that matches the Host it came with, whatever allowed name that is', async () => {
    const { port } = await served({ allowedHosts: ['energy-sim'] });
    const reply = await rawRequest(port, 'POST', '/_sim/reset', {
      host: 'energy-sim:8787',
      origin: 'http://energy-sim:8787',
    });
    expect(reply.status, reply.text).toBe(200);
    expect(
      (await rawRequest(port, 'POST', '/_sim/reset', { host: 'localhost', origin: 'http://localhost' }))
        .status,
    ).toBe(200);
  });

  it.each([
    '/%5Fsim/reset',
    '/v1/../_sim/reset',
    '/_sim/./reset',
    '/_SIM/reset',
    '//_sim/reset',
    '/_sim%2Freset',
  ])('does not let %j slip past as another path', async (path) => {
    const { port, sim } = await served();
    await rawRequest(port, 'POST', '/_sim/accounts', JSON_TYPE, '{"balance":{"trx":"5"}}');
    const before = stateOf(sim);
    expect((await rawRequest(port, 'POST', path, { origin: 'http://evil.example' })).status).toBe(403);
    expect(stateOf(sim)).toBe(before);
  });

  it('leaves reads with a foreign Origin to the browser, which gets no CORS header to read them with', async () => {
    const { port } = await served();
    const reply = await rawRequest(port, 'GET', '/_sim/health', { origin: 'http://evil.example' });
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });
});

describe('no CORS', () => {
  it.each(['/_sim/accounts', '/_sim/reset', '/v1/tron/order', '/v1/account', '/docs'])(
    'grants no preflight on %s',
    async (path) => {
      const { port } = await served();
      const reply = await rawRequest(port, 'OPTIONS', path, {
        origin: 'http://evil.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, api-key',
      });
      expect(reply.status).toBeGreaterThanOrEqual(400);
      expect(Object.keys(reply.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    },
  );

  it('sends no Access-Control header on API and control-plane answers', async () => {
    const { port, host } = await served();
    for (const path of ['/v1/account', '/_sim/accounts', '/_sim/dashboard']) {
      const reply = await rawRequest(port, 'GET', path, { origin: `http://${host}`, 'api-key': 'demo-key' });
      expect(reply.status, path).toBe(200);
      expect(
        Object.keys(reply.headers).filter((name) => name.startsWith('access-control-')),
        path,
      ).toEqual([]);
    }
  });
});

describe('the live-event stream and the dashboard follow the same rules', () => {
  const withToken = () => createSimulator({ clock: 'manual', control: { token: 't0k' } });

  it('asks /_sim/events for the token, in the header or as ?token=, compared like every other call', async () => {
    const { port } = await served({}, withToken());
    expectRefused(await rawRequest(port, 'GET', '/_sim/events'), 401, 10004, /token/);
    expectRefused(
      await rawRequest(port, 'GET', '/_sim/events?token=t0k0'),
      401,
      10004,
      /Wrong control-plane token/,
    );
    expectRefused(
      await rawRequest(port, 'GET', '/_sim/events', { authorization: 'Bearer t0' }),
      401,
      10004,
      /Wrong/,
    );
    const stream = await rawRequest(port, 'GET', '/_sim/events?token=t0k');
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
    expect((await rawRequest(port, 'GET', '/_sim/events', { authorization: 'Bearer t0k' })).status).toBe(200);
  });

  it('refuses the stream and the dashboard under a foreign Host even with the right token', async () => {
    const { port } = await served({}, withToken());
    expect((await rawRequest(port, 'GET', '/_sim/events?token=t0k', { host: 'evil.example' })).status).toBe(
      403,
    );
    expect((await rawRequest(port, 'GET', '/_sim/ui?token=t0k', { host: 'evil.example' })).status).toBe(403);
    expect(
      (
        await rawRequest(port, 'GET', '/_sim/dashboard', {
          host: 'evil.example',
          authorization: 'Bearer t0k',
        })
      ).status,
    ).toBe(403);
  });

  it('serves the dashboard page, which holds no data, while its data needs the token', async () => {
    const { port } = await served({}, withToken());
    expect((await rawRequest(port, 'GET', '/_sim/ui?token=wrong')).status).toBe(200);
    expect((await rawRequest(port, 'GET', '/_sim/dashboard?token=t0k')).status).toBe(401);
    expect((await rawRequest(port, 'GET', '/_sim/dashboard', { authorization: 'Bearer t0k' })).status).toBe(
      200,
    );
  });
});

describe('parseAllowedHosts', () => {
  it('reads names separated by commas, and all', () => {
    expect(parseAllowedHosts('energy-sim, .example.com,,[::1],10.0.0.1')).toEqual([
      'energy-sim',
      '.example.com',
      '[::1]',
      '10.0.0.1',
    ]);
    expect(parseAllowedHosts('all')).toBe('all');
    expect(parseAllowedHosts('ALL')).toBe('all');
    expect(parseAllowedHosts('')).toEqual([]);
  });

  it.each([
    ['http://energy-sim', /'http:\/\/energy-sim' is not a host name.*without scheme, port or path/],
    ['energy-sim:8787', /'energy-sim:8787' is not a host name.*any port is allowed/],
    ['a/b', /'a\/b' is not a host name/],
    ['all,energy-sim', /'all' turns the Host check off and stands alone/],
  ])('refuses %j, naming the entry and the fix', (raw, message) => {
    expect(() => parseAllowedHosts(raw)).toThrow(message);
  });
});
