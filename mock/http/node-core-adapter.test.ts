/**
 * How the Node adapter writes an answer: a large body a piece per turn of the event loop,
 * so that one answer of 100 MB never holds every other request while the socket takes it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { ErrorBoundary } from './error-boundary.ts';
import type { CoreAnswer } from './exchange.ts';
import { createNodeCoreAdapter } from './node-core-adapter.ts';
import type { RequestCore } from './request-core.ts';

const MB = 1024 * 1024;

/** A response that keeps what is written to it; `full` says whether the socket is full after each write. */
function response(full: () => boolean = () => false) {
  const written: number[] = [];
  const pieces: Uint8Array[] = [];
  const res = Object.assign(new EventEmitter(), {
    destroyed: false,
    ended: false,
    status: 0,
    writeHead(status: number) {
      res.status = status;
      return res;
    },
    write(piece: Uint8Array) {
      written.push(piece.byteLength);
      pieces.push(piece);
      return !full();
    },
    end(piece?: Uint8Array) {
      if (piece) {
        written.push(piece.byteLength);
        pieces.push(piece);
      }
      res.ended = true;
      return res;
    },
  });
  return { res, written, pieces };
}

/** Answers one GET through the adapter with `answer`, to `res`. */
function answerWith(answer: CoreAnswer, res: ReturnType<typeof response>['res']): void {
  const core = {
    handle: (_request: unknown, send: (a: CoreAnswer) => void) => send(answer),
  } as unknown as RequestCore;
  const req = { headers: {}, method: 'GET', url: '/v1/account', socket: {} } as unknown as IncomingMessage;
  createNodeCoreAdapter(core, MB, {} as ErrorBoundary)(req, res as unknown as ServerResponse);
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('the Node adapter writing an answer', () => {
  it('writes a small body at once', () => {
    const { res, written } = response();
    answerWith({ status: 200, headers: {}, body: new Uint8Array(MB) }, res);
    expect(written).toEqual([MB]);
    expect(res.ended).toBe(true);
  });

  it('writes a large body a megabyte per turn of the event loop, every byte of it', async () => {
    const { res, written, pieces } = response();
    // Every byte a different value from its neighbours, so a piece out of place shows.
    const body = Uint8Array.from({ length: 3.5 * MB }, (_, i) => (i * 7 + (i >> 20)) % 251);
    answerWith({ status: 200, headers: {}, body }, res);
    // The first piece in the turn of the answer, each other in a turn of its own.
    expect(written).toEqual([MB]);
    for (let i = 0; i < 5 && !res.ended; i++) await turn();
    expect(written).toEqual([MB, MB, MB, 0.5 * MB]);
    expect(Buffer.concat(pieces).equals(body)).toBe(true);
    expect(res.ended).toBe(true);
    expect(res.status).toBe(200);
  });

  it('waits for the socket to drain when it is full, and stops for a client gone', async () => {
    const { res, written } = response(() => true);
    answerWith({ status: 200, headers: {}, body: new Uint8Array(3 * MB) }, res);
    await turn();
    await turn();
    expect(written).toEqual([MB]);
    res.emit('drain');
    await turn();
    expect(written).toEqual([MB, MB]);
    res.destroyed = true;
    res.emit('drain');
    await turn();
    expect(written).toEqual([MB, MB]);
    expect(res.ended).toBe(false);
  });

  it('takes a turn of the event loop after each drain, though a socket that took a write whole drains at once', async () => {
    // A megabyte is over a socket's high-water mark, so `write` says full even when the socket
    // took it whole; 'drain' then comes in a nextTick, and a write straight from there would
    // chain the whole body into one turn, before any other request ran.
    const { res, written } = response(() => {
      process.nextTick(() => res.emit('drain'));
      return true;
    });
    answerWith({ status: 200, headers: {}, body: new Uint8Array(4 * MB) }, res);
    await turn();
    expect(written).toEqual([MB]);
    for (let i = 0; i < 8 && !res.ended; i++) await turn();
    expect(written).toEqual([MB, MB, MB, MB]);
    expect(res.ended).toBe(true);
  });
});
