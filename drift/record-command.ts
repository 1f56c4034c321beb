/** `energy-rental-kit record`: runs the contract suite with recording on and writes one recording file. */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readCommandArgs } from '../src/cli-args.ts';
import { commandHelp } from '../src/cli-help.ts';
import { CliError } from '../src/cli-error.ts';
import { envFlag } from '../src/env-flag.ts';
import { CLI_COMMANDS } from '../src/generated/cli.ts';
import { displayPath, newRunId } from '../contract-tests/contract-config.ts';
import {
  applyContractFlags,
  requireReachableTarget,
  spawnContractSuite,
  suiteLayout,
} from '../contract-tests/contract-command.ts';
import { assembleRecording } from '../recording/recorder.ts';
import { writeRecordingFile } from '../recording/recording-lines.ts';
import { isApiOperation, type Recording } from '../recording/recording.ts';

/** `record --help`, from its table in spec/cli.yaml. */
export const RECORD_HELP: string = commandHelp(CLI_COMMANDS.record);

/** What `record`'s exit code says; a CI job tolerates casesFailed and stops on nothingRecorded. */
export const RECORD_EXIT = { passed: 0, casesFailed: 1, nothingRecorded: 2 } as const;

/** Where progress goes (default stdout); the rest lets tests run the suite their way. */
export interface RecordOptions {
  write?: (text: string) => void;
  vitestArgs?: string[];
  stdio?: 'inherit' | 'pipe';
  /** Runs the suite with its environment and resolves with its exit code. Default: vitest. */
  suite?: (env: NodeJS.ProcessEnv) => Promise<number>;
  /** The fetch of the first read of a URL target. */
  fetch?: typeof fetch;
  onOutput?: (chunk: string) => void;
}

/** Parses the flags into the suite's environment and the output file. */
export function parseRecordArgs(
  argv: string[],
  env: NodeJS.ProcessEnv,
): { env: NodeJS.ProcessEnv; out: string } | 'help' {
  const { values } = readCommandArgs('record', argv);
  if (values.help) return 'help';
  if (!values.out)
    throw new CliError(
      'record needs --out FILE: where to write the recording, e.g. --out recordings/upstream.json.',
    );
  if (env.CONTRACT_REPLAY?.trim())
    throw new CliError(
      'CONTRACT_REPLAY is set: record talks to a live target, a replay cannot be recorded. Unset CONTRACT_REPLAY.',
    );
  const { 'as-upstream': asUpstream, ...suiteFlags } = values;
  const suiteEnv = applyContractFlags(suiteFlags, env);
  if (asUpstream) suiteEnv.CONTRACT_AS_UPSTREAM = '1';
  return { env: suiteEnv, out: path.resolve(values.out) };
}

/** Records (a failing suite's too); resolves with RECORD_EXIT's code: `await runRecord(['--out', file])`. */
export async function runRecord(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  options: RecordOptions = {},
): Promise<number> {
  const write = options.write ?? ((text: string) => void process.stdout.write(text));
  const parsed = parseRecordArgs(argv, env);
  if (parsed === 'help') {
    write(RECORD_HELP);
    return 0;
  }
  const { env: suiteEnv, out } = parsed;
  // An unreachable URL or a refused key records nothing: one line, exit code 2.
  await requireReachableTarget(suiteEnv, options.fetch);
  const runId = suiteEnv.CONTRACT_RUN_ID?.trim() || newRunId();
  const runDir = mkdtempSync(path.join(os.tmpdir(), 'energy-rental-record-'));
  const logDir = path.join(runDir, 'recording');
  Object.assign(suiteEnv, { CONTRACT_RUN_DIR: runDir, CONTRACT_RECORD: logDir, CONTRACT_RUN_ID: runId });
  const where = suiteEnv.CONTRACT_BASE_URL ?? 'the in-process simulator';
  write(`Recording the contract suite against ${where} (run ${runId})…\n`);
  try {
    const code = options.suite
      ? await options.suite(suiteEnv)
      : await spawnContractSuite(suiteEnv, {
          vitestArgs: [
            '--reporter=verbose',
            `--reporter=${suiteLayout().reporter}`,
            ...(options.vitestArgs ?? []),
          ],
          stdio: options.stdio ?? 'inherit',
          ...(options.onOutput ? { onOutput: options.onOutput } : {}),
        });
    let recording: Recording;
    try {
      recording = assembleRecording(logDir, {
        runId,
        settings: {
          allowSpend: envFlag(suiteEnv, 'CONTRACT_ALLOW_SPEND'),
          maxOrders: Number(suiteEnv.CONTRACT_MAX_ORDERS ?? '1'),
          ...(suiteEnv.CONTRACT_PLEDGE_ADDRESS ? { pledgeAddress: suiteEnv.CONTRACT_PLEDGE_ADDRESS } : {}),
        },
      });
    } catch (error) {
      write(`No recording written: ${(error as Error).message}\n`);
      return RECORD_EXIT.nothingRecorded;
    }
    writeRecordingFile(out, recording);
    write(`${describeRecording(recording, displayPath(out))}\n`);
    if (code !== 0) {
      write(
        `The contract suite failed against this target (exit ${code}); the recording holds everything up to each failure, and 'drift' can compare it.\n`,
      );
      return RECORD_EXIT.casesFailed;
    }
    return RECORD_EXIT.passed;
  } finally {
    rmSync(runDir, { recursive: true, force: true });
  }
}

/** One paragraph about a recording: where it is and what it holds. */
export function describeRecording(recording: Recording, file: string): string {
  const cases = new Set(recording.interactions.map((i) => i.case)).size;
  const api = recording.interactions.filter((i) => isApiOperation(i.operation)).length;
  const medians = Object.entries(recording.timing.summary.medianSecondsTo).map(
    ([status, s]) => `${status} ${s} s`,
  );
  const retried = recording.interactions.filter((i) => i.retried).length;
  return [
    `Recording written to ${file}`,
    `  ${recording.interactions.length} interactions from ${cases} cases (${api} API, ${recording.interactions.length - api} control plane)`,
    `  API keys replaced by aliases: ${recording.apiKeys.map((k) => `${k.alias} (${k.role})`).join(', ')}`,
    `  timing: ${recording.timing.summary.orders} order${recording.timing.summary.orders === 1 ? '' : 's'}${medians.length ? `, median seconds from creation to ${medians.join(', ')}` : ''}`,
    ...(retried > 0
      ? [
          `  ${retried} answer${retried === 1 ? '' : 's'} (HTTP 429) waited out and sent again, marked 'retried': drift and replay leave them out`,
        ]
      : []),
  ].join('\n');
}
