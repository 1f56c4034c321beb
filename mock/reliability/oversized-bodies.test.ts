/**
 * 413, never a reset: every oversized body, on every route and with
 * every content type, declared or chunked, gets the 413 envelope and an orderly
 * connection. A reset is intermittent (it races the client's reading of the answer), so
 * each case is sent many times at once.
 */
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createSimulator } from '../simulator.ts';
import { exchange, listen, parseResponses } from '../test-support/socket-test-support.ts';

const REPEAT = 20;
const SIZE = 1024 * 1024 + 17;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

// The order route (the fast path's, under both prefixes), a control-plane JSON route, a read
// and a path that does not exist.
const ROUTES = [
  'POST /v1/tron/order',
  'POST /api/v1/tron/order',
  'PUT /_sim/supply',
  'POST /_sim/accounts',
  'GET /v1/account',
  'POST /no/such/path',
];
const TYPES: Array<[string, string | undefined, string]> = [
  ['a form', 'application/x-www-form-urlencoded', 'pad='],
  ['JSON', 'application/json', '{"pad":"'],
  ['text/plain', 'text/plain', ''],
  ['no content type', undefined, ''],
];

function oversized(
  line: string,
  type: string | undefined,
  prefix: string,
  chunked: boolean,
  close: boolean,
): Buffer {
  const body = Buffer.alloc(SIZE, 'x');
  body.write(prefix);
  const headers = [`${line} HTTP/1.1`, 'Host: 127.0.0.1', 'API-KEY: demo-key'];
  if (type) headers.push(`Content-Type: ${type}`);
  if (close) headers.push('Connection: close');
  if (!chunked)
    return Buffer.concat([Buffer.from(`${headers.join('\r\n')}\r\nContent-Length: ${SIZE}\r\n\r\n`), body]);
  // Chunked in 64 KiB pieces, with no length declared anywhere.
  const parts = [Buffer.from(`${headers.join('\r\n')}\r\nTransfer-Encoding: chunked\r\n\r\n`)];
  for (let at = 0; at < SIZE; at += 65536) {
    const piece = body.subarray(at, Math.min(SIZE, at + 65536));
    parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from('0\r\n\r\n'));
  return Buffer.concat(parts);
}

describe('oversized bodies', () => {
  for (const route of ROUTES) {
    for (const [typeName, type, prefix] of TYPES) {
      for (const chunked of [false, true]) {
        const framing = chunked ? 'chunked' : 'with a Content-Length';
        it(`answers ${typeName} body of 1 MiB ${framing} to ${route} with an envelope (413 where its size is known), never a reset (${REPEAT} times)`, async () => {
          const sim = createSimulator({ clock: 'manual' });
          const { port, close } = await listen(sim, { allowedHosts: 'all' });
          closers.push(close);
          const results = await Promise.all(
            Array.from({ length: REPEAT }, (_, i) =>
              exchange(port, oversized(route, type, prefix, chunked, i % 2 === 0)),
            ),
          );
          for (const { error, responses, text } of results) {
            expect(error, text.slice(0, 200)).toBeUndefined();
            // A read never reads its body, so a chunked one (no size known) is answered as if
            // absent, then discarded; a declared size over the limit is refused.
            if (route.startsWith('GET') && chunked)
              expect(responses[0]).toMatchObject({ status: 200, json: { code: 0 } });
            // A control-plane write that is not JSON is refused as cross-site before its body is read.
            else if (route.includes('/_sim/') && type !== 'application/json')
              expect(responses[0]).toMatchObject({
                status: expect.toBeOneOf([403, 415]),
                json: { data: null },
              });
            else expect(responses[0]).toMatchObject({ status: 413, json: { code: 20004, data: null } });
          }
          expect(sim.engine.authenticate('demo-key')!.orders).toHaveLength(0);
        }, 60_000);
      }
    }
  }

  for (const close of [true, false]) {
    it(`answers a slow sender's oversized body with 413 and reads the rest before closing${close ? ', under Connection: close' : ''}`, async () => {
      const sim = createSimulator({ clock: 'manual' });
      const { port, close: stop } = await listen(sim, { allowedHosts: 'all' });
      closers.push(stop);
      const head = `POST /v1/tron/order HTTP/1.1\r\nHost: 127.0.0.1\r\nAPI-KEY: demo-key\r\nContent-Type: application/x-www-form-urlencoded\r\n${close ? 'Connection: close\r\n' : ''}Content-Length: ${16 * 65536}\r\n\r\n`;
      const results = await Promise.all(
        Array.from({ length: 5 }, () => slowExchange(port, head, 16, 65536, 50)),
      );
      for (const { error, responses } of results) {
        expect(error).toBeUndefined();
        expect(responses[0]).toMatchObject({ status: 413, json: { code: 20004 } });
      }
    }, 60_000);
  }
});

/** Sends `head`, then `pieces` pieces of `size` bytes `gapMs` apart, then ends; collects the answer. */
function slowExchange(
  port: number,
  head: string,
  pieces: number,
  size: number,
  gapMs: number,
): Promise<{ error?: string; responses: ReturnType<typeof parseResponses> }> {
  return new Promise((resolve) => {
    // As curl or fetch do: the whole body is written whatever the server says meanwhile
    // (its end of the connection does not end ours), and the answer is read at the end.
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    const chunks: Buffer[] = [];
    let error: string | undefined;
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (e: NodeJS.ErrnoException) => {
      error = e.code ?? e.message;
    });
    socket.on('close', () =>
      resolve({
        ...(error ? { error } : {}),
        responses: parseResponses(Buffer.concat(chunks).toString('utf8')),
      }),
    );
    socket.write(head);
    let sent = 0;
    const timer = setInterval(() => {
      if (socket.destroyed) return clearInterval(timer);
      socket.write(Buffer.alloc(size, 'x'), () => {});
      if (++sent === pieces) {
        clearInterval(timer);
        socket.end();
      }
    }, gapMs);
  });
}
