/**
 * What the Node server does around the app: after an answer, a body the app read to its
 * last byte leaves nothing to drain, so no drain (its timer and listeners) is armed for it,
 * and a body left unread is still drained before the connection may close; and the Host it
 * builds the request's URL on.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createSimulatorServer, routableHost } from './node-server.ts';
import { exchange, request } from './test-support/socket-test-support.ts';
import { createSimulator } from './simulator.ts';

const servers: Server[] = [];
afterEach(async () => {
  const open = servers.splice(0);
  for (const server of open) server.closeAllConnections();
  await Promise.all(open.map((s) => new Promise((resolve) => s.close(resolve))));
});

/**
 * Serves a fresh simulator; each finished answer pushes how many 'data' listeners its
 * request has just after the server's own 'finish' listener ran (the drain adds one to a
 * body nobody read).
 */
async function served(): Promise<{ port: number; dataListeners: number[] }> {
  const server = createSimulatorServer(createSimulator({ clock: 'manual', timing: 'instant' }), {
    allowedHosts: 'all',
  });
  servers.push(server);
  const dataListeners: number[] = [];
  // Added after the server's own listener, so its 'finish' listener runs after the drain's.
  server.on('request', (req: IncomingMessage, res) =>
    res.on('finish', () => dataListeners.push(req.listenerCount('data'))),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, dataListeners };
}

const ORDER_HEAD =
  'POST /v1/tron/order HTTP/1.1\r\nHost: 127.0.0.1\r\nAPI-KEY: demo-key\r\nContent-Type: application/x-www-form-urlencoded\r\nConnection: close';

describe('the Node server after an answer', () => {
  it('serves the next request on the connection of an order whose body was read whole', async () => {
    const { port } = await served();
    const body = 'pledgeAddress=TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3&rentalCount=65000&period=1h';
    const keepAlive = ORDER_HEAD.replace('Connection: close', 'Connection: keep-alive');
    const { responses } = await exchange(port, [
      request(keepAlive, body),
      request('GET /v1/account HTTP/1.1\r\nHost: 127.0.0.1\r\nAPI-KEY: demo-key\r\nConnection: close'),
    ]);
    expect(responses.map((r) => r.status)).toEqual([200, 200]);
    expect(responses[0]).toMatchObject({ json: { code: 0 } });
  });

  it('still drains a body refused as too large before it was read', async () => {
    const { port, dataListeners } = await served();
    const { responses } = await exchange(port, request(ORDER_HEAD, 'x'.repeat(70_000)));
    expect(responses[0]).toMatchObject({ status: 413, json: { code: 20004 } });
    expect(dataListeners).toEqual([1]);
  });
});

const socket = { localAddress: '127.0.0.1', localPort: 8787 } as never;
const ipv6Socket = { localAddress: '::1', localPort: 8787 } as never;
const host = (value: string | undefined, on = socket) =>
  routableHost({ headers: value === undefined ? {} : { host: value }, socket: on });

describe('routableHost', () => {
  it('keeps a Host that is a plain authority', () => {
    for (const value of ['localhost', '127.0.0.1:8787', '[::1]:8787', 'energy-sim:8787', 'Example.COM'])
      expect(host(value)).toBe(value);
  });

  it('replaces a Host that could move part of the URL, or that the URL parser refuses, with the local address', () => {
    for (const value of ['a b', 'x/y?z', 'x#y', 'user@evil', 'x?y', '', 'a127.0.0.1', 'x:65536', '[zz]'])
      expect(host(value), value).toBe('127.0.0.1:8787');
  });

  it('brackets an IPv6 local address and stands in for a missing Host', () => {
    expect(host(undefined, ipv6Socket)).toBe('[::1]:8787');
  });
});
