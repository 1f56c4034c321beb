/** A service written from the documents only (not the simulator); each open choice is a parameter. */
import { createHash } from 'node:crypto';
import {
  API_OPERATION_SPECS,
  PERIODS,
  type ApiOperationId,
  type REJECTION_KINDS,
} from '../../src/generated/lists.ts';
import { encodeTronAddress, isTronAddress } from '../../src/tron-address.ts';
import type { RateLimitOptions } from './rate-limit.ts';

export type RejectionKind = (typeof REJECTION_KINDS)[number];
type Period = (typeof PERIODS)[number];
type Status = 'PENDING' | 'PROCESSING' | 'COMPLETED' | 'FAILED' | 'REFUNDED';

/** How one rejection is answered: an envelope, an empty body, or a page of text. */
export interface Rejection {
  status: number;
  code: number;
  msg: string;
  /** Default `application/json` for an envelope, `text/html` for text. */
  contentType?: string;
  /** 'envelope' (default), 'empty' (no body at all) or 'text' (an HTML page, not JSON). */
  body?: 'envelope' | 'empty' | 'text';
}

/** Values a member adds to an answer's `data` beyond the documented fields. */
export type ExtraFields = (data: Record<string, unknown>, order?: OrderRecord) => Record<string, unknown>;

/** Every choice upstream leaves open, as this service makes it. */
export interface ServiceChoices {
  /** Unit of the envelope's `time`: seconds, milliseconds, or seconds with three decimals. */
  timeUnit: 's' | 'ms' | 's.sss';
  /** Fields beside `code` on every answer, success or rejection (`success`, a fresh `traceId`). */
  envelopeExtras?: boolean;
  /** trxPrice without trailing zeros ("5.7"). */
  trxPriceTrimmed?: boolean;
  /** The largest rentalCount priced or ordered; above it, `aboveMaximum`. */
  maxRentalCount?: number;
  /** The 64000 minimum applies to the price estimate too. */
  minimumOnPrice?: boolean;
  /** What an order to an address the service has not activated yet costs on top, in sun. */
  activationFeeSun?: bigint;
  /** Served over HTTP (e2e/stand-in-family-targets.ts): gzip-compressed, the connection closed after each answer. */
  gzip?: boolean;
  /** Served behind a rate limit (rate-limit.ts; applied by family.ts). */
  rateLimit?: RateLimitOptions;
  createdAtUnit: 's' | 'ms';
  /** Decimals of balances and of the history's amount: trimmed, or always this many. */
  fixedDecimals?: number;
  /** Undocumented fields the service adds, per answer. */
  extraFields: { price?: ExtraFields; order?: ExtraFields; history?: ExtraFields; account?: ExtraFields };
  /** Every rejection, including the wrong method (`methodNotAllowed`) and an unknown path (`notFound`). */
  rejections: Record<RejectionKind, Rejection>;
  /** A rejection's message alone, without the detail that names the parameter and the rule. */
  terseMessages?: boolean;
  /** Whether history shows PROCESSING between PENDING and the outcome. */
  showsProcessing: boolean;
  /** Every order fails (and is refunded), or every order completes. */
  failEveryOrder: boolean;
  /** From creation to the outcome (COMPLETED or FAILED): the range, fastest and slowest, drawn from per order. */
  deliveryMs: readonly [number, number];
  /** How long a failed order stays FAILED before it is REFUNDED. */
  failedLingersMs: number;
  /** Which identifier history looks up when both are given. */
  historyPrefers: 'orderId' | 'outOrderNo';
  /** Whether an order is paid in USDT when the account's TRX is short. */
  usdtWhenTrxShort: boolean;
  /** `code` of a successful account answer (the provider has shown 1). */
  accountSuccessCode: 0 | 1;
  /** What a second order with the same `outOrderNo` gets. */
  duplicateOutOrderNo: 'return-existing' | 'reject';
  /** Sun per unit of energy, per period. */
  prices: Record<Period, number>;
  /** The account of the key, in sun and micro-USDT. */
  balance: { trxSun: bigint; usdtMicro: bigint };
  /** Micro-USDT per 0.01 TRX, for orders paid in USDT. */
  usdtMicroPerTrxCent: bigint;
}

export interface OrderRecord {
  orderId: string;
  outOrderNo?: string;
  pledgeAddress: string;
  rentalCount: number;
  period: Period;
  currency: 'TRX' | 'USDT';
  /** In sun for TRX, micro-USDT for USDT. */
  amount: bigint;
  createdAtMs: number;
  deliveryMs: number;
  txId: string;
}

const MICRO = 1_000_000n;
const ORDER_CREATED = 'Order generated successfully, please check order processing status later';

/** "4.23" from an amount in millionths, trimmed or with `fixed` decimals (1 to 6). */
function decimal(millionths: bigint, fixed: number | undefined): string {
  const whole = millionths / MICRO;
  const fraction = String(millionths % MICRO).padStart(6, '0');
  if (fixed !== undefined) return `${whole}.${fraction.slice(0, fixed)}`;
  const trimmed = fraction.replace(/0+$/, '');
  return trimmed ? `${whole}.${trimmed}` : `${whole}`;
}

/** TRX cents of a cost in sun, rounded half up, as upstream's example shows ("4.23" for 4.225). */
const trxCents = (costSun: bigint): bigint => (costSun + 5_000n) / 10_000n;

/**
 * Creates the service, serving the key `demo-key`; `now` (ms since the epoch) defaults to the real clock,
 * `seed` seeds the wallet address, order ids and txIds.
 *
 * @example
 *   const service = createIndependentService({ choices: { ...PLAIN_CHOICES, timeUnit: 'ms' } });
 *   await service.fetch('http://x/v1/account', { headers: { 'API-KEY': 'demo-key' } });
 */
export function createIndependentService({
  choices,
  now = () => Date.now(),
  seed = 'independent-service',
}: {
  choices: ServiceChoices;
  now?: () => number;
  seed?: string;
}): { fetch: typeof fetch } {
  let counter = 0;
  const bytes = (label: string): Buffer => createHash('sha256').update(`${seed}\n${label}`).digest();
  const wallet = encodeTronAddress(bytes('wallet').subarray(0, 20));
  const orders: OrderRecord[] = [];
  let answers = 0;

  /** The envelope of an answer: 200 and JSON, else as `rejection` says. */
  const envelope = (code: number, msg: string, data: unknown, rejection?: Rejection) => {
    const at = Math.floor(now());
    const time = { ms: String(at), s: String(Math.floor(at / 1000)), 's.sss': (at / 1000).toFixed(3) }[
      choices.timeUnit
    ];
    const extras = choices.envelopeExtras
      ? { success: code === 0, traceId: bytes(`trace ${answers++}`).toString('hex').slice(0, 32) }
      : {};
    return new Response(JSON.stringify({ code, msg, time, data, ...extras }), {
      status: rejection?.status ?? 200,
      headers: { 'content-type': rejection?.contentType ?? 'application/json' },
    });
  };

  const reject = (kind: RejectionKind, detail?: string): Response => {
    const rejection = choices.rejections[kind];
    const msg = detail && !choices.terseMessages ? `${rejection.msg}: ${detail}` : rejection.msg;
    if (rejection.body === 'empty') return new Response(null, { status: rejection.status });
    if (rejection.body === 'text') {
      return new Response(`<html><body><h1>${rejection.status}</h1><p>${msg}</p></body></html>`, {
        status: rejection.status,
        headers: { 'content-type': rejection.contentType ?? 'text/html' },
      });
    }
    return envelope(rejection.code, msg, null, rejection);
  };

  const statusAt = (order: OrderRecord, at: number): Status => {
    const age = at - order.createdAtMs;
    if (age < order.deliveryMs)
      return choices.showsProcessing && age >= order.deliveryMs / 3 ? 'PROCESSING' : 'PENDING';
    if (!choices.failEveryOrder) return 'COMPLETED';
    return age < order.deliveryMs + choices.failedLingersMs ? 'FAILED' : 'REFUNDED';
  };

  /** The account's balances now: what each order holds, spends or gave back. */
  const balances = (at: number) => {
    let trx = choices.balance.trxSun;
    let usdt = choices.balance.usdtMicro;
    let frozenTrx = 0n;
    for (const order of orders) {
      const status = statusAt(order, at);
      if (status === 'REFUNDED') continue;
      if (order.currency === 'USDT') usdt -= order.amount;
      else trx -= order.amount;
      if (order.currency === 'TRX' && status !== 'COMPLETED') frozenTrx += order.amount;
    }
    return { trx, usdt, frozenTrx };
  };

  const orderId = (at: number): string => {
    const stamp = new Date(at).toISOString().replace(/[-:T]/g, '').slice(0, 14);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
    const random = [...bytes(`order ${counter}`).subarray(0, 8)]
      .map((b) => alphabet[b % alphabet.length])
      .join('');
    return `OR${stamp}${random}`;
  };

  /** The rentalCount (held to the 64000 minimum when `minimum`) and the period, or the rejection that says why not. */
  const asked = (query: URLSearchParams, minimum: boolean): Response | { count: number; period: Period } => {
    const value = query.get('rentalCount');
    const period = query.get('period');
    if (value === null || value === '') return reject('parameterMissing', 'rentalCount');
    if (!/^\d{1,10}$/.test(value) || Number(value) < 1 || Number(value) > 1_000_000_000)
      return reject('parameterInvalid', 'rentalCount must be a whole number from 1 to 1000000000');
    if (choices.maxRentalCount !== undefined && Number(value) > choices.maxRentalCount)
      return reject('aboveMaximum', `rentalCount must be at most ${choices.maxRentalCount}`);
    if (minimum && Number(value) < 64_000)
      return reject('belowMinimum', 'rentalCount must be at least 64000');
    if (period === null || period === '') return reject('parameterMissing', 'period');
    if (!(PERIODS as readonly string[]).includes(period))
      return reject('parameterInvalid', `period must be one of ${PERIODS.join(', ')}`);
    return { count: Number(value), period: period as Period };
  };
  const withExtra = (extra: ExtraFields | undefined, data: Record<string, unknown>, order?: OrderRecord) =>
    extra ? { ...data, ...extra(data, order) } : data;

  const created = (order: OrderRecord): Record<string, unknown> =>
    withExtra(
      choices.extraFields.order,
      {
        id: order.orderId,
        amount: Number(decimal(order.amount, undefined)),
        currency: order.currency,
        ...(order.outOrderNo === undefined ? {} : { outOrderNo: order.outOrderNo }),
      },
      order,
    );

  const answerOf: Record<ApiOperationId, (query: URLSearchParams) => Promise<Response>> = {
    getPrice: async (query) => {
      const price = asked(query, choices.minimumOnPrice === true);
      if (price instanceof Response) return price;
      const sun = choices.prices[price.period];
      const cents = trxCents(BigInt(price.count) * BigInt(sun));
      const data = {
        sun: String(sun),
        trxPrice: decimal(cents * 10_000n, choices.trxPriceTrimmed ? undefined : 2),
        period: price.period,
        resourceType: 'ENERGY',
        rentalCount: price.count,
      };
      return envelope(0, 'Get price successfully', withExtra(choices.extraFields.price, data));
    },
    createOrder: async (query) => {
      const address = query.get('pledgeAddress');
      if (!address) return reject('parameterMissing', 'pledgeAddress');
      if (!isTronAddress(address)) return reject('parameterInvalid', 'pledgeAddress must be a TRON address');
      const wanted = asked(query, true);
      if (wanted instanceof Response) return wanted;
      const outOrderNo = query.get('outOrderNo') ?? undefined;
      const existing = outOrderNo === undefined ? undefined : orders.find((o) => o.outOrderNo === outOrderNo);
      if (existing) {
        if (choices.duplicateOutOrderNo === 'reject') return reject('duplicateOutOrderNo', outOrderNo!);
        return envelope(0, ORDER_CREATED, created(existing));
      }
      const at = now();
      // The wallet, and every address an order went to, is activated; any other costs the fee.
      const fresh = address !== wallet && !orders.some((o) => o.pledgeAddress === address);
      const fee = fresh ? (choices.activationFeeSun ?? 0n) / 10_000n : 0n;
      const cents = trxCents(BigInt(wanted.count) * BigInt(choices.prices[wanted.period])) + fee;
      const trxCost = cents * 10_000n;
      const usdtCost = cents * choices.usdtMicroPerTrxCent;
      const funds = balances(at);
      let currency: 'TRX' | 'USDT' = 'TRX';
      if (funds.trx < trxCost) {
        if (!choices.usdtWhenTrxShort || funds.usdt < usdtCost) return reject('insufficientBalance');
        currency = 'USDT';
      }
      counter += 1;
      const [fastest, slowest] = choices.deliveryMs;
      const order: OrderRecord = {
        orderId: orderId(at),
        ...(outOrderNo === undefined ? {} : { outOrderNo }),
        pledgeAddress: address,
        rentalCount: wanted.count,
        period: wanted.period,
        currency,
        amount: currency === 'TRX' ? trxCost : usdtCost,
        createdAtMs: at,
        deliveryMs: fastest + (bytes(`delivery ${counter}`).readUInt16BE(0) % (slowest - fastest + 1)),
        txId: bytes(`tx ${counter}`).toString('hex'),
      };
      orders.push(order);
      return envelope(0, ORDER_CREATED, created(order));
    },
    getOrderHistory: async (query) => {
      const byId = query.get('orderId') || undefined;
      const byOut = query.get('outOrderNo') || undefined;
      if (!byId && !byOut) return reject('parameterMissing', 'orderId or outOrderNo');
      const useOut = byOut !== undefined && (byId === undefined || choices.historyPrefers === 'outOrderNo');
      const order = orders.find((o) => (useOut ? o.outOrderNo === byOut : o.orderId === byId));
      if (!order) return reject('orderNotFound', useOut ? byOut : byId);
      const status = statusAt(order, now());
      const data = {
        orderId: order.orderId,
        amount: decimal(order.amount, choices.fixedDecimals),
        currency: order.currency,
        status,
        txId: status === 'COMPLETED' ? order.txId : '',
        pledgeAddress: order.pledgeAddress,
        createdAt: choices.createdAtUnit === 's' ? Math.floor(order.createdAtMs / 1000) : order.createdAtMs,
        rentalCount: String(order.rentalCount),
        period: order.period,
        resourceType: 'ENERGY',
      };
      return envelope(0, 'Get order successfully', withExtra(choices.extraFields.history, data, order));
    },
    getAccount: async () => {
      const funds = balances(now());
      const data = {
        name: `User-${wallet.slice(0, 6)}`,
        walletAddress: wallet,
        balance: {
          available: { trx: decimal(funds.trx, choices.fixedDecimals), usdt: decimal(funds.usdt, 6) },
          frozen: { trx: decimal(funds.frozenTrx, choices.fixedDecimals) },
        },
        referralCount: 0,
      };
      return envelope(
        choices.accountSuccessCode,
        'Get user information successfully',
        withExtra(choices.extraFields.account, data),
      );
    },
  };

  return {
    async fetch(input, init) {
      const request = new Request(input, init);
      const url = new URL(request.url);
      // The API is under /v1 wherever the base URL puts it.
      const at = url.pathname.indexOf('/v1/');
      const path = at < 0 ? url.pathname : url.pathname.slice(at);
      // An unknown path is refused before method or key.
      const operation = Object.values(API_OPERATION_SPECS).find((spec) => spec.path === path);
      if (!operation) return reject('notFound');
      if (operation.method !== request.method) return reject('methodNotAllowed');
      const key = request.headers.get('api-key');
      if (!key) return reject('apiKeyMissing', 'send the API-KEY header');
      if (key !== 'demo-key') return reject('apiKeyUnknown', 'the API key names no account');
      // The query and a form body; the query wins (URLSearchParams.get reads the first).
      const form = new URLSearchParams(request.method === 'POST' ? await request.text() : '');
      return answerOf[operation.operationId](new URLSearchParams([...url.searchParams, ...form]));
    },
  };
}
