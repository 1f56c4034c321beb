/**
 * joinChunks gives the bytes of a body in order, and joins a large one over several turns
 * of the event loop rather than in one copy.
 */
import { describe, expect, it } from 'vitest';
import { countingTurns } from '../test-support/event-loop-turns.ts';
import { joinChunks } from './upstream-forward.ts';

describe('joinChunks', () => {
  it('gives the chunks of a body as one array, in order', async () => {
    const chunks = [
      new Uint8Array([1, 2]),
      new Uint8Array([]),
      new Uint8Array([3]),
      new Uint8Array([4, 5, 6]),
    ];
    expect([...(await joinChunks(chunks, 6))]).toEqual([1, 2, 3, 4, 5, 6]);
    expect([...(await joinChunks([new Uint8Array([7])], 1))]).toEqual([7]);
  });

  it('lets the event loop turn while it joins 40 MB', async () => {
    const chunks = Array.from({ length: 640 }, (_, i) => new Uint8Array(64 * 1024).fill(i % 251));
    const { result: joined, turns } = await countingTurns(() => joinChunks(chunks, 640 * 64 * 1024));
    expect(joined.byteLength).toBe(640 * 64 * 1024);
    expect(joined[639 * 64 * 1024]).toBe(639 % 251);
    // A few megabytes per turn: 40 MB takes about ten.
    expect(turns).toBeGreaterThanOrEqual(8);
  });

  it('lets the event loop turn after a few milliseconds of copying, however few megabytes that was', async () => {
    // 1 MB, under the bytes a turn may copy: only the time can end a turn here. A clock that
    // reads 3 ms later at every look makes every second chunk's copy take past the 5 ms.
    const chunks = Array.from({ length: 16 }, (_, i) => new Uint8Array(64 * 1024).fill(i));
    let ms = 0;
    const { result: joined, turns } = await countingTurns(() =>
      joinChunks(chunks, 16 * 64 * 1024, () => (ms += 3)),
    );
    expect(joined[15 * 64 * 1024]).toBe(15);
    expect(turns).toBeGreaterThanOrEqual(7);
  });
});
