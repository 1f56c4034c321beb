/** `energy-rental-kit calibrate RECORDING`: a scenario of the choices a recording shows, with evidence. */
import { renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Document, isMap, isScalar, isSeq, parse as parseYaml, type Node } from 'yaml';
import type { components } from '../src/generated/control.ts';
import { BoundedFileError, fileLimitFrom, readBoundedFile, type FileLimit } from '../src/bounded-file.ts';
import { readCommandArgs } from '../src/cli-args.ts';
import { commandHelp } from '../src/cli-help.ts';
import { CliError } from '../src/cli-error.ts';
import { CLI_COMMANDS } from '../src/generated/cli.ts';
import { createValidators, loadSpec } from '../src/spec/loader.ts';
import { loadRecording } from '../recording/recording.ts';
import { DEFAULT_SCENARIO, scenarioSyntaxError } from '../mock/scenario/scenario-input.ts';
import type { Learnt } from './calibrate-answers.ts';
import { calibrate } from './calibrate.ts';

type Scenario = components['schemas']['Scenario'];

/** `calibrate --help`, from its table in spec/cli.yaml. */
export const CALIBRATE_HELP: string = commandHelp(CLI_COMMANDS.calibrate);

function readBase(file: string, limit: FileLimit): Scenario {
  let value: unknown;
  try {
    value = parseYaml(
      readBoundedFile(file, limit, 'pass a JSON or YAML scenario, or leave --base out for the embedded one'),
    );
  } catch (error) {
    if (error instanceof BoundedFileError) throw new CliError(`--base: ${error.message}`);
    throw new CliError(`--base: ${scenarioSyntaxError(error, file)}.`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new CliError(`--base: '${file}' is no scenario (a JSON or YAML object).`);
  return value as Scenario;
}

/** Puts each setting's evidence above it in the YAML. */
function comment(doc: Document, entry: Learnt): void {
  if (!entry.evidence) return;
  const keys = ['settings', ...entry.setting.split('.')];
  const parent = doc.getIn(keys.slice(0, -1), true) as Node | undefined;
  const { operation, case: caseName, observed } = entry.evidence;
  const text = ` ${operation}, "${caseName}": ${observed}`;
  // An item of a list (an extra field): the comment goes above the item.
  if (parent && isSeq(parent)) {
    const item = parent.items[Number(keys.at(-1))] as Node | undefined;
    if (item) item.commentBefore = text;
    return;
  }
  if (!parent || !isMap(parent)) return;
  const pair = parent.items.find((p) => isScalar(p.key) && String(p.key.value) === keys.at(-1));
  if (pair && isScalar(pair.key)) pair.key.commentBefore = text;
}

/** Calibrates, writes the scenario, resolves with the exit code: `await runCalibrate([file, '--out', f])`. */
export async function runCalibrate(
  argv: string[],
  options: { write?: (text: string) => void; env?: NodeJS.ProcessEnv } = {},
): Promise<number> {
  const write = options.write ?? ((text: string) => void process.stdout.write(text));
  const { values, positionals } = readCommandArgs('calibrate', argv, true);
  if (values.help) {
    write(CALIBRATE_HELP);
    return 0;
  }
  if (positionals.length !== 1)
    throw new CliError(
      `calibrate takes one RECORDING (got ${positionals.length}): e.g. 'npx energy-rental-kit calibrate recordings/upstream.json --out calibrated.yaml'.`,
    );
  const file = positionals[0]!;
  const out = values.out ?? 'calibrated-scenario.yaml';
  const limit = fileLimitFrom(values['max-file-mb'], options.env ?? process.env);
  let recording;
  try {
    recording = loadRecording(file, limit);
  } catch (error) {
    throw new CliError(`RECORDING: ${(error as Error).message}`);
  }
  const { settings, table, unreproduced } = calibrate(recording);
  const base = values.base ? readBase(values.base, limit) : DEFAULT_SCENARIO;
  const scenario: Scenario = {
    ...base,
    accounts: base.accounts ?? DEFAULT_SCENARIO.accounts,
    settings: { ...base.settings, ...settings },
  };
  const validate = createValidators(loadSpec('control')).schema('Scenario');
  if (!validate(scenario)) {
    throw new CliError(
      `the calibrated scenario breaks the Scenario schema (${JSON.stringify(validate.errors?.[0])}); the recording shows a value the simulator cannot take.`,
    );
  }
  const doc = new Document(scenario);
  doc.commentBefore = ` Calibrated by 'energy-rental-kit calibrate' from ${path.basename(file)} (recorded ${recording.recordedAt}).\n Each calibrated setting names its evidence: operation, case and observed value.`;
  for (const entry of table) comment(doc, entry);
  const temporary = `${path.resolve(out)}.${process.pid}.tmp`;
  writeFileSync(temporary, doc.toString({ lineWidth: 0 }));
  renameSync(temporary, path.resolve(out));

  const rows = [
    ['setting', 'value', 'source'],
    ...table.map((t) => [
      t.setting,
      t.value === undefined ? '(default)' : JSON.stringify(t.value),
      t.evidence
        ? `${t.value === undefined ? 'default, as ' : ''}observed: ${t.evidence.operation}, ${t.evidence.observed}`
        : 'default: the recording never showed it',
    ]),
  ];
  const width = (i: number): number => Math.max(...rows.map((r) => r[i]!.length));
  const lines = rows.map((r) => `${r[0]!.padEnd(width(0))}  ${r[1]!.padEnd(width(1))}  ${r[2]}`);
  const notes = unreproduced.map(
    (u) => `  - ${u.what}: ${u.why}${u.evidence ? ` (${u.evidence.operation}, "${u.evidence.case}")` : ''}`,
  );
  if (notes.length > 0)
    lines.push('', 'Seen in the recording but not reproduced by the calibrated simulator:', ...notes);
  write(
    `${lines.join('\n')}\n\nScenario written to ${out}: serve it with 'npx energy-rental-kit serve --config ${out}'.\n`,
  );
  return 0;
}
