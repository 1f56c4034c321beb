/** The contract report: the target, its capabilities, every interaction (keys redacted), each verdict. */
import type { ContractMeta, RecordedInteraction } from './contract-test.ts';
import type { TargetInfo } from './contract-target.ts';
import { sumOf } from './facts.ts';
import type { PoliteWaits } from './polite-transport.ts';
import { WAIT_REASONS, type WaitReason } from './pace-coordinator.ts';

/** What the whole run waited to be polite to a target that is not a simulator (see PoliteWaits). */
export type PolitenessReport = Omit<PoliteWaits, 'waitingSince'> & {
  /** The pace, requests a second for all workers together (0: none). */
  maxRps?: number;
};

export interface ContractCase {
  name: string;
  file: string;
  verdict: 'passed' | 'failed' | 'skipped';
  reason?: string;
  errors?: string[];
  durationMs?: number;
  /** Of durationMs, what the case waited to be polite. */
  waitedMs?: number;
  /** The documented facts the case checked (ids of spec/openapi.yaml's x-facts; `contract --facts` quotes them). */
  facts?: string[];
  /** What the case saw where the documents are silent (a quantity refused, a fee on a fresh address). */
  notes?: string[];
  interactions: RecordedInteraction[];
}

export interface ContractReport {
  tool: 'energy-rental-kit contract';
  finishedAt: string;
  target: TargetInfo | undefined;
  summary: { passed: number; failed: number; skipped: number };
  spent: { orders: number; byCurrency: Record<string, string> };
  facts: string[];
  /** Present when the suite was polite to the target (it is no simulator). */
  politeness?: PolitenessReport;
  cases: ContractCase[];
}

/** Builds the report from the cases and the metas the tests recorded. */
export function buildReport(
  cases: Array<ContractCase & { meta?: ContractMeta }>,
  finishedAt: Date,
  options: { maxRps?: number } = {},
): ContractReport {
  const out = cases.map(({ meta, ...c }): ContractCase => {
    const waitedMs = Math.round(meta?.politeness?.waitedMs ?? 0);
    return {
      ...c,
      ...(waitedMs > 0 ? { waitedMs } : {}),
      ...(meta?.facts.length ? { facts: meta.facts } : {}),
      ...(meta?.notes.length ? { notes: meta.notes } : {}),
    };
  });
  const spent = cases.flatMap((c) => c.meta?.spent ?? []);
  const currencies = [...new Set(spent.map((s) => s.currency))];
  const waits = cases.flatMap((c) => c.meta?.politeness ?? []);
  const sum = (of: (w: PoliteWaits) => number) => Math.round(waits.reduce((total, w) => total + of(w), 0));
  const count = (verdict: ContractCase['verdict']) => out.filter((c) => c.verdict === verdict).length;
  return {
    tool: 'energy-rental-kit contract',
    finishedAt: finishedAt.toISOString(),
    target: cases.find((c) => c.meta)?.meta?.target,
    summary: { passed: count('passed'), failed: count('failed'), skipped: count('skipped') },
    spent: {
      orders: spent.length,
      byCurrency: Object.fromEntries(
        currencies.map((currency) => [
          currency,
          sumOf(spent.filter((s) => s.currency === currency).map((s) => s.amount)),
        ]),
      ),
    },
    facts: [...new Set(out.flatMap((c) => c.facts ?? []))].sort(),
    ...(waits.length > 0
      ? {
          politeness: {
            ...(options.maxRps === undefined ? {} : { maxRps: options.maxRps }),
            waitedMs: sum((w) => w.waitedMs),
            waits: Object.fromEntries(
              WAIT_REASONS.map((r) => [
                r,
                { count: sum((w) => w.waits[r].count), ms: sum((w) => w.waits[r].ms) },
              ]),
            ) as PoliteWaits['waits'],
            retries: sum((w) => w.retries),
            gaveUp: sum((w) => w.gaveUp),
          },
        }
      : {}),
    cases: out,
  };
}

/** How the summary names a reason, where its id will not do. */
const REASON_NAMES: Partial<Record<WaitReason, string>> = {
  rateLimitHeaders: 'rate-limit headers',
  retryAfter: 'Retry-After',
};

/**
 * One line on how long the run waited to be polite and why.
 *
 * @example
 *   describePoliteness(report.politeness!); // 'waited 11.8 s to be polite (pace 4 requests/s): pace 11.3 s (45 waits), …'
 */
export function describePoliteness(p: PolitenessReport): string {
  const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;
  const pace = p.maxRps === undefined ? '' : p.maxRps > 0 ? ` (pace ${p.maxRps} requests/s)` : ' (no pace)';
  const reasons = WAIT_REASONS.map(
    (reason) =>
      `${REASON_NAMES[reason] ?? reason} ${seconds(p.waits[reason].ms)} (${p.waits[reason].count} wait${p.waits[reason].count === 1 ? '' : 's'})`,
  );
  return `waited ${seconds(p.waitedMs)} to be polite${pace}: ${reasons.join(', ')}; ${p.retries} ${p.retries === 1 ? 'retry' : 'retries'} after a 429, ${p.gaveUp} 429${p.gaveUp === 1 ? '' : 's'} not retried`;
}

/** The short human summary printed after a run. */
export function summarise(report: ContractReport, reportPath: string): string {
  const t = report.target;
  const place =
    t?.kind === 'in-process'
      ? 'the in-process simulator'
      : t?.kind === 'replay'
        ? `the recording ${t.recording} (replayed offline; recorded from ${t.recordedFrom})`
        : t?.baseUrl;
  const where = t
    ? `${place}${t.simulator ? '' : ' (not a simulator)'}${t.variant ? ` [broken variant: ${t.variant}]` : ''}`
    : 'no target';
  const lines = [
    '',
    `Contract run against ${where}`,
    `  capabilities: ${t?.capabilities.length ? t.capabilities.join(', ') : 'none'}`,
    `  ${report.summary.passed} passed, ${report.summary.failed} failed, ${report.summary.skipped} skipped`,
    `  ${report.facts.length} documented facts checked (npx energy-rental-kit contract --facts quotes each)`,
  ];
  for (const c of report.cases.filter((x) => x.verdict === 'failed'))
    lines.push(`  FAILED ${c.name}: ${(c.errors?.[0] ?? '').split('\n')[0]}`);
  for (const c of report.cases) for (const text of c.notes ?? []) lines.push(`  note: ${text}`);
  const reasons = new Map<string, number>();
  for (const c of report.cases.filter((x) => x.verdict === 'skipped'))
    reasons.set(c.reason ?? 'skipped', (reasons.get(c.reason ?? 'skipped') ?? 0) + 1);
  for (const [reason, count] of reasons) lines.push(`  skipped ${count}: ${reason}`);
  const spent = Object.entries(report.spent.byCurrency).map(([currency, amount]) => `${amount} ${currency}`);
  const free =
    t?.kind === 'replay'
      ? ' in a replay, no real money'
      : t?.simulator
        ? ' on a simulator, no real money'
        : '';
  lines.push(
    `  spent: ${report.spent.orders} order${report.spent.orders === 1 ? '' : 's'}${spent.length ? ` (${spent.join(', ')})` : ''}${free}`,
  );
  if (report.politeness) lines.push(`  ${describePoliteness(report.politeness)}`);
  lines.push(`  report: ${reportPath}`);
  return `${lines.join('\n')}\n`;
}
