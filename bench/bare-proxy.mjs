#!/usr/bin/env node
// The ceiling of any proxy on this machine: a bare node:http server that hands every
// request to an upstream over kept-alive node:http connections and passes the answer
// back, checking and recording nothing. What `serve --upstream` costs beyond it is the
// kit's own work (routing, the journal, validation, the spending guard).
//
//   node bench/bare-proxy.mjs <port> <upstream-url>      (port 0 picks a free one)
//
// Prints 'listening <port>' once it listens on 127.0.0.1; SIGTERM or SIGINT stops it.
import http from 'node:http';
import { listenUntilStopped } from './listen.mjs';

const port = Number(process.argv[2] ?? 0);
const upstream = new URL(process.argv[3] ?? 'http://127.0.0.1:8787');
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

const server = http.createServer((req, res) => {
  const headers = {};
  for (const name of ['api-key', 'content-type', 'accept', 'content-length'])
    if (req.headers[name] !== undefined) headers[name] = req.headers[name];
  const outgoing = http.request(
    { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers, agent },
    (incoming) => {
      const chunks = [];
      incoming.on('data', (chunk) => chunks.push(chunk));
      incoming.on('end', () => {
        const body = Buffer.concat(chunks);
        res.writeHead(incoming.statusCode ?? 502, {
          'content-type': incoming.headers['content-type'] ?? 'application/json',
          'content-length': body.length,
        });
        res.end(body);
      });
    },
  );
  outgoing.on('error', () => {
    res.writeHead(502);
    res.end();
  });
  req.pipe(outgoing);
});

listenUntilStopped(server, port, () => agent.destroy());
