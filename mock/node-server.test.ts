/**
 * What the Node server does after an answer with the request's body: a body the core's
 * adapter read to its last byte leaves nothing to drain, so no drain (its timer and
 * listeners) is armed for it; a body left unread is still drained before the connection
 * may close.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createSimulatorServer } from './node-server.ts';
import { exchange, request } from './reliability/raw-http-test-support.ts';
import { createSimulator } from './simulator.ts';

const servers: Server[] = [];
afterEach(async () => {
  const open = servers.splice(0);
  for (const server of open) server.closeAllConnections();
  await Promise.all(open.map((s) => new Promise((resolve) => s.close(resolve))));
});

/**
 * Serves a fresh simulator; each finished answer pushes how many 'data' listeners its
 * request has just after the server's own 'finish' listener ran (the drain adds one).
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
  it('arms no drain for an order whose body was read to its last byte', async () => {
    const { port, dataListeners } = await served();
    const body = 'pledgeAddress=TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3&rentalCount=65000&period=1h';
    const { responses } = await exchange(port, request(ORDER_HEAD, body));
    expect(responses[0]).toMatchObject({ status: 200, json: { code: 0 } });
    expect(dataListeners).toEqual([0]);
  });

  it('still drains a body refused as too large before it was read', async () => {
    const { port, dataListeners } = await served();
    const { responses } = await exchange(port, request(ORDER_HEAD, 'x'.repeat(70_000)));
    expect(responses[0]).toMatchObject({ status: 413, json: { code: 20004 } });
    expect(dataListeners).toEqual([1]);
  });
});
