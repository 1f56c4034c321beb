/**
 * Property-based test of what a web page can do to a simulator on a socket: fast-check
 * generates requests over Host (allowed names, foreign names, rebinding look-alikes),
 * Origin (none, the simulator's own, foreign, `null`), Sec-Fetch-Site, content type and
 * method, aimed at the control plane's state-changing routes and at the API. Each
 * generated value carries whether a page could have sent it, so the oracle is the
 * label, not a second copy of the guard:
 *
 * - a foreign Host is always refused (403, code 10005);
 * - a control-plane write with a foreign Origin or a cross-site Sec-Fetch-Site is always
 *   refused, and one with a body that is not JSON too;
 * - a refused request changes nothing: the engine's version and snapshot, the faults
 *   and the journal are the same before and after;
 * - a same-origin (or Origin-less) JSON request under an allowed Host still works.
 *
 * Deterministic: seeded with FC_SEED when set, else a fixed seed.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, listen, type Listening } from '../test-support/socket-test-support.ts';
import { createSimulator, type Simulator } from '../simulator.ts';
import { ADDRESS } from '../test-support/fixtures.ts';

const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : 20_251_124;

let sim: Simulator;
let served: Listening;
beforeAll(async () => {
  sim = createSimulator({ clock: 'manual' });
  served = await listen(sim, { allowedHosts: ['energy-sim'] });
});
afterAll(() => served.close());

interface Labelled<T> {
  value: T;
  /** Whether the request may pass on this account. */
  allowed: boolean;
}

const allowedHost = fc.constantFrom(
  () => served.host,
  () => `localhost:${served.port}`,
  () => `[::1]:${served.port}`,
  () => 'app.localhost',
  () => 'energy-sim:8787',
  () => '192.168.1.20:8787',
);
const foreignHost = fc.oneof(
  fc.constantFrom(
    () => `evil.example:${served.port}`,
    () => 'localhost.evil.example',
    () => 'energy-sim.evil.example',
    () => '127.0.0.1.nip.io',
    () => 'evil.example@127.0.0.1',
  ),
  fc
    .domain()
    .filter((name) => !/(^|\.)localhost\.?$/i.test(name) && !/^energy-sim\.?$/i.test(name))
    .map((name) => () => name),
);
const host: fc.Arbitrary<Labelled<() => string>> = fc.oneof(
  allowedHost.map((value) => ({ value, allowed: true })),
  foreignHost.map((value) => ({ value, allowed: false })),
);

/** An Origin given the Host sent: none, the simulator's own, or a foreign one. */
const origin: fc.Arbitrary<Labelled<(hostHeader: string) => string | undefined>> = fc.oneof(
  fc.constant({ value: () => undefined, allowed: true }),
  fc.constant({ value: (h: string) => `http://${h}`, allowed: true }),
  fc
    .oneof(
      fc.constantFrom('http://evil.example', 'null', 'https://evil.example:443', `http://127.0.0.1:1`),
      fc.domain().map((name) => `http://${name}`),
    )
    .map((foreign) => ({
      value: (h: string) => (foreign === `http://${h}` ? 'null' : foreign),
      allowed: false,
    })),
  fc.constant({ value: (h: string) => `http://${h.replace(/:\d+$/, '')}:1`, allowed: false }),
);

const fetchSite: fc.Arbitrary<Labelled<string | undefined>> = fc.oneof(
  fc.constantFrom(undefined, 'same-origin', 'none').map((value) => ({ value, allowed: true })),
  fc.constantFrom('cross-site', 'same-site').map((value) => ({ value, allowed: false })),
);

const contentType: fc.Arbitrary<Labelled<string | undefined>> = fc.oneof(
  fc
    .constantFrom('application/json', 'application/json; charset=utf-8', 'Application/JSON')
    .map((value) => ({ value, allowed: true })),
  fc
    .constantFrom(
      undefined,
      'text/plain',
      'text/plain;charset=UTF-8',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonp',
    )
    .map((value) => ({ value, allowed: false })),
);

/** State-changing routes of the control plane with a valid body (undefined: none), and API calls. */
const ROUTES = [
  { method: 'POST', path: '/_sim/accounts', body: { balance: { trx: '7' } } },
  { method: 'POST', path: '/_sim/reset', body: undefined },
  { method: 'PATCH', path: '/_sim/config', body: { failureRate: 0.5 } },
  { method: 'PUT', path: '/_sim/supply', body: { energy: 5 } },
  { method: 'POST', path: '/_sim/rules', body: { match: { pledgeAddress: ADDRESS }, outcome: 'FAILED' } },
  { method: 'DELETE', path: '/_sim/rules', body: undefined },
  { method: 'POST', path: '/_sim/clock/advance', body: { ms: 1000 } },
  {
    method: 'POST',
    path: '/_sim/faults',
    body: { operation: 'getPrice', response: 'status', status: 503, times: 1 },
  },
  { method: 'DELETE', path: '/_sim/faults', body: undefined },
  { method: 'PUT', path: `/_sim/addresses/${ADDRESS}`, body: { activated: true } },
  { method: 'GET', path: '/_sim/accounts', body: undefined },
  { method: 'GET', path: '/v1/account', body: undefined },
] as const;

const request = fc.record({
  route: fc.constantFrom(...ROUTES),
  // Sometimes another method than the route's: refusals must hold whatever the method.
  method: fc.option(fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'), { freq: 4 }),
  host,
  origin,
  fetchSite,
  contentType,
});

const stateOf = (s: Simulator): string =>
  JSON.stringify({
    version: s.engine.version,
    snapshot: s.engine.snapshot(),
    faults: s.faults.list(),
    journal: s.journal.list({ limit: 1 }),
  });

describe('requests a web page could send', () => {
  it('never change anything when refused, are always refused when hostile, and work when same-origin JSON', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 4 }), async (requests) => {
        for (const r of requests) {
          const method = r.method ?? r.route.method;
          const hostHeader = r.host.value();
          const headers: Record<string, string> = { host: hostHeader, 'api-key': 'demo-key' };
          const originHeader = r.origin.value(hostHeader);
          if (originHeader !== undefined) headers.origin = originHeader;
          if (r.fetchSite.value !== undefined) headers['sec-fetch-site'] = r.fetchSite.value;
          if (r.contentType.value !== undefined) headers['content-type'] = r.contentType.value;
          const body = r.route.body === undefined ? undefined : JSON.stringify(r.route.body);

          const before = stateOf(sim);
          const reply = await rawRequest(served.port, method, r.route.path, headers, body);
          const refused =
            (reply.status === 403 || reply.status === 415) &&
            [10005, 10006, 20005].includes(reply.body?.code);
          const what = `${method} ${r.route.path} ${JSON.stringify(headers)} -> ${reply.status} ${reply.text}`;

          if (refused) expect(stateOf(sim), what).toBe(before);
          if (!r.host.allowed) expect([reply.status, reply.body?.code], what).toEqual([403, 10005]);

          const controlWrite = method !== 'GET' && r.route.path.startsWith('/_sim');
          const bodySent = body !== undefined;
          if (r.host.allowed && controlWrite && (!r.origin.allowed || !r.fetchSite.allowed))
            expect([reply.status, reply.body?.code], what).toEqual([403, 10006]);
          if (r.host.allowed && controlWrite && bodySent && !r.contentType.allowed)
            expect(refused, what).toBe(true);

          const sameOrigin =
            r.host.allowed && r.origin.allowed && r.fetchSite.allowed && (!bodySent || r.contentType.allowed);
          if (sameOrigin && r.method === null) expect(reply.status, what).toBeLessThan(300);
        }
      }),
      { seed: SEED, numRuns: 300 },
    );
  }, 120_000);
});
