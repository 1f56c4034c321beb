/**
 * A contract run's recording: each connection appends every exchange to a JSONL log of its own, keys as
 * connection-local aliases; `assembleRecording` makes the logs one recording, numbering the aliases.
 */
import { appendFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import { createExchangeScrubber } from './exchange-scrubber.ts';
import { computeTiming } from './order-observations.ts';
import {
  elapsed,
  MAIN_KEY_ALIAS,
  operationOf,
  RECORDING_FORMAT,
  type Interaction,
  type RecordedApiKey,
  type Recording,
  type RecordingSettings,
  type TargetInfo,
} from './recording.ts';

/** A fetch that knows the case and file of a request; `mark` tells whether the suite will send it again. */
export type CaseTransport = (
  request: Request,
  caseName: string,
  file: string,
  mark?: (response: Response) => RetryMark,
) => Promise<Response>;

/** How a recorded answer is marked when the suite sends its request again after it. */
export type RetryMark = Pick<Interaction, 'attempt' | 'retried'>;

type LogLine = { type: 'target'; target: TargetInfo } | InteractionLine;
type InteractionLine = { type: 'interaction'; seq: number } & Interaction;

const LOCAL_ALIAS = /key-local-(\d+)-(issued|foreign)/g;

export interface Recorder {
  wrap(fetch: (request: Request) => Promise<Response>): CaseTransport;
  /** Notes what the target turned out to be (after its health check). */
  noteTarget(target: TargetInfo): void;
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
      const issuing = operation === 'createAccount';
      const recordedResponse = scrubber.describeResponse(response.status, response.headers, text, issuing);
      write({ ...line, ...mark?.(response), response: recordedResponse, durationMs: elapsed(started) });
      return response;
    },
  };
}

interface Log {
  name: string;
  file: string;
  target?: Extract<LogLine, { type: 'target' }>['target'];
  lines: InteractionLine[];
}

/**
 * Reads every `*.jsonl` log of `dir`.
 *
 * @example
 *   const recording = assembleRecording(dir, { runId, settings: { allowSpend: false, maxOrders: 1 } });
 */
export function assembleRecording(
  dir: string,
  meta: { runId: string; settings: RecordingSettings; recordedAt?: Date },
): Recording {
  const logs: Log[] = [];
  const names = readdirSync(dir).filter((f) => f.endsWith('.jsonl'));
  for (const name of names.sort()) {
    const log: Log = { name, file: '', lines: [] };
    for (const text of readFileSync(path.join(dir, name), 'utf8').split('\n')) {
      if (text.trim() === '') continue;
      const line = JSON.parse(text) as LogLine;
      if (line.type === 'target') log.target ??= line.target;
      else log.lines.push(line);
    }
    log.lines.sort((a, b) => a.seq - b.seq);
    log.file = log.lines.find((l) => l.file)?.file ?? '';
    logs.push(log);
  }
  const target = logs.find((l) => l.target)?.target;
  if (!target)
    throw new Error(
      `no contract file connected to the target: no log in ${dir} names it. Is the contract project empty?`,
    );
  logs.sort((a, b) => a.file.localeCompare(b.file) || a.name.localeCompare(b.name));

  const apiKeys: RecordedApiKey[] = [{ alias: MAIN_KEY_ALIAS, role: 'main' }];
  const interactions: Interaction[] = [];
  for (const log of logs) {
    const global = new Map<string, string>();
    for (const line of log.lines) {
      // An alias is plain text in the line's JSON, wherever it stands: renamed there.
      const text = JSON.stringify(line).replace(LOCAL_ALIAS, (_, n: string, role: 'issued' | 'foreign') => {
        if (!global.has(n)) {
          global.set(n, `key-${apiKeys.length + 1}`);
          apiKeys.push({ alias: global.get(n)!, role });
        }
        return global.get(n)!;
      });
      const { type: _type, seq: _seq, retried, ...interaction } = JSON.parse(text) as InteractionLine;
      interactions.push({ ...interaction, file: line.file || log.file, ...(retried ? { retried } : {}) });
    }
  }
  return {
    format: RECORDING_FORMAT,
    recordedAt: (meta.recordedAt ?? new Date()).toISOString(),
    runId: meta.runId,
    target,
    settings: meta.settings,
    apiKeys,
    interactions,
    timing: computeTiming(interactions),
  };
}
