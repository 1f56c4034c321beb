/** What `drift` reports: findings, each on one operation and JSON path, and the report that holds them. */
import { documentedResponse, schemaAt } from './spec-schema.ts';

/** Every kind of finding, in report order. */
const KIND_ORDER = [
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
] as const;
export type FindingKind = (typeof KIND_ORDER)[number];

export interface Finding {
  severity: 'breaking' | 'non-breaking';
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
  message: string;
  /** The setting `calibrate` learns that would make the simulator match NEW here. */
  calibration?: string;
  /** With `--usage`: the behaviour ids the tests exercised that this finding is on. */
  exercised?: string[];
}

/**
 * A finding at a place, with what OLD and NEW have in words.
 * @example
 *   finding('breaking', 'field-removed', { operation: 'getPrice', path: '/data/sun' }, 'string', 'absent', '…');
 */
export function finding(
  severity: Finding['severity'],
  kind: FindingKind,
  at: Pick<Finding, 'operation' | 'response' | 'path'>,
  old: string | undefined,
  now: string | undefined,
  message: string,
): Finding {
  return { severity, kind, ...at, old, new: now, message };
}

/** What a hint rule reads of a finding. */
export type HintedFinding = Pick<Finding, 'kind' | 'operation' | 'path' | 'response'> &
  Partial<Pick<Finding, 'old' | 'new'>>;

const isRoute = (operation: string): boolean => /^[A-Z]+ \//.test(operation);
const isSuccess = (response: string | undefined): boolean =>
  /HTTP 2(\d\d|xx), code [01]$/.test(response ?? '');
const isRejection = (f: HintedFinding): boolean => f.response !== undefined && !isSuccess(f.response);
/** Whether the document declares the path in the operation's success answer. */
const documented = (f: HintedFinding): boolean => {
  const root = documentedResponse(f.operation, 200)?.schema;
  return root !== undefined && schemaAt(root, f.path) !== undefined;
};

/** Each class of choice calibration learns, its setting and the findings it fixes; the first match wins. */
export const CALIBRATION_HINTS: ReadonlyArray<{
  class: string;
  setting: string;
  fixes: (f: HintedFinding) => boolean;
}> = [
  {
    class: 'unit of the envelope time',
    setting: 'envelopeTimeUnit',
    fixes: (f) => f.kind === 'format-changed' && f.path === '/time',
  },
  {
    class: 'unit of createdAt',
    setting: 'createdAtUnit',
    fixes: (f) => f.kind === 'format-changed' && f.path === '/data/createdAt',
  },
  {
    class: 'decimals of decimal strings',
    setting: 'decimals',
    fixes: (f) => f.kind === 'format-changed' && /decimal/.test(`${f.old ?? ''} ${f.new ?? ''}`),
  },
  {
    class: 'currency paid when TRX is short',
    setting: 'whenTrxShort',
    fixes: (f) => f.path === '/data/currency' && !isRejection(f),
  },
  {
    class: 'account success code',
    setting: 'accountSuccessCode',
    fixes: (f) =>
      f.operation === 'getAccount' && f.kind === 'code-changed' && /HTTP 2/.test(f.response ?? ''),
  },
  {
    // A txId where the service sent none (or none where it sent one): its orders fail, the simulator's complete.
    class: 'share of orders that fail',
    setting: 'failureRate',
    fixes: (f) => f.operation === 'getOrderHistory' && f.path === '/data/txId' && f.kind === 'format-changed',
  },
  {
    class: 'statuses shown',
    setting: 'hiddenStatuses and delaysMs',
    fixes: (f) => f.kind === 'new-status-path',
  },
  { class: 'lifecycle timing', setting: 'delaysMs', fixes: (f) => f.kind === 'timing-shift' },
  {
    class: 'identifier history prefers',
    setting: 'historyPrefers',
    fixes: (f) =>
      f.operation === 'getOrderHistory' &&
      f.kind === 'response-changed' &&
      /code 0/.test(`${f.old} ${f.new}`),
  },
  {
    class: 'quantities refused',
    setting: 'maxRentalCount and priceMinimum',
    fixes: (f) =>
      (f.operation === 'getPrice' || f.operation === 'createOrder') &&
      f.kind === 'response-changed' &&
      /code 0\)/.test(`${f.old} ${f.new}`),
  },
  {
    class: 'unknown-path and wrong-method answers',
    setting: 'unknownPath and errors.notFound (errors.methodNotAllowed for a wrong method)',
    fixes: (f) => isRoute(f.operation),
  },
  {
    class: 'fields the document does not list',
    setting: 'extraFields',
    fixes: (f) =>
      (f.kind === 'field-removed' || f.kind === 'field-added') && !isRejection(f) && !documented(f),
  },
  {
    class: 'rejections: status, code, message, content type and body',
    setting: 'errors (the error catalogue)',
    fixes: (f) =>
      f.kind === 'code-changed' ||
      f.kind === 'response-changed' ||
      (f.kind === 'message-changed' && !/code 0/.test(f.response ?? '')) ||
      (isRejection(f) && ['field-added', 'field-removed', 'type-changed', 'format-changed'].includes(f.kind)),
  },
];

/**
 * The setting calibration can fix a finding with; undefined for a change of the service's
 * own documented shapes, which the simulator leaves no choice in.
 * @example
 *   calibrationSetting({ kind: 'format-changed', operation: 'getOrderHistory', path: '/data/createdAt', … }); // 'createdAtUnit'
 */
export function calibrationSetting(finding: HintedFinding): string | undefined {
  return CALIBRATION_HINTS.find((hint) => hint.fixes(finding))?.setting;
}

/** One side of a comparison: a recording file, or 'spec/openapi.yaml'. */
export interface DriftSide {
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
  /** With `--usage`: the coverage file, and how many findings are on exercised behaviour. */
  usage?: { source: string; exercisedFindings: number };
  findings: Finding[];
}

/**
 * A report of findings, in report order: by operation, breaking first, then by kind and path.
 * @example
 *   buildReport('spec', { source: 'spec/openapi.yaml' }, { source: 'new.json' }, []).summary.breaking; // 0
 */
export function buildReport(
  mode: DriftReport['mode'],
  old: DriftSide,
  next: DriftSide,
  findings: Finding[],
  extra: { timingThresholdSeconds?: number; notes?: string[] } = {},
): DriftReport {
  const byOrder = (a: Finding, b: Finding): number =>
    a.operation.localeCompare(b.operation) ||
    Number(b.severity === 'breaking') - Number(a.severity === 'breaking') ||
    KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) ||
    a.path.localeCompare(b.path);
  // Between two recordings, say which findings calibration can fix; against the document it cannot.
  const sorted = [...findings].sort(byOrder).map((f) => {
    const setting = mode === 'recordings' ? calibrationSetting(f) : undefined;
    return setting ? { ...f, calibration: setting } : f;
  });
  return {
    format: DRIFT_FORMAT,
    mode,
    old,
    new: next,
    timingThresholdSeconds: extra.timingThresholdSeconds,
    notes: extra.notes ?? [],
    summary: {
      breaking: sorted.filter((f) => f.severity === 'breaking').length,
      nonBreaking: sorted.filter((f) => f.severity === 'non-breaking').length,
    },
    findings: sorted,
  };
}
