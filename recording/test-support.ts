/** Hand-made recordings for tests: a baseline of every operation whose values change, shapes stay. */
import { ADDRESS } from '../mock/test-support/fixtures.ts';
import { computeTiming } from './order-observations.ts';
import { RECORDING_FORMAT, type Interaction, type RecordedRequest, type Recording } from './recording.ts';

export const VALUES_A = {
  orderId: 'OR20250312175009BJ1QRQH7',
  wallet: ADDRESS,
  pledgeAddress: ADDRESS,
  createdAtMs: 1_741_801_809_000,
  amount: 3.84,
  trx: '1000',
  usdt: '100.000000',
  outOrderNo: 'erk-order-aaaa-0',
  txId: '5c3b1e0a9f7d4c2b8a6e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a',
  // Seconds from creation at which each poll answered.
  polls: [
    ['PENDING', 0],
    ['PENDING', 1],
    ['PROCESSING', 2],
    ['COMPLETED', 5],
    ['COMPLETED', 6],
  ] as Array<[status: string, seconds: number]>,
};

export type BaselineValues = typeof VALUES_A;

/** Every value different from VALUES_A, every shape the same. */
export const VALUES_B: BaselineValues = {
  orderId: 'OR20260101120000ZX9Y8W7V',
  wallet: 'TAcN9gFvXZAxsWQQzWWbydBmscBHnEi5nZ',
  pledgeAddress: 'TAnyuZwQdnuFeTeMPikrgLBfrz1raq19iW',
  createdAtMs: 1_767_268_800_123,
  amount: 4.11,
  trx: '996.16',
  usdt: '55.123456',
  outOrderNo: 'erk-order-bbbb-7',
  txId: 'aa3b1e0a9f7d4c2b8a6e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b99',
  polls: [
    ['PENDING', 0.2],
    ['PROCESSING', 1.5],
    ['PROCESSING', 2.5],
    ['COMPLETED', 4.4],
  ],
};

const CASE = 'contract-tests/x.contract.test.ts > drift > baseline';
const FILE = 'contract-tests/x.contract.test.ts';

export function exchange(
  operation: string,
  body: unknown,
  options: Partial<
    Pick<RecordedRequest, 'method' | 'path' | 'query' | 'apiKeyAlias'> & { status: number; case: string }
  > = {},
): Interaction {
  return {
    case: options.case ?? CASE,
    file: FILE,
    operation,
    request: {
      method: options.method ?? 'GET',
      path: options.path ?? `/${operation}`,
      query: options.query ?? {},
      apiKeyAlias: options.apiKeyAlias ?? 'key-1',
    },
    response: { status: options.status ?? 200, headers: { 'content-type': 'application/json' }, body },
    at: '2025-03-12T17:50:09.000Z',
    durationMs: 1,
  };
}

const time = (ms: number): string => String(Math.floor(ms / 1000));

/** The baseline recording for a set of values, after `change` edited its interactions. */
export function baseline(
  v: BaselineValues = VALUES_A,
  change: (interactions: Interaction[]) => void = () => {},
): Recording {
  const t0 = v.createdAtMs;
  const price = {
    code: 0,
    msg: 'Get price successfully',
    time: time(t0),
    data: { sun: '60', trxPrice: '3.84', period: '10min', resourceType: 'ENERGY', rentalCount: 64000 },
  };
  const account = {
    code: 0,
    msg: 'Get user information successfully',
    time: time(t0),
    data: {
      name: `User-${v.wallet.slice(0, 6)}`,
      walletAddress: v.wallet,
      balance: { available: { trx: v.trx, usdt: v.usdt }, frozen: { trx: '0' } },
      referralCount: 0,
    },
  };
  const created = {
    code: 0,
    msg: 'Order generated successfully, please check order processing status later',
    time: time(t0),
    data: { id: v.orderId, amount: v.amount, currency: 'TRX', outOrderNo: v.outOrderNo },
  };
  const polls = v.polls.map(([status, seconds]) =>
    exchange(
      'getOrderHistory',
      {
        code: 0,
        msg: 'Get order successfully',
        time: time(t0 + seconds * 1000),
        data: {
          orderId: v.orderId,
          amount: v.amount.toFixed(2),
          currency: 'TRX',
          status,
          txId: status === 'COMPLETED' ? v.txId : '',
          pledgeAddress: v.pledgeAddress,
          createdAt: t0,
          rentalCount: '64000',
          period: '10min',
          resourceType: 'ENERGY',
        },
      },
      { path: '/v1/tron/history', query: { orderId: v.orderId } },
    ),
  );
  const interactions = [
    exchange('getPrice', price, { path: '/v1/tron/price', query: { period: '10min', rentalCount: '64000' } }),
    exchange('getAccount', account, { path: '/v1/account' }),
    exchange('createOrder', created, { method: 'POST', path: '/v1/tron/order' }),
    ...polls,
    exchange(
      'getOrderHistory',
      {
        code: 40401,
        msg: `Order not found: no order of this account has orderId '${v.orderId.replace(/.{8}$/, 'ZZZZZZZZ')}'.`,
        time: time(t0),
        data: null,
      },
      { status: 404, path: '/v1/tron/history', case: `${CASE} unknown order` },
    ),
    exchange(
      'getAccount',
      {
        code: 10002,
        msg: "Unknown API key: the 'API-KEY' header names no account. Check the key, or create an account with POST /_sim/accounts.",
        time: time(t0),
        data: null,
      },
      { status: 401, path: '/v1/account', case: `${CASE} unknown key`, apiKeyAlias: 'key-2' },
    ),
  ];
  change(interactions);
  return recordingOf(interactions);
}

/** A recording of interactions, with its timing computed as `record` computes it. */
export function recordingOf(interactions: Interaction[], overrides: Partial<Recording> = {}): Recording {
  return {
    format: RECORDING_FORMAT,
    recordedAt: '2025-03-12T17:50:30.000Z',
    runId: 'test-run',
    target: { kind: 'url', baseUrl: 'https://api.example.test/api', simulator: false, capabilities: [] },
    settings: { allowSpend: true, maxOrders: 1 },
    apiKeys: [
      { alias: 'key-1', role: 'main' },
      { alias: 'key-2', role: 'foreign' },
    ],
    interactions,
    timing: computeTiming(interactions),
    ...overrides,
  };
}

/** The `data` of the first response of an operation (and status), for editing. */
export function dataOf(
  interactions: Interaction[],
  operation: string,
  status = 200,
): Record<string, unknown> {
  const [body] = bodiesOf(interactions, operation, status);
  if (!body) throw new Error(`no ${operation} ${status} in the baseline`);
  return body.data as Record<string, unknown>;
}

export function bodiesOf(
  interactions: Interaction[],
  operation: string,
  status = 200,
): Array<Record<string, unknown>> {
  return interactions
    .filter((i) => i.operation === operation && i.response?.status === status)
    .map((i) => i.response!.body as Record<string, unknown>);
}
