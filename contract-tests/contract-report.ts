/**
 * The contract report: the target, its capabilities, every interaction with the key
 * redacted, and each case's verdict. Built from the reporter's view of the run.
 */
import type { ContractMeta, RecordedInteraction } from './contract-test.ts';
import type { TargetInfo } from './contract-target.ts';
import { emptyWaits, type PoliteWaits } from './polite-transport.ts';
import type { WaitReason } from './pace-coordinator.ts';

/** What the whole run waited to be polite to a target that is not a simulator. */
export interface PolitenessReport {
  /** The pace, requests a second for all workers together (0: none). */
  maxRps?: number;
  waitedMs: number;
  /** By reason: the pace, rate-limit headers at 0, a 429's Retry-After, backoff after a 429 without one. */
  waits: Record<WaitReason, { count: number; ms: number }>;
  /** Requests sent again after a 429. */
  retries: number;
  /** 429s the suite did not retry (a POST, or past a cap) and handed to the case. */
  gaveUp: number;
}

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
  /** Every documented fact some case checked. */
  facts: string[];
  /** Present when the suite was polite to the target (it is no simulator). */
  politeness?: PolitenessReport;
  cases: ContractCase[];
}

/** Sums decimal amounts exactly (six decimals at most). */
export function sumDecimals(amounts: string[]): string {
  let total = 0n;
  for (const amount of amounts) {
    const [whole, fraction = ''] = amount.split('.');
    total += BigInt(whole!) * 1_000_000n + BigInt(fraction.padEnd(6, '0').slice(0, 6));
  }
  const fraction = String(total % 1_000_000n)
    .padStart(6, '0')
    .replace(/0+$/, '');
  return `${total / 1_000_000n}${fraction ? `.${fraction}` : ''}`;
}

/** Builds the report from the cases and the metas the tests recorded. */
export function buildReport(
  cases: Array<ContractCase & { meta?: ContractMeta }>,
  finishedAt: Date,
  options: { maxRps?: number } = {},
): ContractReport {
  const spentAmounts: Record<string, string[]> = {};
  let orders = 0;
  let target: TargetInfo | undefined;
  let polite: PoliteWaits | undefined;
  const out: ContractCase[] = [];
  for (const { meta, ...c } of cases) {
    target ??= meta?.target;
    if (meta?.politeness) {
      polite = addWaits(polite ?? emptyWaits(), meta.politeness);
      if (meta.politeness.waitedMs > 0) c.waitedMs = Math.round(meta.politeness.waitedMs);
    }
    if (meta?.facts.length) c.facts = meta.facts;
    if (meta?.notes.length) c.notes = meta.notes;
    for (const spend of meta?.spent ?? []) {
      orders++;
      (spentAmounts[spend.currency] ??= []).push(spend.amount);
    }
    out.push(c);
  }
  const byCurrency: Record<string, string> = {};
  for (const [currency, amounts] of Object.entries(spentAmounts)) byCurrency[currency] = sumDecimals(amounts);
  return {
    tool: 'energy-rental-kit contract',
    finishedAt: finishedAt.toISOString(),
    target,
    summary: {
      passed: out.filter((c) => c.verdict === 'passed').length,
      failed: out.filter((c) => c.verdict === 'failed').length,
      skipped: out.filter((c) => c.verdict === 'skipped').length,
    },
    spent: { orders, byCurrency },
    facts: [...new Set(out.flatMap((c) => c.facts ?? []))].sort(),
    ...(polite
      ? {
          politeness: {
            ...(options.maxRps === undefined ? {} : { maxRps: options.maxRps }),
            waitedMs: Math.round(polite.waitedMs),
            waits: Object.fromEntries(
              Object.entries(polite.waits).map(([reason, t]) => [
                reason,
                { count: t.count, ms: Math.round(t.ms) },
              ]),
            ) as PolitenessReport['waits'],
            retries: polite.retries,
            gaveUp: polite.gaveUp,
          },
        }
      : {}),
    cases: out,
  };
}

function addWaits(total: PoliteWaits, add: PoliteWaits): PoliteWaits {
  for (const [reason, tally] of Object.entries(add.waits) as Array<
    [WaitReason, { count: number; ms: number }]
  >) {
    total.waits[reason].count += tally.count;
    total.waits[reason].ms += tally.ms;
  }
  total.retries += add.retries;
  total.gaveUp += add.gaveUp;
  total.waitedMs += add.waitedMs;
  return total;
}

const REASON_NAMES: Record<WaitReason, string> = {
  pace: 'pace',
  rateLimitHeaders: 'rate-limit headers',
  retryAfter: 'Retry-After',
  backoff: 'backoff',
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
  const reasons = (Object.keys(REASON_NAMES) as WaitReason[]).map(
    (reason) =>
      `${REASON_NAMES[reason]} ${seconds(p.waits[reason].ms)} (${p.waits[reason].count} wait${p.waits[reason].count === 1 ? '' : 's'})`,
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
  ];
  lines.push(
    `  ${report.facts.length} documented facts checked (npx energy-rental-kit contract --facts quotes each)`,
  );
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
