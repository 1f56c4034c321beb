/**
 * The family of stand-ins: members of the independent service, each choosing differently where upstream is
 * silent; the suite must pass on each member and fail on each break (breaks.ts) planted on it.
 */
import { BREAKS } from './breaks.ts';
import {
  createIndependentService,
  type Rejection,
  type RejectionKind,
  type ServiceChoices,
} from './independent-service.ts';
import { rateLimited } from './rate-limit.ts';

type Fetch = typeof fetch;

/** The base choices: the simulator's defaults, so a member differs from it by what it overrides. */
export const PLAIN_CHOICES: ServiceChoices = {
  timeUnit: 's',
  createdAtUnit: 'ms',
  extraFields: {},
  rejections: {
    apiKeyMissing: { status: 401, code: 10001, msg: 'Missing API-KEY header' },
    apiKeyUnknown: { status: 401, code: 10002, msg: 'Unknown API key' },
    parameterMissing: { status: 400, code: 20001, msg: 'Missing parameter' },
    parameterInvalid: { status: 400, code: 20002, msg: 'Invalid parameter' },
    belowMinimum: { status: 400, code: 20002, msg: 'Invalid parameter' },
    aboveMaximum: { status: 400, code: 20002, msg: 'Invalid parameter' },
    orderNotFound: { status: 404, code: 40401, msg: 'Order not found' },
    insufficientBalance: { status: 402, code: 30001, msg: 'Insufficient balance' },
    duplicateOutOrderNo: { status: 409, code: 30002, msg: 'Duplicate outOrderNo' },
    methodNotAllowed: { status: 405, code: 40500, msg: 'Method not allowed' },
    notFound: { status: 404, code: 40400, msg: 'Not found' },
  },
  showsProcessing: true,
  failEveryOrder: false,
  deliveryMs: [3000, 3000],
  failedLingersMs: 0,
  historyPrefers: 'orderId',
  usdtWhenTrxShort: false,
  accountSuccessCode: 0,
  duplicateOutOrderNo: 'return-existing',
  prices: { '10min': 60, '1h': 65, '1d': 75, '3d': 80, '7d': 85, '14d': 90, '30d': 95 },
  balance: { trxSun: 795_380_000n, usdtMicro: 31_748n },
  usdtMicroPerTrxCent: 2_500n,
};

/** A rejection's envelope in a plain-text content type. */
const asText = (status: number, code: number, msg: string): Rejection => ({
  status,
  code,
  msg,
  contentType: 'text/plain; charset=utf-8',
});

/** Rejections of its own; those the suite provokes keep the documented envelope, the others have no JSON. */
const OWN_REJECTIONS: Record<RejectionKind, Rejection> = {
  apiKeyMissing: asText(403, 4031, 'apikey required'),
  apiKeyUnknown: asText(403, 4032, 'apikey invalid'),
  parameterMissing: asText(422, 4221, 'param missing'),
  parameterInvalid: asText(422, 4222, 'param error'),
  belowMinimum: asText(422, 4223, 'rentalCount too small'),
  aboveMaximum: asText(422, 4224, 'rentalCount too large'),
  orderNotFound: { status: 200, code: 4004, msg: 'order not exist' },
  insufficientBalance: { status: 402, code: 4020, msg: 'balance not enough', body: 'empty' },
  duplicateOutOrderNo: { status: 409, code: 4090, msg: 'outOrderNo exists', body: 'text' },
  methodNotAllowed: { status: 405, code: 0, msg: '', body: 'empty' },
  notFound: { status: 404, code: 0, msg: 'Not Found', body: 'text' },
};

const EXTRA_FIELDS: ServiceChoices['extraFields'] = {
  price: () => ({ minRentalCount: 64000 }),
  order: (_data, order) => ({ status: 'PENDING', pledgeAddress: order?.pledgeAddress }),
  history: (data) => ({ updatedAt: Number(data.createdAt) + 1, energyAmount: Number(data.rentalCount) }),
  account: () => ({ email: '', level: 1 }),
};

/** A gateway's rejections: HTTP 200, codes of its own, messages in Chinese, data null. */
const GATEWAY_REJECTIONS: Record<RejectionKind, Rejection> = {
  apiKeyMissing: { status: 200, code: 40001, msg: '缺少API-KEY请求头' },
  apiKeyUnknown: { status: 200, code: 40002, msg: 'API-KEY无效' },
  parameterMissing: { status: 200, code: 40003, msg: '缺少必填参数' },
  parameterInvalid: { status: 200, code: 40003, msg: '参数错误' },
  belowMinimum: { status: 200, code: 40003, msg: '租赁数量低于最小值' },
  aboveMaximum: { status: 200, code: 40003, msg: '租赁数量超过最大值' },
  orderNotFound: { status: 200, code: 40004, msg: '订单不存在' },
  insufficientBalance: { status: 200, code: 40005, msg: '余额不足' },
  duplicateOutOrderNo: { status: 200, code: 40006, msg: '外部订单号重复' },
  methodNotAllowed: { status: 200, code: 40500, msg: '请求方法不支持' },
  notFound: { status: 200, code: 40400, msg: '接口不存在' },
};

/** A service behind a gateway (served gzipped, `Connection: close`); its modes share these. */
const GATEWAY: Partial<ServiceChoices> = {
  timeUnit: 'ms',
  envelopeExtras: true,
  trxPriceTrimmed: true,
  maxRentalCount: 10_000_000,
  minimumOnPrice: true,
  rejections: GATEWAY_REJECTIONS,
  terseMessages: true,
  showsProcessing: false,
  deliveryMs: [8000, 12_000],
  gzip: true,
  // 64000 × 75 sun is "4.8" trimmed.
  prices: { '10min': 75, '1h': 70, '1d': 80, '3d': 85, '7d': 90, '14d': 95, '30d': 100 },
};

export const FAMILY_MEMBERS = [
  'plain',
  'time-units',
  'answer-shapes',
  'own-rejections',
  'lifecycle-choices',
  'lingering-failure',
  'usdt-payer',
  'all-choices',
  'rate-limited',
  'rate-limited-strict',
  'gateway',
  'gateway-rate-limited',
  'gateway-slow',
  'gateway-failing',
  'gateway-activation-fee',
  'gateway-fractional-time',
] as const;
export type FamilyMember = (typeof FAMILY_MEMBERS)[number];

/** Each member's choices, as changes to the plain ones (a member missing here, or one too many, does not compile). */
const MEMBERS: Record<FamilyMember, Partial<ServiceChoices>> = {
  plain: {},
  'time-units': { timeUnit: 'ms', createdAtUnit: 's' },
  'answer-shapes': { fixedDecimals: 6, extraFields: EXTRA_FIELDS },
  'own-rejections': { rejections: OWN_REJECTIONS },
  'lifecycle-choices': {
    showsProcessing: false,
    historyPrefers: 'outOrderNo',
    duplicateOutOrderNo: 'reject',
    accountSuccessCode: 1,
    rejections: { ...PLAIN_CHOICES.rejections, notFound: { status: 404, code: 0, msg: '', body: 'empty' } },
  },
  'lingering-failure': { failEveryOrder: true, failedLingersMs: 2500 },
  'usdt-payer': { usdtWhenTrxShort: true, balance: { trxSun: 1_500_000n, usdtMicro: 50_000_000n } },
  // Every choice of the members above (COMBINED), at prices of its own.
  'all-choices': { prices: { '10min': 47, '1h': 71, '1d': 83, '3d': 89, '7d': 97, '14d': 101, '30d': 103 } },
  'rate-limited': { rateLimit: { perSecond: 8, retryAfter: 'seconds', headers: false } },
  'rate-limited-strict': { rateLimit: { perSecond: 2, retryAfter: 'http-date' } },
  gateway: GATEWAY,
  'gateway-rate-limited': { ...GATEWAY, rateLimit: { perSecond: 3, refusal: 'gateway-503' } },
  'gateway-slow': { ...GATEWAY, deliveryMs: [25_000, 30_000] },
  'gateway-failing': { ...GATEWAY, failEveryOrder: true, failedLingersMs: 2000 },
  'gateway-activation-fee': { ...GATEWAY, activationFeeSun: 1_100_000n },
  'gateway-fractional-time': { ...GATEWAY, timeUnit: 's.sss' },
};

/** A member's full choices. */
export function memberChoices(member: FamilyMember): ServiceChoices {
  const combined = member === 'all-choices' ? COMBINED.map((m) => MEMBERS[m]) : [];
  return [...combined, MEMBERS[member]].reduce<ServiceChoices>((all, m) => ({ ...all, ...m }), PLAIN_CHOICES);
}

/** The members 'all-choices' combines, in order (its rejections are own-rejections'). */
const COMBINED: FamilyMember[] = [
  'lifecycle-choices',
  'time-units',
  'answer-shapes',
  'own-rejections',
  'lingering-failure',
  'usdt-payer',
];

/**
 * A member's service as a fetch.
 *
 * @example
 *   const fetch = memberFetch('time-units');
 *   await fetch('http://x/v1/account', { headers: { 'API-KEY': 'demo-key' } });
 */
export function memberFetch(member: FamilyMember): Fetch {
  const choices = memberChoices(member);
  const { fetch } = createIndependentService({ choices, seed: member });
  return choices.rateLimit ? rateLimited(fetch, choices.rateLimit) : fetch;
}

/** The breaks the suite can see on a member; the gateway's modes but the gateway get none. */
export function breaksFor(member: FamilyMember): string[] {
  const choices = memberChoices(member);
  if (member.startsWith('gateway-')) return [];
  return Object.entries(BREAKS)
    .filter(([, b]) => b.needs !== 'completion' || !choices.failEveryOrder)
    .filter(([, b]) => b.needs !== 'trx-order' || !choices.usdtWhenTrxShort)
    .map(([name]) => name);
}

/**
 * Every member ('family-<member>') and every break that applies to it ('family-<member>+<break>').
 *
 * @example
 *   FAMILY_VARIANTS['family-time-units'](); // a fetch the suite must pass
 */
export const FAMILY_VARIANTS: Record<string, () => Fetch> = Object.fromEntries(
  FAMILY_MEMBERS.flatMap((member) => [
    [`family-${member}`, () => memberFetch(member)],
    ...breaksFor(member).map((name) => [
      `family-${member}+${name}`,
      () => BREAKS[name]!.apply(memberFetch(member)),
    ]),
  ]),
);
