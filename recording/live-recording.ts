/**
 * `serve --upstream URL --record FILE`: the proxy's live traffic as a recording, in the
 * format `record` writes, so `drift` compares it and `serve --replay` serves it.
 *
 * The upstream's fetch is wrapped by the contract suite's recorder (every exchange to a
 * JSONL log, keys replaced by aliases); the log is assembled into FILE at least every
 * second while traffic comes, and on close, through a temporary file and a rename, like
 * the state file. Every key is an alias of role 'foreign' (the proxy cannot tell whose
 * key is the "main" one): `key-2`, `key-3`, … in order of first appearance.
 */
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { redactUrl } from '../mock/http/journal-redaction.ts';
import { realPathOf } from '../src/real-path.ts';
import { assembleRecording } from './assemble-recording.ts';
import { createRecorder } from './recorder.ts';

/** The case and file names a live interaction is recorded under. */
export const LIVE_CASE = '(live traffic)';

export interface LiveRecording {
  /** The upstream's fetch, recording every exchange. */
  wrap(fetch: typeof globalThis.fetch): typeof globalThis.fetch;
  /** Writes FILE now when something was recorded since the last write. */
  flush(): void;
  /** Stops the periodic writes, writes a last time and removes the log. */
  close(): void;
}

/**
 * Starts recording to `file`.
 *
 * @example
 *   const recording = createLiveRecording('traffic.json', { upstream: 'https://api.eopen.io', allowSpend: false });
 *   createSimulator({ proxy: { upstream, fetch: recording.wrap(fetch) } });
 */
export function createLiveRecording(
  file: string,
  options: {
    upstream: string;
    allowSpend: boolean;
    maxOrders?: number | undefined;
    intervalMs?: number;
    onError?: (error: Error) => void;
  },
): LiveRecording {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'energy-rental-kit-live-'));
  // No request carries this key, so every key the app sends is recorded as a foreign alias.
  const recorder = createRecorder({
    dir,
    mainKey: '\u0000no main key in live traffic',
    baseUrl: options.upstream,
  });
  // The recording names the upstream without whatever credentials its URL carries.
  recorder.noteTarget({
    kind: 'url',
    baseUrl: redactUrl(options.upstream),
    simulator: false,
    capabilities: [],
  });
  const runId = `live-${Date.now().toString(36)}`;
  const startedAt = new Date();
  let pending = 0;
  let written = 0;
  // Written beside and renamed onto the real file: a symlinked recording stays a symlink.
  const target = realPathOf(file);

  const flush = (): void => {
    if (pending === written) return;
    const upTo = pending;
    try {
      const recording = assembleRecording(dir, {
        runId,
        settings: { allowSpend: options.allowSpend, maxOrders: options.maxOrders ?? 0 },
        recordedAt: startedAt,
      });
      const temporary = `${target}.${process.pid}.tmp`;
      writeFileSync(temporary, `${JSON.stringify(recording, null, 2)}\n`);
      renameSync(temporary, target);
      written = upTo;
    } catch (error) {
      options.onError?.(error as Error);
    }
  };
  const timer = setInterval(flush, options.intervalMs ?? 1000);
  timer.unref();

  return {
    wrap(fetch) {
      const transport = recorder.wrap((request) => fetch(request));
      return (async (input: RequestInfo | URL, init?: RequestInit) => {
        try {
          return await transport(new Request(input, init), LIVE_CASE, LIVE_CASE);
        } finally {
          pending++;
        }
      }) as typeof globalThis.fetch;
    },
    flush,
    close() {
      clearInterval(timer);
      flush();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
