/**
 * Calibration: the simulator's choices learnt from a recording of the real service, each with
 * its evidence; what the recording never showed stays the default. Rejections are classified
 * by what was sent, so live traffic (`serve --upstream --record`) calibrates too.
 */
import type { components } from '../src/generated/control.ts';
import {
  API_OPERATION_SPECS,
  PERIODS,
  REJECTION_KINDS,
  type ApiOperationId,
} from '../src/generated/lists.ts';
import type { Interaction, Recording } from '../recording/recording.ts';
import { extraFieldsOf, learnExtraFields } from './calibrate-extra-fields.ts';
import {
  learnDecimals,
  learnEnvelopeTimeUnit,
  learnHiddenStatuses,
  learnHistoryPrefers,
  learnt,
  learnWhenTrxShort,
  rejectionAnswer,
  type Learning,
  type Unreproduced,
} from './calibrate-answers.ts';
import { documentedResponse, valueAt } from './spec-schema.ts';
import { apiPath, bodyOf, evidence, isSuccess, param, sentTo, type Evidence } from './recorded-exchange.ts';

export type { Unreproduced } from './calibrate-answers.ts';

export type { Evidence } from './recorded-exchange.ts';

type Control = components['schemas'];
type Kind = (typeof REJECTION_KINDS)[number];
type Period = (typeof PERIODS)[number];
type ApiOperationSpec = (typeof API_OPERATION_SPECS)[ApiOperationId];

/** One setting: its value and how it was learnt (or that it was not). */
export interface CalibratedSetting {
  /** The setting's path in a scenario's `settings`, e.g. 'errors.apiKeyMissing' or 'prices.1h'. */
  setting: string;
  value: unknown;
  /**
   * Undefined when the recording never showed it: the default stays. With an undefined
   * value, what the recording showed and the default answers alike.
   */
  evidence?: Evidence;
}

export interface Calibration {
  /** The `settings` of a scenario (SettingsPatch of spec/control.yaml). */
  settings: Control['SettingsPatch'];
  /** Every calibratable setting, observed or left at the default. */
  table: CalibratedSetting[];
  /** What the recording shows that the calibrated simulator still answers otherwise, and why. */
  unreproduced: Unreproduced[];
}

/** The API's operations by path (spec/openapi.yaml), to classify a request by what it was sent to. */
const OPERATIONS_AT = new Map<string, ApiOperationSpec[]>();
for (const op of Object.values(API_OPERATION_SPECS))
  OPERATIONS_AT.set(op.path, [...(OPERATIONS_AT.get(op.path) ?? []), op]);

/**
 * The kind of rejection a request was, from what it sent; undefined for a success or a
 * request no kind describes (a 5xx, a fault).
 *
 * @example
 *   rejectionKind(interactionWithoutKey); // 'apiKeyMissing'
 */
export function rejectionKind(
  i: Interaction,
  foreignAliases: ReadonlySet<string>,
  duplicates: ReadonlySet<Interaction> = new Set(),
  largestAccepted: number = Infinity,
): Kind | undefined {
  if (!i.response || isSuccess(i) || i.response.status >= 500 || i.response.status === 429) return undefined;
  const path = apiPath(i.request.path);
  const operations = OPERATIONS_AT.get(path);
  if (operations === undefined)
    return path.startsWith('/v1/') || path.startsWith('/api/') ? 'notFound' : undefined;
  const op = operations.find((o) => o.method === i.request.method);
  if (op === undefined) return 'methodNotAllowed';
  if (i.request.apiKeyAlias === undefined) return 'apiKeyMissing';
  if (foreignAliases.has(i.request.apiKeyAlias)) return 'apiKeyUnknown';
  const given = (name: string): boolean => param(i, name) !== undefined;
  if (!op.required.every(given) || op.requiredOneOf.some((group) => !group.some(given)))
    return 'parameterMissing';
  if (op.operationId === 'getOrderHistory') return 'orderNotFound';
  // A quantity below the order's minimum, or above every one accepted, on a price or an order.
  const count = Number(param(i, 'rentalCount'));
  if (Number.isInteger(count) && count < ORDER_MINIMUM && op.operationId !== 'getAccount')
    return 'belowMinimum';
  if (Number.isInteger(count) && count > largestAccepted) return 'aboveMaximum';
  if (op.operationId !== 'createOrder') return 'parameterInvalid';
  // The same outOrderNo sent before, and accepted then: a duplicate.
  const code = bodyOf(i)?.code;
  return code !== undefined && duplicates.has(i)
    ? 'duplicateOutOrderNo'
    : typeof code === 'number' && i.response.status === 402
      ? 'insufficientBalance'
      : 'parameterInvalid';
}

const ORDER_MINIMUM = API_OPERATION_SPECS.createOrder.parameters.rentalCount.minimum;

/** The envelope of a rejection as the document declares it: what its extra fields are told from. */
const REJECTION_ENVELOPE = documentedResponse('getAccount', 401)!.schema;

/** The largest rentalCount a price or an order was accepted with; Infinity when none was (no maximum shows). */
function largestAccepted(interactions: Interaction[]): number {
  const accepted = interactions
    .filter((i) => (sentTo(i, 'getPrice') || sentTo(i, 'createOrder')) && isSuccess(i))
    .map((i) => Number(param(i, 'rentalCount')))
    .filter(Number.isInteger);
  return accepted.length > 0 ? Math.max(...accepted) : Infinity;
}

/**
 * The quantities refused where upstream is silent: a maximum (the largest quantity accepted,
 * when a larger one was refused as aboveMaximum) and the minimum applied to the price.
 */
function learnQuantities(kinds: Map<Interaction, Kind | undefined>, largest: number): Learning {
  const settings: Control['SettingsPatch'] = {};
  const table: CalibratedSetting[] = [];
  const above = [...kinds].find(([, kind]) => kind === 'aboveMaximum')?.[0];
  if (above) settings.maxRentalCount = largest;
  table.push({
    setting: 'maxRentalCount',
    value: settings.maxRentalCount,
    ...(above
      ? {
          evidence: evidence(
            above,
            `rentalCount ${param(above, 'rentalCount')} refused, ${largest} accepted`,
          ),
        }
      : {}),
  });
  const below = [...kinds].find(([i, kind]) => kind === 'belowMinimum' && sentTo(i, 'getPrice'))?.[0];
  if (below) settings.priceMinimum = true;
  table.push({
    setting: 'priceMinimum',
    value: settings.priceMinimum,
    ...(below
      ? { evidence: evidence(below, `a price of rentalCount ${param(below, 'rentalCount')} refused`) }
      : {}),
  });
  return { settings, table, unreproduced: [] };
}

/** The order creations that repeat an outOrderNo the same key had accepted, and were refused. */
function refusedDuplicates(interactions: Interaction[]): Set<Interaction> {
  const duplicates = new Set<Interaction>();
  const accepted = new Set<string>();
  for (const i of interactions) {
    if (!sentTo(i, 'createOrder')) continue;
    const no = param(i, 'outOrderNo');
    if (no === undefined) continue;
    const key = `${i.request.apiKeyAlias}\u0000${no}`;
    if (accepted.has(key) && !isSuccess(i)) duplicates.add(i);
    if (isSuccess(i)) accepted.add(key);
  }
  return duplicates;
}

/**
 * Learns every calibratable setting a recording shows.
 *
 * @example
 *   const { settings, table } = calibrate(loadRecording('recordings/upstream.json'));
 */
export function calibrate(recording: Recording): Calibration {
  const interactions = recording.interactions.filter((i) => i.response);
  const duplicates = refusedDuplicates(interactions);
  const foreign = new Set(recording.apiKeys.filter((k) => k.role === 'foreign').map((k) => k.alias));
  const largest = largestAccepted(interactions);
  const kinds = new Map(interactions.map((i) => [i, rejectionKind(i, foreign, duplicates, largest)]));
  const settings: Control['SettingsPatch'] = {};
  const table: CalibratedSetting[] = [];

  const unreproduced: Unreproduced[] = [];

  // Fields rejections add to the envelope: one source per path, read over every rejection
  // (a kind seen once cannot show that its traceId varies; the kinds together can).
  const enveloped = interactions.filter((i) => {
    const body = bodyOf(i);
    return kinds.get(i) !== undefined && typeof body?.code === 'number' && typeof body.msg === 'string';
  });
  const rejectionExtras = extraFieldsOf(enveloped, REJECTION_ENVELOPE, {
    operation: 'rejections',
    setting: 'errors.*.extraFields',
  });
  table.push(...rejectionExtras.table);
  unreproduced.push(...rejectionExtras.unreproduced);

  // The error catalogue: each kind's whole answer, and what an unknown path answers.
  const errors: Control['ErrorCatalogue'] = {};
  for (const kind of REJECTION_KINDS) {
    const seen = interactions.filter((i) => kinds.get(i) === kind);
    const first = seen[0];
    if (!first) {
      table.push({ setting: `errors.${kind}`, value: undefined });
      continue;
    }
    const answered = rejectionAnswer(seen);
    errors[kind] = answered.answer;
    // The fields every answer of the kind carries, their sources read over every rejection's.
    const fields = rejectionExtras.fields.filter((f) =>
      seen.every((i) => valueAt(i.response?.body, f.path) !== undefined),
    );
    if (answered.answer.body === undefined && fields.length > 0) answered.answer.extraFields = fields;
    table.push({
      setting: `errors.${kind}`,
      value: answered.answer,
      evidence: evidence(first, answered.observed),
    });
    for (const note of answered.unreproduced)
      unreproduced.push({
        ...note,
        what: `errors.${kind}: ${note.what}`,
        evidence: evidence(first, answered.observed),
      });
    // A web server's page: the simulator's own HTML 404 where the catalogue gives no body of its own.
    if (kind === 'notFound' && /html/i.test(first.response!.headers['content-type'] ?? '')) {
      settings.unknownPath = 'html';
      table.push({ setting: 'unknownPath', value: 'html', evidence: evidence(first, answered.observed) });
    }
  }
  if (Object.keys(errors).length > 0) settings.errors = errors;
  if (settings.unknownPath === undefined) table.push({ setting: 'unknownPath', value: undefined });

  // How answers look: the envelope's time, decimals, undocumented fields, statuses, and two choices.
  const take = (learning: Learning): void => {
    Object.assign(settings, learning.settings);
    table.push(...learning.table);
    unreproduced.push(...learning.unreproduced);
  };
  take(learnEnvelopeTimeUnit(interactions));
  take(learnDecimals(interactions));
  take(learnExtraFields(interactions));
  take(learnHiddenStatuses(interactions));
  take(learnHistoryPrefers(interactions));
  take(learnWhenTrxShort(interactions));
  take(learnQuantities(kinds, largest));

  // The account's success code.
  const account = interactions.find((i) => sentTo(i, 'getAccount') && isSuccess(i));
  const code = account && (bodyOf(account)!.code as 0 | 1);
  take(learnt('accountSuccessCode', code, account && evidence(account, `code ${code}`)));

  // The unit of createdAt: seconds are below 10^11 for any date before 5138.
  const history = interactions.find(
    (i) => sentTo(i, 'getOrderHistory') && isSuccess(i) && typeof bodyOf(i)?.data?.createdAt === 'number',
  );
  const createdAt = history && (bodyOf(history)!.data!.createdAt as number);
  let unit: 's' | 'ms' | undefined;
  if (createdAt !== undefined) unit = createdAt < 1e11 ? 's' : 'ms';
  take(learnt('createdAtUnit', unit, history && evidence(history, `createdAt ${createdAt}`)));

  // Prices: the sun per unit each period was quoted at.
  const prices: Partial<Record<Period, string>> = {};
  for (const period of PERIODS) {
    const quote = interactions.find(
      (i) => sentTo(i, 'getPrice') && isSuccess(i) && bodyOf(i)?.data?.period === period,
    );
    const sun = quote && bodyOf(quote)!.data!.sun;
    if (quote && typeof sun === 'string' && /^\d+$/.test(sun)) {
      prices[period] = sun;
      table.push({ setting: `prices.${period}`, value: sun, evidence: evidence(quote, `sun ${sun}`) });
    } else table.push({ setting: `prices.${period}`, value: undefined });
  }
  if (Object.keys(prices).length > 0) settings.prices = prices;

  // How often orders fail: each order's last status seen. A simulator that ran the suite's
  // rules forced its outcomes, so those say nothing of a rate.
  const outcomes = new Map<string, boolean>();
  let lastOutcome: Interaction | undefined;
  for (const i of interactions) {
    if (!sentTo(i, 'getOrderHistory') || !isSuccess(i)) continue;
    const data = bodyOf(i)?.data;
    const status = data?.status;
    if (typeof data?.orderId !== 'string' || typeof status !== 'string') continue;
    if (status === 'COMPLETED' || status === 'FAILED' || status === 'REFUNDED') {
      outcomes.set(data.orderId, status !== 'COMPLETED');
      lastOutcome = i;
    }
  }
  const forced = recording.target.capabilities.includes('rules');
  const failed = [...outcomes.values()].filter(Boolean).length;
  // Two decimals: a rate is all a handful of orders can show.
  const rate = outcomes.size > 0 && !forced ? Math.round((100 * failed) / outcomes.size) / 100 : undefined;
  const proof = lastOutcome && evidence(lastOutcome, `${failed} of ${outcomes.size} orders failed`);
  take(learnt('failureRate', rate, rate === undefined ? undefined : proof));

  // A second order with a known outOrderNo: refused, or the first order again.
  const duplicate = interactions.find((i) => duplicates.has(i));
  const answer = duplicate && `HTTP ${duplicate.response!.status}, code ${String(bodyOf(duplicate)?.code)}`;
  take(learnt('duplicateOutOrderNo', duplicate && 'reject', duplicate && evidence(duplicate, answer!)));

  // Lifecycle delays: the recorded medians, in ms (upper bounds, to the polling interval).
  const medians = recording.timing.summary.medianSecondsTo;
  const delays: Control['LifecycleDelays'] = {};
  const ms = (s: number): number => Math.max(0, Math.round(s * 1000));
  if (medians.PROCESSING !== undefined) delays.processing = ms(medians.PROCESSING);
  const outcome = medians.COMPLETED ?? medians.FAILED;
  if (outcome !== undefined) delays.outcome = ms(outcome);
  if (medians.REFUNDED !== undefined && medians.FAILED !== undefined)
    delays.refund = ms(medians.REFUNDED - medians.FAILED);
  // The medians are upper bounds, to a whole second where the service's times have whole
  // seconds: an order done within its first poll can still measure 1 s across a second's
  // edge. A status no poll ever caught lasts less than a poll: its delay is 0, or the
  // calibrated simulator would show a status the service never did.
  const seen = new Set(
    interactions
      .filter((i) => sentTo(i, 'getOrderHistory') && isSuccess(i))
      .map((i) => bodyOf(i)?.data?.status),
  );
  if (outcome !== undefined && !seen.has('PENDING') && !seen.has('PROCESSING')) {
    delays.processing = 0;
    delays.outcome = 0;
  }
  // Likewise PENDING alone: an order first seen PROCESSING (a paced run's first poll comes
  // late) was PROCESSING at once, as far as a client can tell.
  if (outcome !== undefined && !seen.has('PENDING') && seen.has('PROCESSING')) delays.processing = 0;
  // A status the polls never caught did not last: it came with the outcome.
  if (delays.processing === undefined && delays.outcome !== undefined) delays.processing = delays.outcome;
  // The recorded times include any activation of a new address, so none is added on top.
  if (delays.outcome !== undefined) {
    const proof = { operation: 'getOrderHistory', case: 'the recorded outcome median' };
    take(learnt('activationDelayMs', 0, { ...proof, observed: 'includes any activation' }));
  }
  for (const step of ['processing', 'outcome', 'refund'] as const) {
    const value = delays[step];
    table.push(
      value === undefined
        ? { setting: `delaysMs.${step}`, value: undefined }
        : {
            setting: `delaysMs.${step}`,
            value,
            evidence: {
              operation: 'getOrderHistory',
              case: `the median of ${recording.timing.summary.orders} orders`,
              observed: `${value} ms`,
            },
          },
    );
  }
  if (Object.keys(delays).length > 0) settings.delaysMs = delays;
  return { settings, table, unreproduced };
}
