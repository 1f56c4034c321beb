/**
 * What `drift` reports: findings, each one operation and JSON path, classified
 * breaking or non-breaking, and the report that holds them (its JSON output).
 */

export type FindingKind =
  | 'field-added'
  | 'field-removed'
  | 'type-changed'
  | 'format-changed'
  | 'unknown-enum-value'
  | 'message-changed'
  | 'code-changed'
  | 'response-changed'
  | 'new-status-path'
  | 'timing-shift'
  | 'operation-unobserved'
  | 'spec-violation';

export type Severity = 'breaking' | 'non-breaking';

export interface Finding {
  severity: Severity;
  kind: FindingKind;
  /** operationId (or 'METHOD /path' of an unknown route). */
  operation: string;
  /** Which responses: 'HTTP 2xx, code 0'; absent for findings about the whole operation. */
  response?: string;
  /** JSON path in the response body, e.g. '/data/createdAt'; '' for the body itself or none. */
  path: string;
  /** What OLD (or the document) has, and what NEW has, in words. */
  old?: string;
  new?: string;
  /** One sentence a reader can act on. */
  message: string;
  /** The simulator setting `calibrate` learns that would make the simulator match NEW here, when there is one. */
  calibration?: string;
  /** With `--usage`: the behaviour ids the tests exercised that this finding is on (it is then listed first). */
  exercised?: string[];
}

/**
 * The setting calibration can fix a finding with, or undefined when it cannot (a field
 * added or removed, a type or enum change: those are the service's shapes, not choices
 * the simulator leaves open).
 *
 * @example
 *   calibrationSetting({ kind: 'format-changed', operation: 'getOrderHistory', path: '/data/createdAt', … }); // 'createdAtUnit'
 */
export function calibrationSetting(
  finding: Pick<Finding, 'kind' | 'operation' | 'path' | 'response'>,
): string | undefined {
  if (finding.kind === 'format-changed' && finding.path === '/data/createdAt') return 'createdAtUnit';
  if (finding.kind === 'timing-shift' || finding.kind === 'new-status-path') return 'delaysMs';
  if (
    finding.operation === 'getAccount' &&
    finding.kind === 'code-changed' &&
    /HTTP 2/.test(finding.response ?? '')
  )
    return 'accountSuccessCode';
  if (
    /^[A-Z]+ \//.test(finding.operation) &&
    (finding.kind === 'response-changed' || finding.kind === 'code-changed')
  )
    return 'unknownPath and errors.notFound';
  if (
    finding.kind === 'code-changed' ||
    finding.kind === 'response-changed' ||
    (finding.kind === 'message-changed' && !/code 0/.test(finding.response ?? ''))
  )
    return 'errors (the error catalogue)';
  return undefined;
}

/** One side of a comparison, as the report names it. */
export interface DriftSide {
  /** A recording file, or 'spec/openapi.yaml'. */
  source: string;
  recordedAt?: string;
  runId?: string;
  /** 'the in-process simulator', a URL, … */
  target?: string;
  interactions?: number;
}

export const DRIFT_FORMAT = 'energy-rental-kit/drift@1';

export interface DriftReport {
  format: typeof DRIFT_FORMAT;
  /** 'recordings': OLD and NEW are recordings; 'spec': NEW is compared with the document. */
  mode: 'recordings' | 'spec';
  old: DriftSide;
  new: DriftSide;
  timingThresholdSeconds?: number;
  /** What this comparison cannot see, e.g. that the document has no timing. */
  notes: string[];
  summary: { breaking: number; nonBreaking: number };
  /** With `--usage`: the usage profile held against, and how many findings are on behaviour the tests exercised. */
  usage?: { source: string; exercisedFindings: number };
  findings: Finding[];
}

const KIND_ORDER: FindingKind[] = [
  'field-removed',
  'type-changed',
  'format-changed',
  'unknown-enum-value',
  'code-changed',
  'response-changed',
  'new-status-path',
  'spec-violation',
  'field-added',
  'message-changed',
  'timing-shift',
  'operation-unobserved',
];

/** Findings in report order: by operation, breaking first, then by kind and path. */
export function sortFindings(findings: Finding[]): Finding[] {
  return [...findings].sort(
    (a, b) =>
      a.operation.localeCompare(b.operation) ||
      (a.severity === b.severity ? 0 : a.severity === 'breaking' ? -1 : 1) ||
      KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) ||
      a.path.localeCompare(b.path),
  );
}

/** Builds a report from findings. */
export function buildReport(
  mode: DriftReport['mode'],
  old: DriftSide,
  next: DriftSide,
  findings: Finding[],
  extra: { timingThresholdSeconds?: number; notes?: string[] } = {},
): DriftReport {
  // Between two recordings, say which findings calibration can fix; against the document it cannot.
  const sorted = sortFindings(findings).map((f) => {
    const setting = mode === 'recordings' ? calibrationSetting(f) : undefined;
    return setting ? { ...f, calibration: setting } : f;
  });
  return {
    format: DRIFT_FORMAT,
    mode,
    old,
    new: next,
    ...(extra.timingThresholdSeconds === undefined
      ? {}
      : { timingThresholdSeconds: extra.timingThresholdSeconds }),
    notes: extra.notes ?? [],
    summary: {
      breaking: sorted.filter((f) => f.severity === 'breaking').length,
      nonBreaking: sorted.filter((f) => f.severity === 'non-breaking').length,
    },
    findings: sorted,
  };
}
