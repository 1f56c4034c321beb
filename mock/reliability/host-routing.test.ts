/**
 * A request is routed by its target alone, never by its Host header:
 * `Host: a b` once closed the socket of an order the fast path replayed, and `Host: x/y?z`
 * routed a valid order to 404. These tests use the server created directly, with no host
 * check in front, so they hold whatever that check allows.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSimulator } from '../simulator.ts';
import { exchange, listen, request } from '../test-support/socket-test-support.ts';
import { ORDER_QUERY } from '../test-support/fixtures.ts';

const FORM = 'Content-Type: application/x-www-form-urlencoded';
const HOSTS = [
  'a b',
  'x/y?z',
  'a127.0.0.1',
  'x:65536',
  'x#frag',
  'user@evil.example',
  'x?y',
  '/',
  '..',
  'evil.example:99999/x',
  'LOCALHOST',
  '[::1]:8787',
  '',
];

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

async function served() {
  const reported: unknown[] = [];
  const sim = createSimulator({
    clock: 'manual',
    timing: 'instant',
    onUnexpectedError: (error) => reported.push(error),
  });
  const { port, close } = await listen(sim, { allowedHosts: 'all' });
  closers.push(close);
  return { sim, port, reported };
}

const head = (line: string, host: string, extra = ''): string =>
  `${line} HTTP/1.1\r\nHost: ${host}\r\nAPI-KEY: demo-key\r\nConnection: close${extra}`;

describe('routing by the request target, whatever the Host', () => {
  for (const host of HOSTS) {
    it(`answers an order with an invalid parameter and Host '${host}' with the 400 envelope`, async () => {
      const { port, reported } = await served();
      const { responses, error } = await exchange(
        port,
        request(head('POST /v1/tron/order', host, `\r\n${FORM}`), 'rentalCount=12'),
      );
      expect(error).toBeUndefined();
      expect(responses[0]).toMatchObject({ status: 400, json: { code: 20001, data: null } });
      expect(reported).toEqual([]);
    });

    it(`creates a valid order sent with Host '${host}', on the fast path and through Hono`, async () => {
      const { sim, port } = await served();
      // Plain pairs take the fast path; a percent-encoded one goes through Hono.
      for (const body of [ORDER_QUERY, `${ORDER_QUERY}&outOrderNo=a%2Db`]) {
        const { responses } = await exchange(
          port,
          request(head('POST /v1/tron/order', host, `\r\n${FORM}`), body),
        );
        expect(responses[0]).toMatchObject({ status: 200, json: { code: 0, data: { currency: 'TRX' } } });
      }
      expect(sim.engine.authenticate('demo-key')!.orders).toHaveLength(2);
    });

    it(`serves the API and the control plane with Host '${host}'`, async () => {
      const { port } = await served();
      for (const target of [
        '/v1/account',
        '/api/v1/account',
        '/_sim/health',
        '/v1/tron/price?rentalCount=65000&period=1h',
      ]) {
        const { responses } = await exchange(port, request(head(`GET ${target}`, host)));
        expect(responses[0], target).toMatchObject({ status: 200 });
      }
    });
  }

  it('answers a request with no Host header at all (HTTP/1.0) with an envelope', async () => {
    const { port, reported } = await served();
    const { responses } = await exchange(port, 'GET /v1/account HTTP/1.0\r\nAPI-KEY: demo-key\r\n\r\n');
    // The Host check refuses a missing Host (403, 10005) even when it allows every name.
    expect(responses[0]).toMatchObject({ status: 403, json: { code: 10005, data: null } });
    expect(reported).toEqual([]);
  });

  it('routes an absolute-form target by its path', async () => {
    const { port } = await served();
    const { responses } = await exchange(
      port,
      request(head('GET http://elsewhere.example/v1/account', 'x/y?z')),
    );
    expect(responses[0]).toMatchObject({ status: 200, json: { code: 0 } });
  });
});
