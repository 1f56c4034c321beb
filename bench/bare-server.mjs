#!/usr/bin/env node
// The ceiling: a bare node:http server that answers every request with a fixed price
// envelope, the same JSON the simulator sends for GET /v1/tron/price. Nothing else runs
// per request, so its req/s is what this machine, Node and the load generator allow.
//
//   node bench/bare-server.mjs [port]      (or BARE_PORT=…; 0 or nothing picks a free port)
//
// Prints 'listening <port>' once it listens on 127.0.0.1; SIGTERM or SIGINT stops it.
import http from 'node:http';
import { listenUntilStopped } from './listen.mjs';

const port = Number(process.argv[2] ?? process.env.BARE_PORT ?? 0);
const body = Buffer.from(
  JSON.stringify({
    code: 0,
    msg: 'Get price successfully',
    time: String(Math.floor(Date.now() / 1000)),
    data: { sun: '65', trxPrice: '4.23', period: '1h', resourceType: 'ENERGY', rentalCount: 65000 },
  }),
);
const headers = { 'content-type': 'application/json', 'content-length': String(body.length) };

const server = http.createServer((req, res) => {
  // Drain any request body (the order load POSTs one) before answering.
  req.resume();
  res.writeHead(200, headers);
  res.end(body);
});

listenUntilStopped(server, port);
