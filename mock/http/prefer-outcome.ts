/**
 * The kit's `Prefer: outcome=…` header (after Prism's `Prefer: code=…`): one request asks
 * for its own outcome. Only the simulator decides outcomes: a proxy or a replay refuses it.
 */
import { PREFER_OUTCOMES, REJECTION_KINDS, type Mode } from '../../src/generated/lists.ts';
import { SimulatorError } from '../engine/index.ts';
import type { ErrorCatalogueKind } from '../engine/settings.ts';

export type PreferOutcome = (typeof PREFER_OUTCOMES)[number];

const ACCEPTED: ReadonlySet<string> = new Set(PREFER_OUTCOMES);
const REJECTIONS: ReadonlySet<string> = new Set(REJECTION_KINDS);
/** The values a rule would force on an order (RuleOutcome), as opposed to a rejection. */
const ORDER_OUTCOMES = PREFER_OUTCOMES.filter((value) => !REJECTIONS.has(value));

/**
 * The `outcome` preference of a Prefer header, undefined when none; a 400 for a value not
 * listed, an order outcome on another operation, or outside simulator mode.
 *
 * @example
 *   preferredOutcome('outcome=FAILED', 'simulator', 'createOrder');        // 'FAILED'
 *   preferredOutcome('return=minimal, outcome=insufficientBalance', 'simulator', 'createOrder');
 *   // 'insufficientBalance'
 *   preferredOutcome('outcome=FAILED', 'proxy', 'createOrder');           // throws (400)
 */
export function preferredOutcome(
  header: string,
  mode: Mode,
  operation: string | undefined,
): PreferOutcome | undefined {
  const value = outcomeOf(header);
  if (value === undefined) return undefined;
  // A value is echoed in the message: a long one is cut, as anything sent may be.
  const shown = value.length > 64 ? `${value.slice(0, 64)}…` : value;
  if (mode !== 'simulator')
    throw new SimulatorError(
      'parameterInvalid',
      `Header 'Prefer: outcome=${shown}' is refused in ${mode} mode: only the simulator decides outcomes, and the header is never forwarded. Send the request without it.`,
    );
  if (!ACCEPTED.has(value))
    throw new SimulatorError(
      'parameterInvalid',
      `Header 'Prefer' asks for outcome '${shown}', which is none of: ${PREFER_OUTCOMES.join(', ')}.`,
    );
  if (!REJECTIONS.has(value) && operation !== 'createOrder')
    throw new SimulatorError(
      'parameterInvalid',
      `Header 'Prefer: outcome=${value}' applies to createOrder only (${ORDER_OUTCOMES.join(' or ')} is an order's outcome); ${operation ?? 'this request'} takes a kind of rejection: ${REJECTION_KINDS.join(', ')}.`,
    );
  return value as PreferOutcome;
}

/**
 * The rejection a request asked for, as the catalogue words it; the message names the header.
 *
 * @example
 *   throw askedRejection('insufficientBalance'); // 402, code 30001 unless the catalogue says otherwise
 */
export function askedRejection(kind: ErrorCatalogueKind): SimulatorError {
  const message = `Answered as asked by 'Prefer: outcome=${kind}'; nothing changed.`;
  if (kind === 'belowMinimum' || kind === 'aboveMaximum') {
    const error = new SimulatorError('parameterInvalid', message);
    error.reason = kind;
    return error;
  }
  return new SimulatorError(kind, message);
}

/** Whether an accepted outcome is a kind of rejection rather than an order's outcome. */
export function isRejection(outcome: PreferOutcome): outcome is PreferOutcome & ErrorCatalogueKind {
  return REJECTIONS.has(outcome);
}

/** The value of the `outcome` preference in a Prefer header, unquoted; undefined when none. */
function outcomeOf(header: string): string | undefined {
  for (const preference of header.split(',')) {
    const token = preference.split(';', 1)[0]!.trim();
    const eq = token.indexOf('=');
    const name = (eq === -1 ? token : token.slice(0, eq)).trim().toLowerCase();
    if (name !== 'outcome') continue;
    const value = eq === -1 ? '' : token.slice(eq + 1).trim();
    return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
  }
  return undefined;
}
