/**
 * A client that goes away in the middle of its body is the client's doing, not a
 * simulator bug: the journal records it as a client abort (status 499
 * with a note), the error log stays empty, and nothing is done or charged.
 */
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { CLIENT_CLOSED_NOTE, CLIENT_CLOSED_STATUS } from '../http/error-catalogue.ts';
import { createSimulator } from '../simulator.ts';
import { listen } from '../test-support/socket-test-support.ts';
import { ADDRESS } from '../test-support/fixtures.ts';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

/** Sends `head` and the first half of `body` (declared whole), then destroys the socket. */
function abortMidBody(port: number, head: string, body: string, chunked = false): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      const half = body.slice(0, Math.floor(body.length / 2));
      const framing = chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${Buffer.byteLength(body)}`;
      socket.write(
        `${head}\r\n${framing}\r\n\r\n${chunked ? `${half.length.toString(16)}\r\n${half}\r\n` : half}`,
      );
      setTimeout(() => socket.destroy(), 50);
    });
    socket.on('error', () => {});
    socket.on('close', () => resolve());
  });
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
}

const CASES: Array<[string, string, string, boolean]> = [
  [
    'a control-plane JSON body',
    'POST /_sim/accounts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json',
    '{"apiKey":"half-sent-key","balance":{"trx":"50"}}',
    false,
  ],
  [
    'an order form on the fast path',
    'POST /v1/tron/order HTTP/1.1\r\nHost: 127.0.0.1\r\nAPI-KEY: demo-key\r\nContent-Type: application/x-www-form-urlencoded',
    `pledgeAddress=${ADDRESS}&rentalCount=65000&period=1h`,
    false,
  ],
  [
    'a chunked order form read by Hono',
    'POST /v1/tron/order HTTP/1.1\r\nHost: 127.0.0.1\r\nAPI-KEY: demo-key\r\nContent-Type: application/x-www-form-urlencoded',
    `pledgeAddress=${ADDRESS}&rentalCount=65000&period=1h`,
    true,
  ],
  [
    'a deposit',
    'POST /_sim/accounts/me/deposit HTTP/1.1\r\nHost: 127.0.0.1\r\nAPI-KEY: demo-key\r\nContent-Type: application/json',
    '{"trx":"1000000"}',
    false,
  ],
];

describe('a client that disconnects mid-body', () => {
  for (const [name, head, body, chunked] of CASES) {
    it(`records ${name} cut off mid-body as a client abort, logs no error and changes nothing`, async () => {
      const reported: unknown[] = [];
      const sim = createSimulator({
        clock: 'manual',
        timing: 'instant',
        onUnexpectedError: (error) => reported.push(error),
      });
      const { port, close } = await listen(sim, { allowedHosts: 'all' });
      closers.push(close);
      const before = JSON.stringify(sim.engine.snapshot().accounts);
      const journaled = sim.journal.size;
      await abortMidBody(port, head, body, chunked);
      await until(() => sim.journal.size > journaled);
      // Give a late error the time to show up before concluding there is none.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(reported).toEqual([]);
      for (const entry of sim.journal.list())
        expect(entry.status, JSON.stringify(entry)).toBe(CLIENT_CLOSED_STATUS);
      expect(sim.journal.size).toBe(journaled + 1);
      expect(sim.journal.list().at(-1)).toMatchObject({
        method: 'POST',
        status: 499,
        response: { note: CLIENT_CLOSED_NOTE },
      });
      expect(JSON.stringify(sim.engine.snapshot().accounts)).toBe(before);
      expect(sim.engine.authenticate('half-sent-key')).toBeUndefined();
    });
  }
});
