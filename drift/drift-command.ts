/**
 * `energy-rental-kit drift`: compares two recordings, or one recording with
 * spec/openapi.yaml, and prints the report as markdown or JSON.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileLimitFrom, type FileLimit } from '../src/bounded-file.ts';
import { loadCoverageFile } from '../src/behaviour/coverage-file.ts';
import { readCommandArgs } from '../src/cli-args.ts';
import { commandHelp } from '../src/cli-help.ts';
import { CliError } from '../src/cli-error.ts';
import { CLI_COMMANDS } from '../src/generated/cli.ts';
import type { TargetInfo } from '../contract-tests/contract-target.ts';
import { compareRecordings, DEFAULT_TIMING_THRESHOLD } from './compare.ts';
import { compareWithSpec, SPEC_NOTES } from './compare-spec.ts';
import { buildReport, type DriftReport, type DriftSide } from './finding.ts';
import { loadRecording, type Recording } from '../recording/recording.ts';
import { renderMarkdown } from './render-markdown.ts';
import { withUsage } from './usage.ts';

/** `drift --help`, from its table in spec/cli.yaml. */
export const DRIFT_HELP: string = commandHelp(CLI_COMMANDS.drift);

interface DriftArgs {
  mode: 'recordings' | 'spec';
  files: string[];
  format: 'markdown' | 'json';
  markdownFile?: string;
  jsonFile?: string;
  /** A coverage file: the usage profile the findings are held against. */
  usageFile?: string;
  timingThreshold: number;
  /** The largest recording read. */
  limit: FileLimit;
}

/** Parses the flags and the environment, naming the flag and the fix on a mistake. */
export function parseDriftArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): DriftArgs | 'help' {
  const parsed = readCommandArgs('drift', argv, true);
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  const mode = values.spec ? 'spec' : 'recordings';
  if (mode === 'spec' && positionals.length !== 1) {
    throw new CliError(
      `drift --spec takes one recording (got ${positionals.length}): energy-rental-kit drift --spec NEW.json`,
    );
  }
  if (mode === 'recordings' && positionals.length !== 2) {
    throw new CliError(
      `drift takes two recordings, OLD and NEW (got ${positionals.length}): energy-rental-kit drift OLD.json NEW.json, or --spec NEW.json to compare with the document.`,
    );
  }
  const format = values.format ?? 'markdown';
  if (format !== 'markdown' && format !== 'json')
    throw new CliError(`--format must be markdown or json (got '${format}').`);
  const thresholdText = values['timing-threshold'] ?? String(DEFAULT_TIMING_THRESHOLD);
  if (!/^\d+(\.\d+)?$/.test(thresholdText))
    throw new CliError(
      `--timing-threshold must be a non-negative number of seconds, e.g. 2 or 0.5 (got '${thresholdText}').`,
    );
  return {
    mode,
    files: positionals,
    format,
    markdownFile: values.markdown,
    jsonFile: values.json,
    usageFile: values.usage,
    timingThreshold: Number(thresholdText),
    limit: fileLimitFrom(values['max-file-mb'], env),
  };
}

function describeTarget(target: TargetInfo): string {
  const place =
    target.kind === 'in-process'
      ? 'the in-process simulator'
      : target.kind === 'replay'
        ? `a replay of ${target.recording}`
        : target.baseUrl;
  return `${place}${target.simulator ? '' : ' (not a simulator)'}${target.variant ? ` [variant: ${target.variant}]` : ''}`;
}

function sideOf(file: string, recording: Recording): DriftSide {
  return {
    source: file,
    recordedAt: recording.recordedAt,
    runId: recording.runId,
    target: describeTarget(recording.target),
    interactions: recording.interactions.length,
  };
}

function load(file: string, role: string, limit: FileLimit): Recording {
  try {
    return loadRecording(file, limit);
  } catch (error) {
    throw new CliError(`${role}: ${(error as Error).message}`);
  }
}

/**
 * Builds the report of a comparison.
 *
 * @example
 *   driftReport({ mode: 'recordings', files: ['old.json', 'new.json'], format: 'markdown', timingThreshold: 2 }).summary;
 */
export function driftReport(
  args: Pick<DriftArgs, 'mode' | 'files' | 'timingThreshold' | 'limit'>,
): DriftReport {
  const { limit } = args;
  if (args.mode === 'spec') {
    const file = args.files[0]!;
    const recording = load(file, 'NEW', limit);
    return buildReport(
      'spec',
      { source: 'spec/openapi.yaml' },
      sideOf(file, recording),
      compareWithSpec(recording),
      { notes: SPEC_NOTES },
    );
  }
  const [oldFile, newFile] = args.files as [string, string];
  const old = load(oldFile, 'OLD', limit);
  const next = load(newFile, 'NEW', limit);
  const findings = compareRecordings(old, next, { timingThresholdSeconds: args.timingThreshold });
  const notes: string[] = [];
  if (old.target.simulator !== next.target.simulator)
    notes.push(
      'One recording is of a simulator and the other is not: control-plane operations and cases that need capabilities differ by design.',
    );
  return buildReport('recordings', sideOf(oldFile, old), sideOf(newFile, next), findings, {
    timingThresholdSeconds: args.timingThreshold,
    notes,
  });
}

/**
 * Runs `drift`; resolves with 1 on breaking drift, else 0.
 *
 * @example
 *   await runDrift(['fixtures/simulator-recording.json', 'recordings/new.json', '--json', 'drift.json']);
 */
export async function runDrift(
  argv: string[],
  options: { write?: (text: string) => void; env?: NodeJS.ProcessEnv } = {},
): Promise<number> {
  const write = options.write ?? ((text: string) => void process.stdout.write(text));
  const args = parseDriftArgs(argv, options.env);
  if (args === 'help') {
    write(DRIFT_HELP);
    return 0;
  }
  const plain = driftReport(args);
  const report =
    args.usageFile === undefined
      ? plain
      : withUsage(plain, loadCoverageFile(args.usageFile, args.limit, '--usage'), args.usageFile);
  const markdown = renderMarkdown(report);
  const json = `${JSON.stringify(report, null, 2)}\n`;
  for (const [file, text] of [
    [args.markdownFile, markdown],
    [args.jsonFile, json],
  ] as const) {
    if (file === undefined) continue;
    mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    writeFileSync(file, text);
  }
  write(args.format === 'json' ? json : markdown);
  return report.summary.breaking > 0 ? 1 : 0;
}
