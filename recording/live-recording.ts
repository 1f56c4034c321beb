/**
 * `serve --upstream URL --record FILE`: the proxy's live traffic as a recording@2, the
 * format `record` writes, so `drift` compares it and `serve --replay` serves it.
 *
 * The header line is written at the start; then each exchange is appended as one line
 * once it ends, through an append stream and in order of ending. Nothing is ever written
 * whole again. An answer is read beside the proxy as the chunks that arrive, never joined;
 * one of over a megabyte is decoded, scrubbed and written a few milliseconds of work at a
 * time (large-response.ts), its pieces waiting for the stream to drain, so a 100 MB answer
 * being recorded holds up no other request (cli/serve-upstream-bounds.test.ts). Every key
 * is an alias of role 'foreign' (the proxy cannot tell whose key is the "main" one):
 * `key-2`, `key-3`, … in order of first appearance, continuing after the highest alias of a
 * file appended to.
 */
import {
  closeSync,
  createWriteStream,
  openSync,
  readSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { once } from 'node:events';
import { setImmediate as turn } from 'node:timers/promises';
import { redactUrl } from '../mock/http/journal-redaction.ts';
import { DEFAULT_FILE_LIMIT, type FileLimit } from '../src/bounded-file.ts';
import { realPathOf } from '../src/real-path.ts';
import { createExchangeScrubber } from './exchange-scrubber.ts';
import { scrubLargeResponse, type LargeResponse } from './large-response.ts';
import { headerOf } from './recording-lines.ts';
import {
  MAIN_KEY_ALIAS,
  operationOf,
  readRecordingFile,
  RECORDING_FORMAT,
  RecordingError,
  type Interaction,
} from './recording.ts';

/** The case and file names a live interaction is recorded under. */
export const LIVE_CASE = '(live traffic)';

/** Past this many bytes an answer is decoded, scrubbed and written a piece at a time. */
export const LARGE_RESPONSE_BYTES: number = 1024 * 1024;

/** What `--record` does with a file that is there: refuse it, continue it or replace it. */
export type RecordMode = 'new' | 'append' | 'overwrite';

export interface LiveRecording {
  /** The upstream's fetch, recording every exchange; its path below `baseUrl` (default the upstream's, else a TRON node's). */
  wrap(fetch: typeof globalThis.fetch, baseUrl?: string): typeof globalThis.fetch;
  /** Resolves once every exchange that ended so far is written. */
  flush(): Promise<void>;
  /** Writes what is pending and closes the file. */
  close(): Promise<void>;
  /** How many interactions the file held when it was continued (0 for a new one). */
  continued: number;
}

/**
 * Starts recording to `file`: a new file (or one replaced, `mode` 'overwrite'), or one
 * continued (`mode` 'append', a recording@2 of the same upstream). Throws a RecordingError
 * for a file that cannot be continued; whether a file there may be touched at all is the
 * caller's to decide.
 *
 * @example
 *   const recording = createLiveRecording('traffic.jsonl', { upstream: 'https://api.eopen.io', allowSpend: false });
 *   createSimulator({ proxy: { upstream, fetch: recording.wrap(fetch) } });
 */
export function createLiveRecording(
  file: string,
  options: {
    upstream: string;
    allowSpend: boolean;
    maxOrders?: number | undefined;
    mode?: RecordMode;
    limit?: FileLimit;
    onError?: (error: Error) => void;
    onWarning?: (line: string) => void;
  },
): LiveRecording {
  // Written through a symlink onto the file it names: the link stays a link.
  const target = realPathOf(file);
  // The recording names the upstream without whatever credentials its URL carries.
  const baseUrl = redactUrl(options.upstream);
  let aliasCount = 1;
  let continued = 0;
  if (options.mode === 'append') {
    // Counted as read, not kept: a long recording is continued without holding it whole.
    const read = readRecordingFile(
      file,
      options.limit ?? DEFAULT_FILE_LIMIT,
      (line) => options.onWarning?.(line),
      { onInteraction: () => void continued++ },
    );
    const { recording } = read;
    if (recording.format !== RECORDING_FORMAT)
      throw new RecordingError(
        `'${file}' is a ${recording.format} file, one JSON document, which cannot be appended to; replace it (--record-overwrite), or record to another file.`,
      );
    if (recording.target.baseUrl !== baseUrl)
      throw new RecordingError(
        `'${file}' was recorded from ${recording.target.baseUrl}, not ${baseUrl}; a recording holds one upstream's traffic: record to another file.`,
      );
    // A torn last line is cut off, and a last line without its newline gets one.
    if (read.tornLine !== undefined) truncateSync(target, read.wholeBytes);
    if (!endsWithNewline(target)) writeFileSync(target, '\n', { flag: 'a' });
    for (const { alias } of recording.apiKeys) {
      const n = /^key-(\d+)$/.exec(alias)?.[1];
      if (n !== undefined) aliasCount = Math.max(aliasCount, Number(n));
    }
  } else {
    const header = headerOf({
      recordedAt: new Date().toISOString(),
      runId: `live-${Date.now().toString(36)}`,
      target: { kind: 'url', baseUrl, simulator: false, capabilities: [] },
      settings: { allowSpend: options.allowSpend, maxOrders: options.maxOrders ?? 0 },
      apiKeys: [{ alias: MAIN_KEY_ALIAS, role: 'main' }],
    });
    writeFileSync(target, `${JSON.stringify(header)}\n`);
  }
  const stream = createWriteStream(target, { flags: 'a' });
  let failed: Error | undefined;
  stream.on('error', (error) => {
    failed ??= error;
    options.onError?.(error);
  });
  const scrubber = createExchangeScrubber({
    baseUrl: options.upstream,
    known: [],
    newAlias: () => `key-${++aliasCount}`,
  });
  // Exchanges are written one after another, in order of ending.
  let queue: Promise<void> = Promise.resolve();
  const enqueue = (work: () => Promise<Interaction>): void => {
    queue = queue.then(async () => {
      // A turn of the event loop between two exchanges: a burst of answers to record holds
      // up no request that came meanwhile.
      await turn();
      if (failed) return;
      try {
        await writeLine(await work());
      } catch (error) {
        options.onError?.(error as Error);
      }
    });
  };
  const writeLine = async (interaction: Interaction): Promise<void> => {
    const large = largeResponses.get(interaction);
    const pieces = large ? largeLinePieces(interaction, large) : [JSON.stringify(interaction)];
    for (const piece of pieces) {
      if (!stream.write(piece))
        await once(stream, 'drain').catch(() => {
          // The stream failed: its 'error' listener above has set `failed`.
        });
      else if (large) await turn();
      if (failed) return;
    }
    stream.write('\n');
  };
  // The scrubbed body of an interaction whose answer was large, written in pieces.
  const largeResponses = new WeakMap<Interaction, LargeResponse>();

  return {
    continued,
    wrap(fetch, baseUrl) {
      return (async (input: RequestInfo | URL, init?: RequestInit) => {
        const request = new Request(input, init);
        const described = scrubber.describeRequest(request, baseUrl);
        const at = new Date().toISOString();
        const started = performance.now();
        let response: Response;
        try {
          response = await fetch(request);
        } catch (error) {
          const durationMs = elapsed(started);
          enqueue(async () => {
            const recorded = await described;
            return {
              ...base(recorded, at),
              operation: operationOf(recorded.method, recorded.path),
              error: scrubber.scrubText((error as Error).message ?? String(error)),
              durationMs,
            };
          });
          throw error;
        }
        // Read beside the proxy, as the chunks that arrive, never joined into one buffer (a
        // 100 MB copy): decoding waits for the queue, and then goes a quarter megabyte per turn.
        const bytes = readChunks(response.clone()).then(
          (chunks) => ({ chunks, durationMs: elapsed(started) }),
          (error: Error) => ({ error, durationMs: elapsed(started) }),
        );
        const { status, headers } = response;
        enqueue(async () => {
          const recorded = await described;
          const operation = operationOf(recorded.method, recorded.path);
          const read = await bytes;
          if ('error' in read)
            return {
              ...base(recorded, at),
              operation,
              error: scrubber.scrubText(read.error.message),
              durationMs: read.durationMs,
            };
          const issuing = operation === 'createAccount';
          const length = read.chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0);
          // A large answer is scrubbed a slice at a time (large-response.ts): its body or text is
          // left out of the response here and written in pieces in its place.
          const large =
            length > LARGE_RESPONSE_BYTES
              ? await scrubLargeResponse(read.chunks, scrubber, issuing)
              : undefined;
          const recordedResponse = large
            ? scrubber.describeResponse(status, headers, '', issuing)
            : scrubber.describeResponse(
                status,
                headers,
                new TextDecoder().decode(Buffer.concat(read.chunks)),
                issuing,
              );
          if (large) delete recordedResponse.text;
          const interaction: Interaction = {
            ...base(recorded, at),
            operation,
            response: recordedResponse,
            durationMs: read.durationMs,
          };
          if (large) largeResponses.set(interaction, large);
          return interaction;
        });
        return response;
      }) as typeof globalThis.fetch;
    },
    flush: () => queue,
    async close() {
      await queue;
      await new Promise<void>((resolve) => stream.end(() => resolve()));
    },
  };
}

function base(
  request: Interaction['request'],
  at: string,
): Pick<Interaction, 'case' | 'file' | 'request' | 'at'> {
  return { case: LIVE_CASE, file: LIVE_CASE, request, at };
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 1000) / 1000;
}

/** The chunks of a body as they arrive. */
async function readChunks(response: Response): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  if (!response.body) return chunks;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return chunks;
    chunks.push(value);
  }
}

/**
 * The line of an interaction whose large answer is `large`, in pieces: the interaction's
 * JSON around the answer's, which goes in as the response's `body` (its JSON) or `text`
 * (between the quotes of a JSON string).
 */
function* largeLinePieces(interaction: Interaction, large: LargeResponse): Generator<string | Buffer> {
  const mark = `\u0000large-${Date.now()}\u0000`;
  const field = 'json' in large ? 'body' : 'text';
  const line = JSON.stringify({ ...interaction, response: { ...interaction.response, [field]: mark } });
  const quotedMark = JSON.stringify(mark);
  // The last: the response comes after the request, whose text could spell the mark too.
  const at = line.lastIndexOf(quotedMark);
  if ('json' in large) {
    yield line.slice(0, at);
    yield* large.json;
    yield line.slice(at + quotedMark.length);
  } else {
    yield `${line.slice(0, at)}"`;
    yield* large.text;
    yield `"${line.slice(at + quotedMark.length)}`;
  }
}

/** Whether a file is empty or ends with a newline. */
function endsWithNewline(file: string): boolean {
  const size = statSync(file).size;
  if (size === 0) return true;
  const fd = openSync(file, 'r');
  try {
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] === 0x0a;
  } finally {
    closeSync(fd);
  }
}
