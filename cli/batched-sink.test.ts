import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createBatchedSink } from './batched-sink.ts';

describe('createBatchedSink', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  function stream() {
    const writes: string[] = [];
    return { writes, write: (text: string) => writes.push(text) > 0 };
  }

  it('writes the lines of a burst together, in order, once the delay has passed', () => {
    const out = stream();
    const sink = createBatchedSink(out, { maxDelayMs: 20 });
    sink('one');
    sink('two');
    vi.advanceTimersByTime(19);
    expect(out.writes).toEqual([]);
    sink('three');
    vi.advanceTimersByTime(1);
    expect(out.writes).toEqual(['one\ntwo\nthree\n']);
  });

  it('writes at once when the pending lines grow past the size limit', () => {
    const out = stream();
    const sink = createBatchedSink(out, { maxDelayMs: 1000, maxChars: 10 });
    sink('12345');
    expect(out.writes).toEqual([]);
    sink('67890');
    expect(out.writes).toEqual(['12345\n67890\n']);
    vi.advanceTimersByTime(1000);
    expect(out.writes).toHaveLength(1);
  });

  it('writes what is pending on flush, and nothing when nothing is', () => {
    const out = stream();
    const sink = createBatchedSink(out);
    sink.flush();
    sink('last words');
    sink.flush();
    vi.advanceTimersByTime(100);
    expect(out.writes).toEqual(['last words\n']);
  });
});
