/** The markdown form of a drift report: a verdict line, then one table per operation. */
import type { DriftReport, DriftSide, Finding } from './finding.ts';

const cell = (text: string | undefined): string => (text ?? '').replace(/\|/g, '\\|').replace(/\n/g, ' ');

function side(label: string, s: DriftSide): string {
  const details = [
    s.target ? `recorded from ${s.target}` : undefined,
    s.recordedAt ? `at ${s.recordedAt}` : undefined,
    s.interactions === undefined ? undefined : `${s.interactions} interactions`,
  ]
    .filter(Boolean)
    .join(', ');
  return `- ${label}: \`${s.source}\`${details ? ` (${details})` : ''}`;
}

/** Renders a report: `renderMarkdown(report); // '# Upstream drift

…'`. */
export function renderMarkdown(report: DriftReport): string {
  const lines = [
    `# Upstream drift${report.mode === 'spec' ? ' from spec/openapi.yaml' : ''}`,
    '',
    side(report.mode === 'spec' ? 'document' : 'OLD', report.old),
    side(report.mode === 'spec' ? 'recording' : 'NEW', report.new),
    '',
  ];
  const { breaking, nonBreaking } = report.summary;
  if (breaking + nonBreaking === 0) {
    lines.push(
      report.mode === 'spec'
        ? '**Verdict: no drift.** Every recorded response fits the document.'
        : '**Verdict: no drift.** The same shapes, formats, codes, messages and status paths, and timing within the threshold.',
    );
  } else {
    lines.push(
      `**Verdict: ${breaking > 0 ? 'breaking drift' : 'non-breaking drift only'}.** ${breaking} breaking, ${nonBreaking} non-breaking finding${breaking + nonBreaking === 1 ? '' : 's'}.`,
    );
    if (report.usage)
      lines.push(
        '',
        `**${report.usage.exercisedFindings} finding${report.usage.exercisedFindings === 1 ? ' is' : 's are'} on behaviour your tests exercised** (usage: \`${report.usage.source}\`); they come first, marked ◆.`,
      );
    const byOperation = new Map<string, Finding[]>();
    for (const finding of report.findings)
      byOperation.set(finding.operation, [...(byOperation.get(finding.operation) ?? []), finding]);
    for (const [operation, findings] of byOperation) {
      lines.push(
        '',
        `## ${operation}`,
        '',
        `| | kind | response | path | ${report.mode === 'spec' ? 'document' : 'old'} | ${report.mode === 'spec' ? 'recorded' : 'new'} |`,
        '|---|---|---|---|---|---|',
      );
      for (const f of findings) {
        lines.push(
          `| ${f.exercised ? '◆ ' : ''}${f.severity === 'breaking' ? '**breaking**' : 'non-breaking'} | ${f.kind} | ${cell(f.response)} | ${f.path ? `\`${cell(f.path)}\`` : f.response ? '(body)' : '—'} | ${cell(f.old)} | ${cell(f.new)} |`,
        );
      }
      lines.push('');
      for (const f of findings) {
        lines.push(`- ${f.message}`);
        if (f.exercised)
          lines.push(
            `  - on behaviour your tests exercised: ${f.exercised.map((id) => `\`${id}\``).join(', ')}.`,
          );
        if (f.calibration)
          lines.push(
            `  - calibration can fix this: setting \`${f.calibration}\` ('npx energy-rental-kit calibrate NEW' learns it).`,
          );
      }
    }
  }
  if (report.timingThresholdSeconds !== undefined)
    lines.push('', `Timing threshold: ${report.timingThresholdSeconds} s.`);
  for (const note of report.notes) lines.push('', `Note: ${note}`);
  return `${lines.join('\n')}\n`;
}
