/**
 * The recording side of a contract worker: wraps the target's fetch so that every
 * exchange, control plane included, is appended to a JSONL log of its own (one per
 * test file's connection). `record` assembles the logs into one recording.
 *
 * API keys never reach the log: the run's key is written as 'key-1' and every other
 * key as a connection-local alias ('key-local-N-issued' for keys the target returned,
 * 'key-local-N-foreign' for keys sent but never issued), which assembly numbers
 * globally.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import { createExchangeScrubber } from './exchange-scrubber.ts';
import { MAIN_KEY_ALIAS, operationOf, type Interaction, type TargetInfo } from './recording.ts';

/**
 * A fetch that knows which case (and file) sends the request; `mark` tells, once the
 * answer is in, whether the suite will send the request again (polite-transport.ts).
 */
export type CaseTransport = (
  request: Request,
  caseName: string,
  file: string,
  mark?: (response: Response) => RetryMark,
) => Promise<Response>;

/** How a recorded answer is marked when the suite sends its request again after it. */
export type RetryMark = Pick<Interaction, 'attempt' | 'retried'>;

/** One line of a worker's log. */
export type LogLine =
  { type: 'target'; target: TargetInfo } | ({ type: 'interaction'; seq: number } & Interaction);

export const LOCAL_ALIAS: RegExp = /key-local-(\d+)-(issued|foreign)/g;

export interface Recorder {
  /** Wraps the target's fetch. */
  wrap(fetch: (request: Request) => Promise<Response>): CaseTransport;
  /** Notes what the target turned out to be (after its health check). */
  noteTarget(target: TargetInfo): void;
  /** The log file. */
  file: string;
}

let connections = 0;

/**
 * Starts a log in `dir` for one connection.
 *
 * @example
 *   const recorder = createRecorder({ dir: process.env.CONTRACT_RECORD!, mainKey: 'demo-key', baseUrl });
 *   const transport = recorder.wrap(sim.fetch);
 */
export function createRecorder(options: { dir: string; mainKey: string; baseUrl: string }): Recorder {
  mkdirSync(options.dir, { recursive: true });
  const file = path.join(options.dir, `${process.pid}-${threadId}-${++connections}.jsonl`);
  let localCount = 0;
  let seq = 0;
  const write = (line: LogLine): void => appendFileSync(file, `${JSON.stringify(line)}\n`);
  const scrubber = createExchangeScrubber({
    baseUrl: options.baseUrl,
    known: [[options.mainKey, MAIN_KEY_ALIAS]],
    newAlias: (role) => `key-local-${++localCount}-${role}`,
  });

  return {
    file,
    noteTarget: (target) => write({ type: 'target', target }),
    wrap: (fetch) => async (request, caseName, testFile, mark) => {
      const recorded = await scrubber.describeRequest(request);
      const operation = operationOf(recorded.method, recorded.path);
      const at = new Date().toISOString();
      const started = performance.now();
      const line = {
        type: 'interaction' as const,
        seq: ++seq,
        case: caseName,
        file: testFile,
        operation,
        request: recorded,
        at,
      };
      let response: Response;
      try {
        response = await fetch(request);
      } catch (error) {
        write({
          ...line,
          error: scrubber.scrubText((error as Error).message ?? String(error)),
          durationMs: elapsed(started),
        });
        throw error;
      }
      const text = await response.clone().text();
      const recordedResponse = scrubber.describeResponse(
        response.status,
        response.headers,
        text,
        operation === 'createAccount',
      );
      write({ ...line, ...mark?.(response), response: recordedResponse, durationMs: elapsed(started) });
      return response;
    },
  };
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 1000) / 1000;
}
