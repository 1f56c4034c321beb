/** `energy-rental-kit drift`: compares two recordings, or one with spec/openapi.yaml; markdown or JSON. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileLimitFrom, type FileLimit } from '../src/bounded-file.ts';
import { loadCoverageFile } from '../src/behaviour/coverage-file.ts';
import { readCommandArgs } from '../src/cli-args.ts';
import { commandHelp } from '../src/cli-help.ts';
import { CliError } from '../src/cli-error.ts';
import { CLI_COMMANDS } from '../src/generated/cli.ts';
import { compareRecordings, DEFAULT_TIMING_THRESHOLD } from './compare.ts';
import { compareWithSpec, SPEC_NOTES } from './compare-spec.ts';
import { buildReport, type DriftReport, type DriftSide } from './finding.ts';
import { loadRecording, type Recording } from '../recording/recording.ts';
import { renderMarkdown } from './render-markdown.ts';
import { withUsage } from './usage.ts';

/** `drift --help`, from its table in spec/cli.yaml. */
export const DRIFT_HELP: string = commandHelp(CLI_COMMANDS.drift);

interface DriftArgs {
  /** OLD and NEW recordings, or (with --spec) NEW alone. */
  files: string[];
  spec: boolean;
  format: 'markdown' | 'json';
  markdownFile?: string;
  jsonFile?: string;
  /** A coverage file: the usage profile the findings are held against. */
  usageFile?: string;
  timingThreshold: number;
  limit: FileLimit;
}

/** Parses the flags and the environment, naming the flag and the fix on a mistake. */
export function parseDriftArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): DriftArgs | 'help' {
  const { values, positionals } = readCommandArgs('drift', argv, true);
  if (values.help) return 'help';
  if (values.spec && positionals.length !== 1)
    throw new CliError(
      `drift --spec takes one recording (got ${positionals.length}): energy-rental-kit drift --spec NEW.json`,
    );
  if (!values.spec && positionals.length !== 2)
    throw new CliError(
      `drift takes two recordings, OLD and NEW (got ${positionals.length}): energy-rental-kit drift OLD.json NEW.json, or --spec NEW.json to compare with the document.`,
    );
  const format = values.format ?? 'markdown';
  if (format !== 'markdown' && format !== 'json')
    throw new CliError(`--format must be markdown or json (got '${format}').`);
  const threshold = values['timing-threshold'] ?? String(DEFAULT_TIMING_THRESHOLD);
  if (!/^\d+(\.\d+)?$/.test(threshold))
    throw new CliError(
      `--timing-threshold must be a non-negative number of seconds, e.g. 2 or 0.5 (got '${threshold}').`,
    );
  return {
    files: positionals,
    spec: values.spec === true,
    format,
    markdownFile: values.markdown,
    jsonFile: values.json,
    usageFile: values.usage,
    timingThreshold: Number(threshold),
    limit: fileLimitFrom(values['max-file-mb'], env),
  };
}

/** A recording as a side of the report, read with its role ('OLD', 'NEW') named on a mistake. */
function sideOf(file: string, role: string, limit: FileLimit): { recording: Recording; side: DriftSide } {
  let recording: Recording;
  try {
    recording = loadRecording(file, limit);
  } catch (error) {
    throw new CliError(`${role}: ${(error as Error).message}`);
  }
  const { kind, recording: replayed, baseUrl, simulator, variant } = recording.target;
  const place =
    kind === 'in-process'
      ? 'the in-process simulator'
      : kind === 'replay'
        ? `a replay of ${replayed}`
        : baseUrl;
  const target = `${place}${simulator ? '' : ' (not a simulator)'}${variant ? ` [variant: ${variant}]` : ''}`;
  const { recordedAt, runId, interactions } = recording;
  return { recording, side: { source: file, recordedAt, runId, target, interactions: interactions.length } };
}

/** The report of a comparison. */
function driftReport({ files, spec, timingThreshold, limit }: DriftArgs): DriftReport {
  if (spec) {
    const next = sideOf(files[0]!, 'NEW', limit);
    const document = { source: 'spec/openapi.yaml' };
    return buildReport('spec', document, next.side, compareWithSpec(next.recording), { notes: SPEC_NOTES });
  }
  const old = sideOf(files[0]!, 'OLD', limit);
  const next = sideOf(files[1]!, 'NEW', limit);
  const options = { timingThresholdSeconds: timingThreshold };
  const findings = compareRecordings(old.recording, next.recording, options);
  const notes =
    old.recording.target.simulator === next.recording.target.simulator
      ? []
      : [
          'One recording is of a simulator and the other is not: control-plane operations and cases that need capabilities differ by design.',
        ];
  return buildReport('recordings', old.side, next.side, findings, { ...options, notes });
}

/** Runs `drift`; resolves with 1 on breaking drift, else 0: `await runDrift([old, next, '--json', out])`. */
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
