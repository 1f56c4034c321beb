/**
 * How the transports deliver what an injected fault made of an answer: a connection cut
 * (closed, reset, or garbled with random bytes) and a body dripped in chunks. The core
 * decides the fault; these only carry it out on a socket or in a WHATWG stream.
 */
import type { Socket } from 'node:net';
import type { CoreAnswer } from './exchange.ts';

/**
 * Cuts the connection of a dropped answer as its fault says: a reset sends a TCP RST, garbage
 * is written raw (no HTTP status line) before the close, and anything else just closes.
 *
 * @example
 *   if (answer.dropped) cutConnection(req.socket, answer.cut);
 */
export function cutConnection(socket: Socket, cut: CoreAnswer['cut']): void {
  if (cut === 'reset') {
    socket.resetAndDestroy();
    return;
  }
  if (cut instanceof Uint8Array && cut.byteLength > 0) {
    // Destroyed once written, whether the peer reads it or not.
    socket.end(cut, () => socket.destroy());
    return;
  }
  socket.destroy();
}

/**
 * A body cut into at most `chunks` pieces of near-equal size, with the wait before each:
 * the first goes at once, the last `ms` after it.
 *
 * @example
 *   dripPlan(new Uint8Array(10), 5, 1000); // 5 pieces of 2 bytes, 0 / 250 / 250 / 250 / 250 ms apart
 */
export function dripPlan(
  body: Uint8Array,
  chunks: number,
  ms: number,
): Array<{ waitMs: number; bytes: Uint8Array }> {
  const count = Math.max(1, Math.min(chunks, body.byteLength));
  const gap = count > 1 ? ms / (count - 1) : 0;
  const plan: Array<{ waitMs: number; bytes: Uint8Array }> = [];
  for (let i = 0; i < count; i++) {
    const from = Math.floor((i * body.byteLength) / count);
    const to = Math.floor(((i + 1) * body.byteLength) / count);
    plan.push({ waitMs: i === 0 ? 0 : gap, bytes: body.subarray(from, to) });
  }
  return plan;
}

/** An answer's body as bytes. */
export function bodyBytes(body: string | Uint8Array): Uint8Array {
  return typeof body === 'string' ? new TextEncoder().encode(body) : body;
}

/**
 * A stream that drips a body as its plan says: what an in-process fetch reads of a drip
 * fault (behind a socket, @hono/node-server sends each piece as it comes). Cancelling it
 * stops the timers.
 *
 * @example
 *   new Response(dripStream(bytes, 10, 1000), { status: 200 });
 */
export function dripStream(body: Uint8Array, chunks: number, ms: number): ReadableStream<Uint8Array> {
  const plan = dripPlan(body, chunks, ms);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let next = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const step = plan[next++];
      if (!step) {
        controller.close();
        return;
      }
      return new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          controller.enqueue(step.bytes);
          if (next >= plan.length) controller.close();
          resolve();
        }, step.waitMs);
      });
    },
    cancel() {
      clearTimeout(timer);
    },
  });
}
