/** `serve --upstream URL --record FILE`: the proxy's traffic as a recording@2, keys as 'foreign' aliases. */
import { createWriteStream, truncateSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { setImmediate as turn } from 'node:timers/promises';
import { redactUrl } from '../mock/http/journal-redaction.ts';
import { DEFAULT_FILE_LIMIT, type FileLimit } from '../src/bounded-file.ts';
import { realPathOf } from '../src/real-path.ts';
import { createExchangeScrubber } from './exchange-scrubber.ts';
import { scrubLargeResponse, type LargeResponse } from './large-response.ts';
import { headerOf, readRecordingFile } from './recording-lines.ts';
import {
  elapsed,
  MAIN_KEY_ALIAS,
  operationOf,
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
 * Starts recording to `file`: new, replaced ('overwrite') or continued ('append', of the same upstream).
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
    const limit = options.limit ?? DEFAULT_FILE_LIMIT;
    const read = readRecordingFile(file, limit, (line) => options.onWarning?.(line), {
      onInteraction: () => void continued++,
    });
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
    else if (read.newlineMissing) writeFileSync(target, '\n', { flag: 'a' });
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
  let queue: Promise<void> = Promise.resolve();
  const enqueue = (work: () => Promise<{ interaction: Interaction; large?: LargeResponse }>): void => {
    queue = queue.then(async () => {
      // A turn of the event loop between two exchanges: a burst to record holds up no request.
      await turn();
      if (failed) return;
      try {
        const { interaction, large } = await work();
        await writeLine(interaction, large);
      } catch (error) {
        options.onError?.(error as Error);
      }
    });
  };
  const writeLine = async (interaction: Interaction, large?: LargeResponse): Promise<void> => {
    const pieces = large ? largeLinePieces(interaction, large) : [JSON.stringify(interaction)];
    for (const piece of pieces) {
      // On a failed stream its 'error' listener has set `failed`.
      if (!stream.write(piece)) await once(stream, 'drain').catch(() => undefined);
      else if (large) await turn();
      if (failed) return;
    }
    stream.write('\n');
  };
  return {
    continued,
    wrap(fetch, baseUrl) {
      return (async (input: RequestInfo | URL, init?: RequestInit) => {
        const request = new Request(input, init);
        const described = scrubber.describeRequest(request, baseUrl);
        const at = new Date().toISOString();
        const started = performance.now();
        const answer = fetch(request);
        // Read beside the proxy, as the chunks that arrive, never joined into one buffer.
        const read = answer
          .then(async (response) => ({ response, chunks: await readChunks(response.clone()) }))
          .then(
            (got) => ({ ...got, durationMs: elapsed(started) }),
            (error: Error) => ({ error, durationMs: elapsed(started) }),
          );
        enqueue(async () => {
          const recorded = await described;
          const operation = operationOf(recorded.method, recorded.path);
          const line = { case: LIVE_CASE, file: LIVE_CASE, operation, request: recorded, at };
          const got = await read;
          if ('error' in got) {
            const error = scrubber.scrubText(got.error.message ?? String(got.error));
            return { interaction: { ...line, error, durationMs: got.durationMs } };
          }
          const { status, headers } = got.response;
          const issuing = operation === 'createAccount';
          const length = got.chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0);
          // A large answer is scrubbed a slice at a time and written in pieces in place of its body or text.
          const large =
            length > LARGE_RESPONSE_BYTES
              ? await scrubLargeResponse(got.chunks, scrubber, issuing)
              : undefined;
          const text = large ? '' : new TextDecoder().decode(Buffer.concat(got.chunks));
          const recordedResponse = scrubber.describeResponse(status, headers, text, issuing);
          if (large) delete recordedResponse.text;
          return { interaction: { ...line, response: recordedResponse, durationMs: got.durationMs }, large };
        });
        return answer;
      }) as typeof globalThis.fetch;
    },
    flush: () => queue,
    async close() {
      await queue;
      await new Promise<void>((resolve) => stream.end(() => resolve()));
    },
  };
}

async function readChunks(response: Response): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  const reader = response.body?.getReader();
  for (let read = await reader?.read(); read && !read.done; read = await reader!.read())
    chunks.push(read.value);
  return chunks;
}

/** The line of an interaction in pieces: its JSON around the large answer's, as `body` or as `text`. */
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
