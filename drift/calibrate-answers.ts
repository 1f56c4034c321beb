/** How answers look, calibrated; what the simulator cannot answer alike is `unreproduced`, never dropped. */
import type { components } from '../src/generated/control.ts';
import type { ApiOperationId } from '../src/generated/lists.ts';
import { DECIMAL_FIELDS, DEFAULT_DECIMALS } from '../mock/http/api-operations.ts';
import { observeOrders, statusPath, timeUnit } from '../recording/order-observations.ts';
import type { Interaction } from '../recording/recording.ts';
import {
  decimalRange,
  describeDecimals,
  fixedDecimals,
  inferFields,
  messageTemplate,
} from './infer-schema.ts';
import {
  bodyOf,
  evidence,
  isSuccess,
  operationOf,
  param,
  paramsOf,
  sentTo,
  type Evidence,
} from './recorded-exchange.ts';
import { valueAt } from './spec-schema.ts';

type Control = components['schemas'];
type Settings = Control['SettingsPatch'];
type DecimalField = keyof Control['DecimalFormats'];

/** One setting learnt: its path in a scenario's settings, its value and its evidence. */
export interface Learnt {
  /** 'errors.apiKeyMissing', 'prices.1h': a group's key after the first dot. */
  setting: string;
  /** Undefined: the default stays (with evidence: the default answers what was seen alike). */
  value: unknown;
  evidence?: Evidence;
}

/** Something the recording shows that the calibrated simulator does not answer alike, and why. */
export interface Unreproduced {
  what: string;
  why: string;
  evidence?: Evidence;
}

/** What one part of calibration found. */
export interface Learning {
  settings: Settings;
  table: Learnt[];
  unreproduced: Unreproduced[];
}

/**
 * One setting learnt from `proof` ('prices.1h' is the key 1h of prices), or, with no value,
 * left at the default; with what the simulator still answers otherwise.
 * @example
 *   learnt('historyPrefers', 'outOrderNo', evidence(i, 'outOrderNo came back')).settings; // { historyPrefers: 'outOrderNo' }
 */
export function learnt(
  setting: string,
  value?: unknown,
  proof?: Evidence,
  unreproduced: Unreproduced[] = [],
): Learning {
  const dot = setting.indexOf('.');
  const nested =
    dot === -1 ? { [setting]: value } : { [setting.slice(0, dot)]: { [setting.slice(dot + 1)]: value } };
  return {
    settings: (value === undefined ? {} : nested) as Settings,
    table: [{ setting, value, ...(proof ? { evidence: proof } : {}) }],
    unreproduced,
  };
}

/** Learnings as one: settings merged a group at a time, tables and notes in order. */
export function combine(learnings: Learning[]): Learning {
  const settings: Record<string, unknown> = {};
  for (const { settings: some } of learnings)
    for (const [key, value] of Object.entries(some))
      settings[key] = isObject(value) && isObject(settings[key]) ? { ...settings[key], ...value } : value;
  return {
    settings: settings as Settings,
    table: learnings.flatMap((l) => l.table),
    unreproduced: learnings.flatMap((l) => l.unreproduced),
  };
}

export const json = (value: unknown): string => JSON.stringify(value);
export const short = (value: unknown): string => {
  const text = json(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
};

/** The envelope's `time` unit, from the first answer with one: `learnEnvelopeTimeUnit(interactions)`. */
export function learnEnvelopeTimeUnit(interactions: Interaction[]): Learning {
  const first = interactions.find((i) => {
    const time = bodyOf(i)?.time;
    return (typeof time === 'string' && /^\d+(\.\d+)?$/.test(time)) || typeof time === 'number';
  });
  if (!first) return learnt('envelopeTimeUnit');
  const time = bodyOf(first)!.time as string | number;
  const proof = evidence(first, `time ${json(time)}`);
  const unit = timeUnit(Number(time));
  const fraction = /\.(\d+)$/.exec(String(time))?.[1];
  if (unit === 'microseconds' || (fraction !== undefined && unit !== 'seconds')) {
    const what = `the envelope time in ${unit}${fraction === undefined ? '' : ' with decimals'}`;
    return learnt('envelopeTimeUnit', undefined, undefined, [
      { what, why: 'envelopeTimeUnit takes s, ms or s.sss', evidence: proof },
    ]);
  }
  const value = fraction !== undefined ? 's.sss' : unit === 'milliseconds' ? 'ms' : 's';
  const asNumber = {
    what: 'the envelope time as a JSON number',
    why: 'the simulator sends it in a string, as upstream documents',
    evidence: evidence(first, `time ${time}`),
  };
  return learnt('envelopeTimeUnit', value, proof, typeof time === 'number' ? [asNumber] : []);
}

/**
 * The decimals of each decimal-string field: fixed when proven (fixedDecimals), trimmed
 * when no trailing zero was kept, else the default.
 * @example
 *   learnDecimals(interactions).settings.decimals; // { 'balance.available.trx': 6 } for "795.380000"
 */
export function learnDecimals(interactions: Interaction[]): Learning {
  const fields = Object.entries(DECIMAL_FIELDS) as [
    DecimalField,
    { operation: ApiOperationId; path: string },
  ][];
  return combine(
    fields.map(([name, { operation, path }]) => {
      const setting = `decimals.${name}`;
      const samples = interactions.filter((i) => sentTo(i, operation) && isSuccess(i));
      const field = inferFields(samples.map((i) => i.response!.body)).get(path);
      const range = field && decimalRange(field);
      if (!field || !range) return learnt(setting);
      const example = samples.find((i) => valueAt(i.response?.body, path) !== undefined)!;
      const observed = `${describeDecimals(range)}${field.zeroPadded ? ', a trailing zero kept' : ''}, e.g. ${json(field.example)}`;
      const proof = evidence(example, observed);
      const fixed = fixedDecimals(field);
      const byDefault = DEFAULT_DECIMALS[name];
      // The default answering these values alike stays, with what showed it.
      if (
        fixed === undefined &&
        (byDefault === 'trimmed' ? !field.zeroPadded : range.min === byDefault && range.max === byDefault)
      )
        return learnt(setting, undefined, proof);
      if (fixed !== undefined || !field.zeroPadded) return learnt(setting, fixed ?? 'trimmed', proof);
      return learnt(setting, undefined, undefined, [
        {
          what: `${operation} ${path}: ${observed}`,
          why: 'a kept trailing zero beside values of other lengths is neither a fixed number of decimals nor trimmed',
          evidence: proof,
        },
      ]);
    }),
  );
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A message with the one parameter it names (one the operation documents, or one sent) as `{parameter}`. */
function withParameter(msg: string, i: Interaction): string {
  const names = new Set([...Object.keys(operationOf(i)?.parameters ?? {}), ...Object.keys(paramsOf(i))]);
  const named = [...names].filter((n) =>
    new RegExp(`\\b${n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`).test(msg),
  );
  if (named.length !== 1) return msg;
  return msg.split(named[0]!).join('{parameter}');
}

/** Whether a message quotes a value the request sent ("(got '2h')"), which a literal would repeat. */
function quotesValue(template: string, i: Interaction): boolean {
  const sent = new Set(Object.values(paramsOf(i)));
  return [...template.matchAll(/'([^']*)'|"([^"]*)"/g)].some((m) => sent.has(m[1] ?? m[2] ?? ''));
}

/**
 * A rejection's whole answer: status, code and a msg template with `{parameter}`; or a body
 * that is not the envelope, with its content type.
 * @example
 *   rejectionAnswer([wrongMethodWithEmptyBody]).answer; // { status: 405, body: '' }
 */
export function rejectionAnswer(seen: Interaction[]): {
  answer: Control['ErrorAnswer'];
  observed: string;
  unreproduced: Array<Omit<Unreproduced, 'evidence'>>;
} {
  const first = seen[0]!;
  const response = first.response!;
  const type = response.headers['content-type'];
  const body = bodyOf(first);
  const unreproduced: Array<Omit<Unreproduced, 'evidence'>> = [];
  const isEnvelope = body !== undefined && typeof body.code === 'number' && typeof body.msg === 'string';
  if (!isEnvelope) {
    const textOf = (i: Interaction): string =>
      bodyOf(i) !== undefined ? json(bodyOf(i)) : (i.response!.text ?? '');
    const text = textOf(first);
    const texts = new Set(seen.map(textOf)).size;
    const why = 'one body is answered to every request of the kind: the first recorded';
    if (texts > 1) unreproduced.push({ what: `${texts} different bodies`, why });
    const answer: Control['ErrorAnswer'] = { status: response.status, body: text };
    if (type) answer.contentType = type;
    const kind = body !== undefined ? 'JSON of its own shape' : 'not JSON';
    const what = text === '' ? 'an empty body' : `${kind}, ${text.length} characters`;
    return {
      answer,
      observed: `HTTP ${response.status}, ${type ?? 'no content type'}, ${what}`,
      unreproduced,
    };
  }
  const answer: Control['ErrorAnswer'] = { status: response.status, code: body.code as number };
  if (type && !/^application\/json\s*$/i.test(type)) answer.contentType = type;
  const messages = seen
    .map((i) => ({ i, msg: bodyOf(i)?.msg }))
    .filter((m): m is { i: Interaction; msg: string } => typeof m.msg === 'string' && m.msg.length > 0);
  const templates = new Set(messages.map(({ i, msg }) => withParameter(msg, i)));
  const [template] = templates;
  const quoting = messages.some(({ i, msg }) => quotesValue(msg, i));
  if (templates.size === 1 && template !== undefined && !quoting) answer.msg = template;
  else if (templates.size === 1 && template !== undefined)
    unreproduced.push({
      what: `msg ${json(template)}`,
      why: "it quotes a value the request sent; the simulator's own message, which names what was wrong, is answered",
    });
  else if (templates.size > 1)
    unreproduced.push({
      what: `${templates.size} wordings of msg, e.g. ${json(messageTemplate(messages[0]!.msg))}`,
      why: "they vary beyond the parameter's name; the simulator's own message, which names what was wrong, is answered",
    });
  return {
    answer,
    observed: `HTTP ${answer.status}, code ${answer.code}, msg ${json(body.msg)}`,
    unreproduced,
  };
}

/** Statuses history hides: PROCESSING when orders skipped it, REFUNDED when FAILED ones never showed it. */
export function learnHiddenStatuses(interactions: Interaction[]): Learning {
  const orders = observeOrders(interactions);
  const paths = orders.map(statusPath);
  if (orders.length === 0) return learnt('hiddenStatuses');
  const history = interactions.find((i) => sentTo(i, 'getOrderHistory') && isSuccess(i))!;
  if (interactions.some((i) => i.operation === 'advanceClock')) {
    const why =
      "the recording advanced a manual clock: its polls sample the clock's steps, not the service's";
    return learnt('hiddenStatuses', undefined, undefined, [{ what: 'the statuses the history shows', why }]);
  }
  const unreproduced: Unreproduced[] = [];
  const hidden: Array<'PROCESSING' | 'REFUNDED'> = [];
  const notes: string[] = [];
  const shows = (status: string): boolean => paths.some((p) => p.includes(status));
  const skipped = paths.filter((p) => {
    const at = p.indexOf('PENDING');
    return at !== -1 && (p[at + 1] === 'COMPLETED' || p[at + 1] === 'FAILED');
  });
  if (!shows('PROCESSING') && skipped.length > 0) {
    hidden.push('PROCESSING');
    notes.push(`${skipped.length} of ${orders.length} orders went from PENDING straight to their outcome`);
  }
  const failed = orders.filter((o) => o.seen.some((s) => s.status === 'FAILED'));
  if (failed.length > 0 && !shows('REFUNDED')) {
    const lingered = Math.max(
      ...failed.map((o) => {
        const times = o.seen.filter((s) => s.status === 'FAILED').map((s) => s.time);
        return Math.max(...times) - Math.min(...times);
      }),
    );
    hidden.push('REFUNDED');
    notes.push(
      `${failed.length} FAILED orders, polled in FAILED for up to ${Math.round(lingered)} s, never REFUNDED`,
    );
    unreproduced.push({
      what: 'a REFUNDED later than the polls',
      why: `the recording cannot tell a REFUNDED after ${Math.round(lingered)} s from none: REFUNDED is hidden`,
    });
  }
  const proof = hidden.length > 0 ? evidence(history, notes.join('; ')) : undefined;
  return learnt('hiddenStatuses', hidden.length > 0 ? hidden : undefined, proof, unreproduced);
}

/** Which identifier wins when a history request names two orders: the one whose order came back. */
export function learnHistoryPrefers(interactions: Interaction[]): Learning {
  const orderOf = new Map<string, string>();
  for (const i of interactions) {
    const data = bodyOf(i)?.data;
    if (!sentTo(i, 'createOrder') || !isSuccess(i) || !isObject(data)) continue;
    const no = (data.outOrderNo as string | undefined) ?? param(i, 'outOrderNo');
    if (typeof no === 'string' && typeof data.id === 'string')
      orderOf.set(`${i.request.apiKeyAlias}\u0000${no}`, data.id);
  }
  for (const i of interactions) {
    const orderId = param(i, 'orderId');
    const outOrderNo = param(i, 'outOrderNo');
    const data = bodyOf(i)?.data;
    if (!sentTo(i, 'getOrderHistory') || !isSuccess(i) || orderId === undefined || outOrderNo === undefined)
      continue;
    const other = orderOf.get(`${i.request.apiKeyAlias}\u0000${outOrderNo}`);
    if (!isObject(data) || other === undefined || other === orderId) continue;
    const winner = data.orderId === orderId ? 'orderId' : data.orderId === other ? 'outOrderNo' : undefined;
    if (winner)
      return learnt(
        'historyPrefers',
        winner,
        evidence(i, `orderId and outOrderNo of two orders: ${json(data.orderId)} came back`),
      );
  }
  return learnt('historyPrefers');
}

/** How an order is paid when TRX is short: in USDT when one was; refused when refused though USDT covered. */
export function learnWhenTrxShort(interactions: Interaction[]): Learning {
  const paid = interactions.find(
    (i) => sentTo(i, 'createOrder') && isSuccess(i) && bodyOf(i)?.data?.currency === 'USDT',
  );
  if (paid) return learnt('whenTrxShort', 'pay-usdt', evidence(paid, 'an order paid in USDT'));
  const balances = new Map<string, { trx: number; usdt: number }>();
  const prices = new Map<string, number>();
  for (const i of interactions) {
    const data = bodyOf(i)?.data;
    if (sentTo(i, 'getAccount') && isSuccess(i) && isObject(data)) {
      const [trx, usdt] = ['trx', 'usdt'].map((c) => Number(valueAt(data, `/balance/available/${c}`)));
      balances.set(String(i.request.apiKeyAlias), { trx: trx!, usdt: usdt! });
    }
    if (sentTo(i, 'getPrice') && isSuccess(i) && isObject(data))
      prices.set(`${param(i, 'rentalCount')}\u0000${param(i, 'period')}`, Number(data.trxPrice));
    const refused =
      i.response !== undefined &&
      !isSuccess(i) &&
      (i.response.status === 402 || /balance/i.test(String(bodyOf(i)?.msg)));
    if (!sentTo(i, 'createOrder') || !refused) continue;
    const balance = balances.get(String(i.request.apiKeyAlias));
    const price = prices.get(`${param(i, 'rentalCount')}\u0000${param(i, 'period')}`);
    if (!balance || price === undefined || !(balance.trx < price) || !(balance.usdt >= price)) continue;
    const observed = `refused with ${balance.trx} TRX and ${balance.usdt} USDT for ${price} TRX`;
    return learnt('whenTrxShort', 'reject', evidence(i, observed));
  }
  return learnt('whenTrxShort');
}
