/** Calibration: the simulator's choices learnt from a recording with evidence; the rest stays default. */
import {
  API_OPERATION_SPECS,
  PERIODS,
  REJECTION_KINDS,
  type ApiOperationId,
} from '../src/generated/lists.ts';
import type { Interaction, Recording } from '../recording/recording.ts';
import { extraFieldsOf, learnExtraFields } from './calibrate-extra-fields.ts';
import {
  combine,
  learnDecimals,
  learnEnvelopeTimeUnit,
  learnHiddenStatuses,
  learnHistoryPrefers,
  learnt,
  learnWhenTrxShort,
  rejectionAnswer,
  type Learning,
} from './calibrate-answers.ts';
import { documentedResponse, valueAt } from './spec-schema.ts';
import { apiPath, bodyOf, evidence, isSuccess, param, sentTo } from './recorded-exchange.ts';

type Kind = (typeof REJECTION_KINDS)[number];

/**
 * The kind of rejection a request was, from what it sent (so live traffic calibrates too);
 * undefined for a success, a 5xx or a fault.
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
  const operations = Object.values(API_OPERATION_SPECS).filter((o) => o.path === path);
  if (operations.length === 0)
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

/** Learns every calibratable setting a recording shows: `calibrate(loadRecording(file)).settings`. */
export function calibrate(recording: Recording): Learning {
  const interactions = recording.interactions.filter((i) => i.response);
  // The order creations that repeat an outOrderNo the same key had accepted, and were refused.
  const duplicates = new Set<Interaction>();
  const ordered = new Set<string>();
  for (const i of interactions) {
    const no = param(i, 'outOrderNo');
    if (!sentTo(i, 'createOrder') || no === undefined) continue;
    const key = `${i.request.apiKeyAlias}\u0000${no}`;
    if (ordered.has(key) && !isSuccess(i)) duplicates.add(i);
    if (isSuccess(i)) ordered.add(key);
  }
  const foreign = new Set(recording.apiKeys.filter((k) => k.role === 'foreign').map((k) => k.alias));
  // The largest rentalCount a price or an order was accepted with; Infinity when none was.
  const counts = interactions
    .filter((i) => (sentTo(i, 'getPrice') || sentTo(i, 'createOrder')) && isSuccess(i))
    .map((i) => Number(param(i, 'rentalCount')))
    .filter(Number.isInteger);
  const largest = counts.length > 0 ? Math.max(...counts) : Infinity;
  const kinds = new Map(interactions.map((i) => [i, rejectionKind(i, foreign, duplicates, largest)]));
  const successes = (id: ApiOperationId): Interaction[] =>
    interactions.filter((i) => sentTo(i, id) && isSuccess(i));

  // Fields rejections add to the envelope, read over every rejection: one kind cannot show a traceId varies.
  const enveloped = interactions.filter((i) => {
    const body = bodyOf(i);
    return kinds.get(i) !== undefined && typeof body?.code === 'number' && typeof body.msg === 'string';
  });
  const rejectionExtras = extraFieldsOf(enveloped, REJECTION_ENVELOPE, {
    operation: 'rejections',
    setting: 'errors.*.extraFields',
  });
  const learnings: Learning[] = [{ settings: {}, ...rejectionExtras }];

  // The error catalogue: each kind's whole answer, and what an unknown path answers.
  let html: Learning = learnt('unknownPath');
  for (const kind of REJECTION_KINDS) {
    const seen = interactions.filter((i) => kinds.get(i) === kind);
    const first = seen[0];
    if (!first) {
      learnings.push(learnt(`errors.${kind}`));
      continue;
    }
    const { answer, observed, unreproduced } = rejectionAnswer(seen);
    // The fields every answer of the kind carries, their sources read over every rejection's.
    const fields = rejectionExtras.fields.filter((f) =>
      seen.every((i) => valueAt(i.response?.body, f.path) !== undefined),
    );
    if (answer.body === undefined && fields.length > 0) answer.extraFields = fields;
    const proof = evidence(first, observed);
    const notes = unreproduced.map((note) => ({
      ...note,
      what: `errors.${kind}: ${note.what}`,
      evidence: proof,
    }));
    learnings.push(learnt(`errors.${kind}`, answer, proof, notes));
    // A web server's page: the simulator's own HTML 404 where the catalogue gives no body of its own.
    if (kind === 'notFound' && /html/i.test(first.response!.headers['content-type'] ?? ''))
      html = learnt('unknownPath', 'html', proof);
  }
  learnings.push(html);

  // How answers look: the envelope's time, decimals, undocumented fields, statuses, and two choices.
  learnings.push(
    learnEnvelopeTimeUnit(interactions),
    learnDecimals(interactions),
    learnExtraFields(interactions),
    learnHiddenStatuses(interactions),
    learnHistoryPrefers(interactions),
    learnWhenTrxShort(interactions),
  );
  // The largest quantity accepted when a larger was refused; the minimum when a price below it was refused.
  const above = [...kinds].find(([, kind]) => kind === 'aboveMaximum')?.[0];
  const below = [...kinds].find(([i, kind]) => kind === 'belowMinimum' && sentTo(i, 'getPrice'))?.[0];
  learnings.push(
    learnt(
      'maxRentalCount',
      above && largest,
      above && evidence(above, `rentalCount ${param(above, 'rentalCount')} refused, ${largest} accepted`),
    ),
    learnt(
      'priceMinimum',
      below && true,
      below && evidence(below, `a price of rentalCount ${param(below, 'rentalCount')} refused`),
    ),
  );

  // The account's success code.
  const account = successes('getAccount')[0];
  const code = account && (bodyOf(account)!.code as 0 | 1);
  learnings.push(learnt('accountSuccessCode', code, account && evidence(account, `code ${code}`)));

  // The unit of createdAt: seconds are below 10^11 for any date before 5138.
  const history = successes('getOrderHistory').find((i) => typeof bodyOf(i)?.data?.createdAt === 'number');
  const createdAt = history && (bodyOf(history)!.data!.createdAt as number);
  const unit = createdAt === undefined ? undefined : createdAt < 1e11 ? 's' : 'ms';
  learnings.push(learnt('createdAtUnit', unit, history && evidence(history, `createdAt ${createdAt}`)));

  // Prices: the sun per unit each period was quoted at.
  for (const period of PERIODS) {
    const quote = successes('getPrice').find((i) => bodyOf(i)?.data?.period === period);
    const sun = quote && bodyOf(quote)!.data!.sun;
    const known = typeof sun === 'string' && /^\d+$/.test(sun);
    learnings.push(
      learnt(`prices.${period}`, known ? sun : undefined, known ? evidence(quote!, `sun ${sun}`) : undefined),
    );
  }

  // How often orders fail, by each order's last status; a simulator's forced outcomes tell no rate.
  const outcomes = new Map<string, boolean>();
  let lastOutcome: Interaction | undefined;
  for (const i of successes('getOrderHistory')) {
    const { orderId, status } = bodyOf(i)?.data ?? {};
    if (
      typeof orderId === 'string' &&
      (status === 'COMPLETED' || status === 'FAILED' || status === 'REFUNDED')
    ) {
      outcomes.set(orderId, status !== 'COMPLETED');
      lastOutcome = i;
    }
  }
  const forced = recording.target.capabilities.includes('rules');
  const failed = [...outcomes.values()].filter(Boolean).length;
  // Two decimals: a rate is all a handful of orders can show.
  const rate = outcomes.size > 0 && !forced ? Math.round((100 * failed) / outcomes.size) / 100 : undefined;
  const proof =
    rate === undefined ? undefined : evidence(lastOutcome!, `${failed} of ${outcomes.size} orders failed`);
  learnings.push(learnt('failureRate', rate, proof));

  // A second order with a known outOrderNo: refused, or the first order again.
  const duplicate = interactions.find((i) => duplicates.has(i));
  const answer = duplicate && `HTTP ${duplicate.response!.status}, code ${String(bodyOf(duplicate)?.code)}`;
  learnings.push(
    learnt('duplicateOutOrderNo', duplicate && 'reject', duplicate && evidence(duplicate, answer!)),
  );
  learnings.push(...learnDelays(recording, successes('getOrderHistory')));
  return combine(learnings);
}

/** Lifecycle delays: the recorded medians, in ms (upper bounds, to the polling interval). */
function learnDelays(recording: Recording, history: Interaction[]): Learning[] {
  const { medianSecondsTo: medians, orders } = recording.timing.summary;
  const ms = (s: number): number => Math.max(0, Math.round(s * 1000));
  const end = medians.COMPLETED ?? medians.FAILED;
  // A status no poll caught lasted less than a poll: its delay is 0, or the simulator shows what never was.
  const seen = new Set(history.map((i) => bodyOf(i)?.data?.status));
  let outcome = end === undefined ? undefined : ms(end);
  if (outcome !== undefined && !seen.has('PENDING') && !seen.has('PROCESSING')) outcome = 0;
  // A status the polls never caught did not last: it came with the outcome.
  let processing = medians.PROCESSING === undefined ? outcome : ms(medians.PROCESSING);
  if (outcome !== undefined && !seen.has('PENDING')) processing = 0;
  const { REFUNDED, FAILED } = medians;
  const delays = {
    processing,
    outcome,
    refund: REFUNDED === undefined || FAILED === undefined ? undefined : ms(REFUNDED - FAILED),
  };
  const median = { operation: 'getOrderHistory', case: `the median of ${orders} orders` };
  return [
    // The recorded times include any activation of a new address, so none is added on top.
    ...(outcome === undefined
      ? []
      : [
          learnt('activationDelayMs', 0, {
            ...median,
            case: 'the recorded outcome median',
            observed: 'includes any activation',
          }),
        ]),
    ...(['processing', 'outcome', 'refund'] as const).map((step) => {
      const value = delays[step];
      return learnt(
        `delaysMs.${step}`,
        value,
        value === undefined ? undefined : { ...median, observed: `${value} ms` },
      );
    }),
  ];
}
