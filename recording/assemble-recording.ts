/**
 * Turns the workers' logs of a recording run into one recording: interactions
 * ordered by test file, then as sent; connection-local key aliases numbered for the
 * whole run ('key-1' is the run's key, then 'key-2', … in order of first appearance);
 * the timing computed from server time.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { LOCAL_ALIAS, type LogLine } from './recorder.ts';
import { computeTiming } from './order-observations.ts';
import {
  CONNECT_CASE,
  MAIN_KEY_ALIAS,
  RECORDING_FORMAT,
  type Interaction,
  type RecordedApiKey,
  type Recording,
  type RecordingSettings,
} from './recording.ts';

type InteractionLine = Extract<LogLine, { type: 'interaction' }>;

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
  for (const name of readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()) {
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
    const rename = (value: unknown): unknown => {
      if (typeof value === 'string') {
        return value.replace(LOCAL_ALIAS, (_, n: string, role: 'issued' | 'foreign') => {
          let alias = global.get(n);
          if (!alias) {
            alias = `key-${apiKeys.length + 1}`;
            apiKeys.push({ alias, role });
            global.set(n, alias);
          }
          return alias;
        });
      }
      if (Array.isArray(value)) return value.map(rename);
      if (typeof value === 'object' && value !== null)
        return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rename(v)]));
      return value;
    };
    for (const line of log.lines) {
      const interaction: Interaction = {
        case: line.case,
        file: line.file || log.file,
        operation: line.operation,
        request: rename(line.request) as Interaction['request'],
        at: line.at,
        durationMs: line.durationMs,
      };
      if (line.response) interaction.response = rename(line.response) as Interaction['response'];
      if (line.error !== undefined) interaction.error = line.error;
      if (line.attempt !== undefined) interaction.attempt = line.attempt;
      if (line.retried) interaction.retried = true;
      if (interaction.case === CONNECT_CASE && !interaction.file) interaction.file = log.file;
      interactions.push(interaction);
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
