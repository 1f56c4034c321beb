import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createOwedResponses, parserError } from './node-server.ts';

/** A response as far as the tracking reads one: its connection and whether it is done. */
function response(socket: Socket): ServerResponse & { writableFinished: boolean } {
  return { req: { socket }, writableFinished: false, destroyed: false } as unknown as ServerResponse & {
    writableFinished: boolean;
  };
}

describe('the responses a connection owes', () => {
  it('are kept in the order asked, each connection apart', () => {
    const { track, owed } = createOwedResponses();
    const [one, two] = [{} as Socket, {} as Socket];
    const [a, b, c] = [response(one), response(one), response(two)];
    for (const res of [a, b, c]) track(res);
    expect(owed(one)).toEqual([a, b]);
    expect(owed(two)).toEqual([c]);
    expect(owed({} as Socket)).toEqual([]);
  });

  it('let go of the finished ones at the next request, however many came before', () => {
    // A finished response kept longer holds its request and headers through every young
    // collection: a keep-alive connection asks one request at a time, and keeps one.
    const { track, owed } = createOwedResponses();
    const socket = {} as Socket;
    let last = response(socket);
    track(last);
    for (let i = 0; i < 20; i++) {
      last.writableFinished = true;
      last = response(socket);
      track(last);
      expect(owed(socket)).toEqual([last]);
    }
  });

  it('keep an unfinished one and all after it, pipelined behind it', () => {
    const { track, owed } = createOwedResponses();
    const socket = {} as Socket;
    const [a, b, c] = [response(socket), response(socket), response(socket)];
    track(a);
    track(b);
    b.writableFinished = true;
    track(c);
    expect(owed(socket)).toEqual([a, b, c]);
  });
});

describe('a parser error', () => {
  it('is a 431 for headers over the limit and a 400 naming the code otherwise', () => {
    expect(parserError({ code: 'HPE_HEADER_OVERFLOW' } as NodeJS.ErrnoException).status).toBe(431);
    const other = parserError({ code: 'HPE_INVALID_METHOD' } as NodeJS.ErrnoException);
    expect(other.status).toBe(400);
    expect(other.message).toContain('HPE_INVALID_METHOD');
  });
});
