/** Coverage files (control.yaml's CoverageFile): read, merged, printed, held to ids; names, never values. */
import { BoundedFileError, readBoundedFile, type FileLimit } from '../bounded-file.ts';
import { CliError } from '../cli-error.ts';
import type { components } from '../generated/control.ts';
import { COVERAGE_FORMAT } from '../generated/lists.ts';
import { createValidators, loadSpec, type ValidateFunction } from '../spec/loader.ts';
import { describeSchemaProblems } from '../spec/schema-problem.ts';
import { COVERAGE_IDS, KNOWN_COVERAGE_IDS, resolveCoverageId } from './coverage-ids.ts';

export type CoverageFile = components['schemas']['CoverageFile'];
export type Coverage = components['schemas']['Coverage'];

/**
 * A coverage file of one simulator's coverage.
 *
 * @example
 *   coverageFileOf(await sim.coverage(), ['http://127.0.0.1:8080']).format; // 'energy-rental-kit/coverage@1'
 */
export function coverageFileOf(coverage: Coverage, sources: string[]): CoverageFile {
  return { format: COVERAGE_FORMAT as CoverageFile['format'], sources, ...coverage };
}

let checkFile: ValidateFunction | undefined;

/**
 * Checks a parsed coverage file (or GET /_sim/coverage's answer), naming file, field and rule on a mistake.
 *
 * @example
 *   readCoverageFile(JSON.parse(text), 'energy-coverage.json');
 */
export function readCoverageFile(value: unknown, name: string): CoverageFile {
  checkFile ??= createValidators(loadSpec('control')).schema('CoverageFile');
  const file =
    typeof value === 'object' && value !== null && !Array.isArray(value) && !('format' in value)
      ? coverageFileOf(value as Coverage, [name])
      : value;
  if (checkFile(file)) return file as CoverageFile;
  const problems = describeSchemaProblems(checkFile.errors ?? [], file);
  throw new Error(
    `${name}: ${problems}; is it a file the coverage reporter wrote, or what GET /_sim/coverage answered?`,
  );
}

function addCounts(into: Record<string, number>, from: Record<string, number> | undefined): void {
  for (const [id, n] of Object.entries(from ?? {})) into[id] = (into[id] ?? 0) + n;
}

/**
 * Merges coverage files: counts add up; an id is never met when no file met it and a file
 * could have; it is impossible or unobservable only when it is so in every file.
 *
 * @example
 *   mergeCoverage([a, b]).exercised['op:createOrder']; // a's count plus b's
 */
export function mergeCoverage(files: CoverageFile[]): CoverageFile {
  const exercised: Record<string, number> = {};
  const called: Record<string, number> = {};
  const parameters: Record<string, string[]> = {};
  let unclassified = 0;
  for (const file of files) {
    addCounts(exercised, file.exercised);
    addCounts(called, file.called);
    unclassified += file.unclassified ?? 0;
    for (const [op, list] of Object.entries(file.parameters ?? {}))
      parameters[op] = [...new Set([...(parameters[op] ?? []), ...list])].sort();
  }
  const inEvery = (pick: (file: CoverageFile) => string[]): Set<string> => {
    const sets = files.map((f) => new Set(pick(f)));
    return new Set(sets.length === 0 ? [] : [...sets[0]!].filter((id) => sets.every((s) => s.has(id))));
  };
  const impossibleIds = inEvery((f) => (f.impossible ?? []).map((i) => i.id));
  const unobservable = [...inEvery((f) => f.unobservable ?? [])].filter((id) => exercised[id] === undefined);
  const listed = new Set([...COVERAGE_IDS, ...files.flatMap((f) => f.never)]);
  const never = [...listed].filter(
    (id) => exercised[id] === undefined && !impossibleIds.has(id) && !unobservable.includes(id),
  );
  const impossible = files
    .flatMap((f) => f.impossible ?? [])
    .filter(
      (i, index, all) =>
        impossibleIds.has(i.id) &&
        exercised[i.id] === undefined &&
        all.findIndex((j) => j.id === i.id) === index,
    );
  return {
    format: COVERAGE_FORMAT as CoverageFile['format'],
    sources: files.flatMap((f) => f.sources ?? []),
    exercised: ordered(exercised),
    never: never.sort(byListOrder),
    impossible,
    unobservable,
    unclassified,
    called,
    parameters,
  };
}

const ORDER = new Map(KNOWN_COVERAGE_IDS.map((id, i) => [id, i]));
function byListOrder(a: string, b: string): number {
  return (ORDER.get(a) ?? Infinity) - (ORDER.get(b) ?? Infinity) || a.localeCompare(b);
}

function ordered(counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => byListOrder(a, b)));
}

/** What `--require` found: the ids missing, and the names it could not resolve. */
export interface RequireResult {
  missing: string[];
  unresolved: Array<{ name: string; problem: 'unknown' | 'ambiguous'; candidates: string[] }>;
}

/**
 * Holds merged coverage against required ids (bare names allowed where unambiguous).
 *
 * @example
 *   checkRequired(merged, ['REFUNDED', 'op:createOrder']); // { missing: ['status:REFUNDED'], unresolved: [] }
 */
export function checkRequired(coverage: CoverageFile, names: string[]): RequireResult {
  const result: RequireResult = { missing: [], unresolved: [] };
  for (const name of names) {
    const resolved = resolveCoverageId(name);
    if (!resolved.ok) result.unresolved.push(resolved);
    else if (coverage.exercised[resolved.id] === undefined && !result.missing.includes(resolved.id))
      result.missing.push(resolved.id);
  }
  return result;
}

function rows(coverage: CoverageFile): Array<{ id: string; count: string; state: string }> {
  const out = Object.entries(coverage.exercised).map(([id, n]) => ({
    id,
    count: String(n),
    state: 'exercised',
  }));
  for (const id of coverage.never) out.push({ id, count: '0', state: 'never' });
  for (const { id, reason } of coverage.impossible ?? [])
    out.push({ id, count: '—', state: `impossible: ${reason}` });
  for (const id of coverage.unobservable ?? [])
    out.push({ id, count: '—', state: 'not observable in this mode' });
  return out;
}

function summary(coverage: CoverageFile): string {
  const met = Object.keys(coverage.exercised).filter((id) => COVERAGE_IDS.includes(id)).length;
  const listed = met + coverage.never.length;
  const extra = coverage.unclassified ? `; ${coverage.unclassified} exchanges could not be classified` : '';
  return `${met} of ${listed} behaviours exercised${extra}.`;
}

/**
 * The table as plain text, for a terminal.
 *
 * @example
 *   renderCoverageText(merged); // 'behaviour   count  \nop:getPrice     3  exercised\n…'
 */
export function renderCoverageText(coverage: CoverageFile): string {
  const table = rows(coverage);
  const idWidth = Math.max(9, ...table.map((r) => r.id.length));
  const countWidth = Math.max(5, ...table.map((r) => r.count.length));
  const lines = [`${'behaviour'.padEnd(idWidth)}  ${'count'.padStart(countWidth)}  state`];
  for (const r of table) lines.push(`${r.id.padEnd(idWidth)}  ${r.count.padStart(countWidth)}  ${r.state}`);
  lines.push('', summary(coverage));
  return `${lines.join('\n')}\n`;
}

/**
 * The table as markdown, for a CI summary.
 *
 * @example
 *   renderCoverageMarkdown(merged); // '# Behaviour coverage\n\n| behaviour | count | state |…'
 */
export function renderCoverageMarkdown(coverage: CoverageFile): string {
  const lines = [
    '# Behaviour coverage',
    '',
    summary(coverage),
    '',
    '| behaviour | count | state |',
    '|---|---:|---|',
  ];
  for (const r of rows(coverage))
    lines.push(`| \`${r.id}\` | ${r.count} | ${r.state.replace(/\|/g, '\\|')} |`);
  return `${lines.join('\n')}\n`;
}

/**
 * Reads a coverage file for a command; every problem is one CliError naming the file (and `flag`).
 *
 * @example
 *   loadCoverageFile('energy-coverage.json', DEFAULT_FILE_LIMIT, '--usage'); // a CoverageFile
 */
export function loadCoverageFile(file: string, limit: FileLimit, flag?: string): CoverageFile {
  const where = flag ? `${flag} ` : '';
  const named = flag ? `${flag}: ` : '';
  const fix = 'pass a coverage file the vitest reporter wrote (energy-coverage*.json)';
  let text: string;
  try {
    text = readBoundedFile(file, limit, fix);
  } catch (error) {
    if (!(error instanceof BoundedFileError)) throw error;
    if (error.rule === 'not-regular' || error.rule === 'too-large')
      throw new CliError(`${named}${error.message}`);
    throw new CliError(
      `${named}cannot read '${file}' (${error.code}): pass a coverage file the vitest reporter wrote.`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliError(
      `${where}${file}: not JSON (${(error as Error).message}); is it a file the coverage reporter wrote?`,
    );
  }
  try {
    return readCoverageFile(value, `${where}${file}`);
  } catch (error) {
    throw new CliError((error as Error).message);
  }
}
