#!/usr/bin/env node
// The bench's own servers: node bench/fixed-servers.mjs <kind> <port> [body-file | upstream-url]
//   bare   node:http answering the bytes of body-file (default: a price envelope) to every request
//   hono   the smallest Hono app on @hono/node-server answering the same bytes (the stack's floor)
//   slow   `bare` after 10-30 ms (drawn per request): an upstream across a network
//   proxy  node:http forwarding to upstream-url over kept-alive connections (a proxy's floor)
//   big    100 MB of spaces as JSON (every other answer declares its Content-Length)
//   json   100 MB of JSON whose every element holds a secret-named key
//   drip   headers, then a kilobyte every 20 ms, forever
// big, json and drip answer their first request with a small JSON (it warms the proxy).
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const [kind, port = '0', bodyFile] = process.argv.slice(2);
const body =
  bodyFile && kind !== 'proxy'
    ? readFileSync(bodyFile)
    : Buffer.from(
        '{"code":0,"msg":"Get price successfully","time":"1741801809","data":{"sun":"65","trxPrice":"4.23","period":"1h","resourceType":"ENERGY","rentalCount":65000}}',
      );
const JSON_TYPE = { 'content-type': 'application/json' };
const MB = 1024 * 1024;
const ELEMENT = '{"id":1,"apiKey":"sk_live_0123456789abcdef","note":"an element of a large answer"},';

/** The nth megabyte of a `json` answer: the envelope's start, elements, its end. */
function jsonBlock(n) {
  const out = Buffer.alloc(MB, 0x20);
  const elements = ELEMENT.repeat(Math.floor((MB - 64) / ELEMENT.length));
  out.write((n === 0 ? '{"code":0,"msg":"large","data":[' : '') + elements + (n === 99 ? '{"id":0}]}' : ''));
  return out;
}

const spaces = Buffer.alloc(MB, 0x20);
const agent = new http.Agent({ keepAlive: true });
let served = 0;

/** @type {http.RequestListener} */
function large(req, res) {
  res.on('error', () => {});
  if (served++ === 0) return void res.end('{"code":0,"msg":"warm","time":"1","data":null}');
  if (kind === 'drip') {
    res.writeHead(200, JSON_TYPE);
    const timer = setInterval(() => res.write(spaces.subarray(0, 1024)), 20);
    return void res.once('close', () => clearInterval(timer));
  }
  res.writeHead(200, { ...JSON_TYPE, ...(served % 2 === 0 ? { 'content-length': String(100 * MB) } : {}) });
  let sent = 0;
  const pump = () => {
    while (sent < 100 && !res.destroyed)
      if (!res.write(kind === 'json' ? jsonBlock(sent++) : (sent++, spaces)))
        return void res.once('drain', pump);
    if (!res.destroyed) res.end();
  };
  pump();
}

/** @type {Record<string, http.RequestListener>} */
const handlers = {
  bare: (req, res) => {
    req.resume();
    res.writeHead(200, { ...JSON_TYPE, 'content-length': body.length }).end(body);
  },
  slow: (req, res) => {
    req.resume();
    setTimeout(() => handlers.bare(req, res), 10 + Math.random() * 20);
  },
  proxy: (req, res) => {
    const options = { method: req.method, headers: req.headers, agent };
    const forwarded = http.request(new URL(req.url, bodyFile), options, (answer) => {
      res.writeHead(answer.statusCode, answer.headers);
      answer.pipe(res);
    });
    req.pipe(forwarded.on('error', () => res.destroy()));
  },
  big: large,
  json: large,
  drip: large,
};

let server;
const listening = () => process.stdout.write(`${server.address().port}\n`);
if (kind === 'hono') {
  const app = new Hono().all('*', (c) => c.body(body, 200, JSON_TYPE));
  server = serve({ fetch: app.fetch, port: Number(port), hostname: '127.0.0.1' }, listening);
} else if (handlers[kind]) {
  server = http.createServer(handlers[kind]).listen(Number(port), '127.0.0.1', listening);
} else {
  process.stderr.write(`fixed-servers: unknown kind '${kind}' (bare, hono, slow, big, json, drip)\n`);
  process.exit(2);
}
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
