/**
 * The contract report: the target, its capabilities, every interaction with the key
 * redacted, and each case's verdict. Built from the reporter's view of the run.
 */
import type { ContractMeta, RecordedInteraction } from './contract-test.ts';
import type { TargetInfo } from './contract-target.ts';

export interface ContractCase {
  name: string;
  file: string;
  verdict: 'passed' | 'failed' | 'skipped';
  reason?: string;
  errors?: string[];
  durationMs?: number;
  interactions: RecordedInteraction[];
}

export interface ContractReport {
  tool: 'energy-rental-kit contract';
  finishedAt: string;
  target: TargetInfo | undefined;
  summary: { passed: number; failed: number; skipped: number };
  spent: { orders: number; byCurrency: Record<string, string> };
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
): ContractReport {
  const spentAmounts: Record<string, string[]> = {};
  let orders = 0;
  let target: TargetInfo | undefined;
  const out: ContractCase[] = [];
  for (const { meta, ...c } of cases) {
    target ??= meta?.target;
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
    cases: out,
  };
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
  for (const c of report.cases.filter((x) => x.verdict === 'failed'))
    lines.push(`  FAILED ${c.name}: ${(c.errors?.[0] ?? '').split('\n')[0]}`);
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
  lines.push(`  report: ${reportPath}`);
  return `${lines.join('\n')}\n`;
}
