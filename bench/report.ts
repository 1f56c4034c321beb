/** The bench's rows, the table of the servers under load, and bench/results.json; progress to stderr. */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { median, type LoadResult } from './load.ts';

export interface Row {
  name: string;
  figure: string;
  target: string;
  /** met, missed, info (no target), or skipped/invalid with the reason. */
  verdict: string;
  value?: number;
  /** For a ratio of req/s: the same ratio of CPU time per answer (what it would be with a core each). */
  cpu?: number;
}

const UNITS = { x: '×', ms: ' ms', s: ' s' } as const;
type Unit = keyof typeof UNITS;
const rows: Row[] = [];
let invalid = false;

export const note = (line: string): void => void process.stderr.write(`bench: ${line}\n`);
export const loadAverage = (): number => Number(os.loadavg()[0]!.toFixed(2));

/**
 * A row: `value` against `target` ('≥ 0.6'), or for information with none.
 * @example
 *   row('account ÷ bare node:http', 0.71, 'x', '≥ 0.6'); // account ÷ bare node:http  0.71×  ≥ 0.6×  met
 */
export function row(name: string, value: number, unit: Unit, target?: string, cpu?: number): void {
  const [op, goalText] = target?.split(' ') ?? [];
  const goal = Number(goalText);
  const met = { '≥': value >= goal, '≤': value <= goal, '<': value < goal, '>': value > goal }[op ?? ''];
  const digits = unit === 's' || value >= 10 ? (unit === 'x' || unit === 's' ? 1 : 0) : 2;
  const figure = `${value.toFixed(digits)}${UNITS[unit]}`;
  const verdict = met === undefined ? 'info' : met ? 'met' : 'missed';
  rows.push({ name, figure, target: target ? target + UNITS[unit] : '', verdict, value, cpu });
  note(`${name}: ${figure} ${verdict}`);
}

/** A row with no figure: `skipped: …` (a tool unavailable) or `invalid: …` (a wrong answer, a failed suite). */
export function noFigure(name: string, verdict: string): void {
  if (verdict.startsWith('invalid')) invalid = true;
  rows.push({ name, figure: '–', target: '', verdict });
  note(`${name}: ${verdict}`);
}

type Loaded = { name: string; runs: LoadResult[] };

/** Prints the rows and the servers under load, writes `out`; whether every run was valid. */
export function report(out: string, header: string[], loads: Loaded[]): boolean {
  const width = Math.max(...rows.map((r) => r.name.length));
  const lines = [...header, ''];
  for (const r of rows)
    lines.push(
      `${r.name.padEnd(width)}  ${r.figure.padStart(9)}  ${r.target.padEnd(9)}  ${r.verdict.padEnd(6)}` +
        (r.cpu ? `  by CPU per answer: ${r.cpu.toFixed(2)}×` : ''),
    );
  const served = loads.map(({ name, runs }) => {
    const of = (key: 'rps' | 'p50Ms' | 'p99Ms' | 'cpuUs'): number => median(runs.map((run) => run[key]));
    return { name, rps: of('rps'), p50Ms: of('p50Ms'), p99Ms: of('p99Ms'), cpuUs: of('cpuUs') };
  });
  if (served.length > 0) {
    const w = Math.max(...served.map((s) => s.name.length));
    const line = (name: string, cells: string[]) =>
      `${name.padEnd(w)}  ${cells.map((c) => c.padStart(7)).join('  ')}`;
    lines.push('', line('under load (medians)', ['req/s', 'p50 ms', 'p99 ms', 'CPU µs']));
    for (const s of served)
      lines.push(
        line(s.name, [s.rps.toFixed(0), s.p50Ms.toFixed(2), s.p99Ms.toFixed(2), s.cpuUs.toFixed(0)]),
      );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  writeFileSync(out, `${JSON.stringify({ header, rows, served, loads }, null, 2)}\n`);
  return !invalid;
}
