#!/usr/bin/env node
// A reference point between the ceiling and the simulator: the smallest Hono app on
// @hono/node-server (the simulator's framework and adapter), answering the same fixed
// price envelope as bench/bare-server.mjs with c.json. What it loses to the bare server
// is the framework's own cost; what the simulator loses beyond it is the simulator's.
//
//   node bench/hono-server.mjs [port]      prints 'listening <port>'; SIGTERM stops it
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const port = Number(process.argv[2] ?? 0);
const body = {
  code: 0,
  msg: 'Get price successfully',
  time: String(Math.floor(Date.now() / 1000)),
  data: { sun: '65', trxPrice: '4.23', period: '1h', resourceType: 'ENERGY', rentalCount: 65000 },
};
const app = new Hono();
app.all('*', (c) => c.json(body));
const server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, (info) => {
  process.stdout.write(`listening ${info.port}\n`);
});
const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections?.();
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
