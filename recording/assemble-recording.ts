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
