/** Usage-aware drift: findings on behaviour the tests exercised (a coverage file) name it and come first. */
import { ORDER_STATUSES, REJECTION_KINDS } from '../src/generated/lists.ts';
import type { CoverageFile } from '../src/behaviour/coverage-file.ts';
import { ERROR_CODES } from '../mock/engine/simulator-error.ts';
import type { DriftReport, Finding } from './finding.ts';

/** What each rejection kind answers by default: a finding that names its code is on that kind. */
const KIND_BY_CODE = new Map<number, (typeof REJECTION_KINDS)[number]>(
  REJECTION_KINDS.flatMap((kind) => {
    const known = (ERROR_CODES as Record<string, { code: number } | undefined>)[kind];
    return known ? [[known.code, kind] as const] : [];
  }),
);

/**
 * The ids the tests met that a finding touches: its operation, or a status, transition or kind it names.
 * @example
 *   exercisedBy({ operation: 'getOrderHistory', … }, usage); // ['op:getOrderHistory']
 */
export function exercisedBy(finding: Finding, usage: CoverageFile): string[] {
  const met = usage.exercised;
  const out: string[] = [];
  const called =
    usage.called?.[finding.operation] !== undefined || met[`op:${finding.operation}`] !== undefined;
  if (called) out.push(`op:${finding.operation}`);
  const text = [finding.response, finding.path, finding.old, finding.new, finding.message].join(' ');
  for (const status of ORDER_STATUSES)
    if (met[`status:${status}`] !== undefined && new RegExp(`\\b${status}\\b`).test(text))
      out.push(`status:${status}`);
  for (const id of Object.keys(met)) {
    if (!id.startsWith('transition:')) continue;
    const [from, to] = id.slice('transition:'.length).split('>') as [string, string];
    if (new RegExp(`\\b${from}\\s*(→|>|->)\\s*${to}\\b`).test(text)) out.push(id);
  }
  const kinds = new Set(REJECTION_KINDS.filter((kind) => new RegExp(`\\b${kind}\\b`).test(text)));
  for (const [, code] of text.matchAll(/\bcode (-?\d+)\b/g)) {
    const kind = KIND_BY_CODE.get(Number(code));
    if (kind) kinds.add(kind);
  }
  for (const kind of REJECTION_KINDS)
    if (kinds.has(kind) && met[`rejection:${kind}`] !== undefined) out.push(`rejection:${kind}`);
  return out;
}

/**
 * Marks each finding on exercised behaviour (`exercised: [ids]`) and puts those first.
 * @example
 *   withUsage(report, usage, 'energy-coverage.json').usage; // { source: 'energy-coverage.json', exercisedFindings: 2 }
 */
export function withUsage(report: DriftReport, usage: CoverageFile, source: string): DriftReport {
  const marked: Finding[] = report.findings.map((finding) => {
    const ids = exercisedBy(finding, usage);
    return ids.length > 0 ? { ...finding, exercised: ids } : finding;
  });
  const exercised = marked.filter((f) => f.exercised);
  const findings = [...exercised, ...marked.filter((f) => !f.exercised)];
  return { ...report, usage: { source, exercisedFindings: exercised.length }, findings };
}
