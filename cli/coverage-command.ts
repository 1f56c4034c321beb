/**
 * `energy-rental-kit coverage FILES…`: merges coverage files, prints what was exercised and
 * what never was, and with `--require` fails when a required behaviour went untested.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileLimitFrom, type FileLimit } from '../src/bounded-file.ts';
import { readCommandArgs } from '../src/cli-args.ts';
import { commandHelp } from '../src/cli-help.ts';
import { CliError } from '../src/cli-error.ts';
import { CLI_COMMANDS } from '../src/generated/cli.ts';
import {
  checkRequired,
  mergeCoverage,
  loadCoverageFile,
  renderCoverageMarkdown,
  renderCoverageText,
} from '../src/behaviour/coverage-file.ts';

/** `coverage --help`, from its table in spec/cli.yaml. */
export const COVERAGE_HELP: string = commandHelp(CLI_COMMANDS.coverage);

/** Parses the flags, naming the flag and the fix on a mistake. */
export function parseCoverageArgs(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
): { files: string[]; require: string[]; json?: string; markdown?: string; limit: FileLimit } | 'help' {
  const { values, positionals: files } = readCommandArgs('coverage', argv, true);
  if (values.help) return 'help';
  if (files.length === 0)
    throw new CliError(
      'coverage takes at least one coverage file: energy-rental-kit coverage energy-coverage*.json (the vitest reporter writes them).',
    );
  const require = (values.require ?? [])
    .flatMap((list) => list.split(','))
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (values.require !== undefined && require.length === 0)
    throw new CliError('--require needs at least one id, e.g. --require op:createOrder,REFUNDED.');
  return { ...values, files, require, limit: fileLimitFrom(values['max-file-mb'], env) };
}

/**
 * Runs `coverage`; resolves with 1 when a required id was not exercised, else 0.
 * @example
 *   await runCoverage(['energy-coverage.json', '--require', 'REFUNDED']); // 1, naming status:REFUNDED
 */
export async function runCoverage(
  argv: string[],
  options: { write?: (text: string) => void; env?: NodeJS.ProcessEnv } = {},
): Promise<number> {
  const write = options.write ?? ((text: string) => void process.stdout.write(text));
  const args = parseCoverageArgs(argv, options.env);
  if (args === 'help') {
    write(COVERAGE_HELP);
    return 0;
  }
  const merged = mergeCoverage(args.files.map((file) => loadCoverageFile(file, args.limit)));
  const { missing, unresolved } = checkRequired(merged, args.require);
  if (unresolved.length > 0)
    throw new CliError(
      `--require: ${unresolved
        .map((u) =>
          u.problem === 'ambiguous'
            ? `'${u.name}' is ambiguous (${u.candidates.join(', ')}): write the whole id`
            : `'${u.name}' is no behaviour id (ids look like op:createOrder, status:REFUNDED, transition:FAILED>REFUNDED)`,
        )
        .join('; ')}.`,
    );
  for (const [file, text] of [
    [args.json, `${JSON.stringify(merged, null, 2)}\n`],
    [args.markdown, renderCoverageMarkdown(merged)],
  ] as const) {
    if (file === undefined) continue;
    mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    writeFileSync(file, text);
  }
  write(renderCoverageText(merged));
  if (missing.length > 0) {
    write(`\nRequired but never exercised: ${missing.join(', ')}.\n`);
    return 1;
  }
  return 0;
}
