/**
 * Requests Node's HTTP parser refuses get the JSON error envelope, after every answer the
 * connection already owes: they once got a bare status line, and valid
 * requests pipelined ahead of a malformed one lost their answers. So do an HTTP/1.1
 * request without Host (an empty 400 from Node) and a CONNECT (a dropped connection).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSimulator } from '../simulator.ts';
import { exchange, listen, request } from '../test-support/socket-test-support.ts';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

async function served() {
  const reported: unknown[] = [];
  const sim = createSimulator({ clock: 'manual', onUnexpectedError: (error) => reported.push(error) });
  const { port, close } = await listen(sim, { allowedHosts: 'all' });
  closers.push(close);
  return { sim, port, reported };
}

const MALFORMED: Array<[string, string, number, number, string]> = [
  ['garbage', 'GARBAGE\r\n\r\n', 400, 20003, 'not valid HTTP/1.1'],
  [
    'two Content-Lengths',
    'POST /_sim/reset HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab',
    400,
    20003,
    'Content-Length',
  ],
  [
    'headers over 16 KiB',
    `GET /v1/account HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\n\r\n`,
    431,
    43100,
    'headers are larger',
  ],
  ['a request line with no target', 'GET  HTTP/1.1\r\nHost: x\r\n\r\n', 400, 20003, 'not valid HTTP/1.1'],
  [
    'a bad chunk size',
    'POST /_sim/accounts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
    400,
    20003,
    'not valid HTTP/1.1',
  ],
];

const valid = (path: string) => request(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAPI-KEY: demo-key`);

describe("requests Node's parser refuses", () => {
  for (const [name, raw, status, code, words] of MALFORMED) {
    it(`answers ${name} with the ${status} envelope and closes the connection`, async () => {
      const { port, reported } = await served();
      const { responses, error } = await exchange(port, raw);
      expect(error).toBeUndefined();
      expect(responses).toHaveLength(1);
      expect(responses[0]).toMatchObject({
        status,
        headers: { 'content-type': 'application/json', connection: 'close' },
        json: { code, msg: expect.stringContaining(words), data: null },
      });
      expect(reported).toEqual([]);
      const next = await exchange(port, valid('/v1/account'));
      expect(next.responses[0]).toMatchObject({ status: 200 });
    });

    it(`answers every valid request pipelined ahead of ${name}, then the ${status} envelope, 40 times in 40`, async () => {
      const { port } = await served();
      const ahead = [
        valid('/v1/account'),
        valid('/v1/tron/price?rentalCount=65000&period=1h'),
        valid('/_sim/health'),
        valid('/v1/tron/history?orderId=nope'),
      ];
      for (let i = 0; i < 40; i++) {
        const { responses, error } = await exchange(port, ahead.join('') + raw);
        expect(error).toBeUndefined();
        expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 400, status]);
        expect(responses.at(-1)!.json).toMatchObject({ code });
      }
    });
  }

  it('answers an Expect other than 100-continue with the 417 envelope', async () => {
    const { port } = await served();
    const { responses } = await exchange(
      port,
      request('POST /_sim/reset HTTP/1.1\r\nHost: x\r\nExpect: something-else\r\nContent-Length: 0'),
    );
    expect(responses[0]).toMatchObject({
      status: 417,
      json: { code: 41700, msg: expect.stringContaining('Expect: something-else'), data: null },
    });
  });

  it('answers a target the Hono adapter refuses (a backslash in the path) with the 400 envelope, not a bare 400', async () => {
    const { port, reported } = await served();
    const { responses } = await exchange(
      port,
      request('GET /_sim\\..\\health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close'),
    );
    expect(responses[0]).toMatchObject({
      status: 400,
      json: { code: 20003, msg: expect.stringContaining('Backslash'), data: null },
    });
    expect(reported).toEqual([]);
  });

  it('still takes Expect: 100-continue', async () => {
    const { port } = await served();
    const { text } = await exchange(
      port,
      request(
        'GET /v1/account HTTP/1.1\r\nHost: x\r\nAPI-KEY: demo-key\r\nExpect: 100-continue\r\nConnection: close',
      ),
    );
    expect(text).toContain('HTTP/1.1 100 Continue');
    expect(text).toContain('HTTP/1.1 200 OK');
  });
});

describe('requests Node would answer with an empty 400 or not at all', () => {
  it('answers an HTTP/1.1 request without a Host header with the 400 envelope, not an empty 400', async () => {
    const { port, reported } = await served();
    const { responses } = await exchange(port, request('GET /v1/account HTTP/1.1\r\nAPI-KEY: demo-key'));
    expect(responses).toHaveLength(1);
    expect(responses[0]).toMatchObject({
      status: 400,
      headers: { 'content-type': 'application/json', connection: 'close' },
      json: { code: 20003, msg: expect.stringContaining('no Host header'), data: null },
    });
    expect(reported).toEqual([]);
  });

  it('still answers an HTTP/1.0 request without a Host header with the 403 envelope', async () => {
    const { port } = await served();
    const { responses } = await exchange(port, request('GET /v1/account HTTP/1.0\r\nAPI-KEY: demo-key'));
    expect(responses[0]).toMatchObject({ status: 403, json: { code: 10005, data: null } });
  });

  it('answers CONNECT with the 405 envelope naming the allowed methods, then closes the connection', async () => {
    const { port, reported } = await served();
    const { responses, error } = await exchange(
      port,
      request('CONNECT api.eopen.io:443 HTTP/1.1\r\nHost: api.eopen.io:443'),
      { keepOpen: true },
    );
    expect(error).toBeUndefined();
    expect(responses).toHaveLength(1);
    expect(responses[0]).toMatchObject({
      status: 405,
      headers: {
        allow: 'GET, HEAD, POST, PUT, PATCH, DELETE',
        'content-type': 'application/json',
        connection: 'close',
      },
      json: { code: 40500, msg: expect.stringContaining('CONNECT is not allowed'), data: null },
    });
    expect(reported).toEqual([]);
  });

  it('answers the valid requests pipelined ahead of a CONNECT first, then its 405 envelope', async () => {
    const { port } = await served();
    const { responses } = await exchange(
      port,
      valid('/v1/account') + valid('/_sim/health') + request('CONNECT x:443 HTTP/1.1\r\nHost: x:443'),
      { keepOpen: true },
    );
    expect(responses.map((r) => r.status)).toEqual([200, 200, 405]);
  });
});
