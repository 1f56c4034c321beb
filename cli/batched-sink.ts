/**
 * A line sink that writes many lines at once: under load, one write of many lines costs a fraction of a write
 * per line. Per-line writes, and even one write per event-loop turn, cost much of a read's throughput when
 * stdout is a file (bench/README.md) (Node writes files synchronously, and a turn serves only a request or
 * two), so lines wait up to `maxDelayMs` for company.
 */
export interface BatchedSink {
  (line: string): void;
  /** Writes what is pending now (also done on process exit by the logger). */
  flush(): void;
}

/**
 * Creates a sink writing to `stream`.
 *
 * @example
 *   const out = createBatchedSink(process.stdout, { maxDelayMs: 20 });
 *   out('GET /v1/account 200'); // written within 20 ms, with whatever else came meanwhile
 */
export function createBatchedSink(
  stream: Pick<NodeJS.WritableStream, 'write'>,
  options: { maxDelayMs?: number; maxChars?: number } = {},
): BatchedSink {
  const maxDelayMs = options.maxDelayMs ?? 20;
  const maxChars = options.maxChars ?? 64 * 1024;
  let pending: string[] = [];
  let chars = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = (): void => {
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    if (pending.length === 0) return;
    const text = `${pending.join('\n')}\n`;
    pending = [];
    chars = 0;
    stream.write(text);
  };
  const sink = (line: string): void => {
    pending.push(line);
    chars += line.length + 1;
    if (chars >= maxChars) flush();
    else if (timer === undefined) {
      timer = setTimeout(flush, maxDelayMs);
      // Pending lines never keep the process alive; the exit hook writes them.
      timer.unref();
    }
  };
  return Object.assign(sink, { flush });
}
