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
import { isSecretName, replaceKeys } from '../mock/http/journal-redaction.ts';
import {
  MAIN_KEY_ALIAS,
  operationOf,
  type Interaction,
  type RecordedRequest,
  type RecordedResponse,
  type TargetInfo,
} from './recording.ts';

/** A fetch that knows which case (and file) sends the request. */
export type CaseTransport = (request: Request, caseName: string, file: string) => Promise<Response>;

/** One line of a worker's log. */
export type LogLine =
  { type: 'target'; target: TargetInfo } | ({ type: 'interaction'; seq: number } & Interaction);

export const LOCAL_ALIAS = /key-local-(\d+)-(issued|foreign)/g;

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
  const basePath = new URL(options.baseUrl).pathname.replace(/\/+$/, '');
  const aliases = new Map<string, string>([[options.mainKey, MAIN_KEY_ALIAS]]);
  let localCount = 0;
  let seq = 0;
  const write = (line: LogLine): void => appendFileSync(file, `${JSON.stringify(line)}\n`);

  const aliasOf = (key: string, role: 'issued' | 'foreign'): string => {
    let alias = aliases.get(key);
    if (!alias) {
      alias = `key-local-${++localCount}-${role}`;
      aliases.set(key, alias);
    }
    return alias;
  };
  /** Replaces every known key where it stands as a token, raw or percent-encoded (journal-redaction.ts). */
  const scrubText = (text: string): string => replaceKeys(text, aliases);
  const scrub = (value: unknown, issuing: boolean): unknown => {
    if (typeof value === 'string') return scrubText(value);
    if (Array.isArray(value)) return value.map((v) => scrub(v, issuing));
    if (typeof value === 'object' && value !== null) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        // Whatever a secret-named field holds is a key: one the target hands out
        // (createAccount) is 'issued', any other (a key sent in a query, a form or a JSON
        // body, or echoed back) 'foreign'; it is recorded as its alias so replay still matches.
        if (isSecretName(k))
          out[k] = typeof v === 'string' ? aliasOf(v, issuing ? 'issued' : 'foreign') : '[redacted]';
        else out[k] = scrub(v, issuing);
      }
      return out;
    }
    return value;
  };

  const describeRequest = async (request: Request): Promise<RecordedRequest> => {
    const url = new URL(request.url);
    let pathname = url.pathname;
    if (basePath && (pathname === basePath || pathname.startsWith(`${basePath}/`)))
      pathname = pathname.slice(basePath.length) || '/';
    const key = request.headers.get('api-key');
    const out: RecordedRequest = {
      method: request.method.toUpperCase(),
      path: pathname,
      query: scrub(paramsOf(url.searchParams), false) as RecordedRequest['query'],
    };
    const text = request.body === null ? '' : await request.clone().text();
    if (text !== '') {
      const type = request.headers.get('content-type') ?? '';
      if (type.includes('application/x-www-form-urlencoded'))
        out.form = scrub(paramsOf(new URLSearchParams(text)), false) as RecordedRequest['form'];
      else {
        try {
          out.json = scrub(JSON.parse(text), false);
        } catch {
          out.text = scrubText(text);
        }
      }
    }
    if (key !== null) out.apiKeyAlias = aliases.get(key) ?? aliasOf(key, 'foreign');
    return out;
  };

  return {
    file,
    noteTarget: (target) => write({ type: 'target', target }),
    wrap: (fetch) => async (request, caseName, testFile) => {
      const recorded = await describeRequest(request);
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
          error: scrubText((error as Error).message ?? String(error)),
          durationMs: elapsed(started),
        });
        throw error;
      }
      const text = await response.clone().text();
      const headers: Record<string, string> = {};
      for (const name of ['content-type', 'retry-after']) {
        const value = response.headers.get(name);
        if (value !== null) headers[name] = value;
      }
      const recordedResponse: RecordedResponse = { status: response.status, headers };
      try {
        recordedResponse.body = scrub(JSON.parse(text), operation === 'createAccount');
      } catch {
        recordedResponse.text = scrubText(text);
      }
      write({ ...line, response: recordedResponse, durationMs: elapsed(started) });
      return response;
    },
  };
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 1000) / 1000;
}

/** Parameters as a sorted object; a repeated name keeps every value. */
export function paramsOf(params: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const name of [...new Set(params.keys())].sort()) {
    const values = params.getAll(name);
    out[name] = values.length === 1 ? values[0]! : values;
  }
  return out;
}
