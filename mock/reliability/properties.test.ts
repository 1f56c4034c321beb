/**
 * Property-based tests of the whole simulator, in-process: fast-check generates
 * sequences of requests for every operation of spec/openapi.yaml and every path of
 * spec/control.yaml, with valid, boundary and malformed input (wrong types; huge,
 * negative and fractional numbers; empty, unicode and injection-like strings; repeated
 * parameters, parameters both in the query and in the body; oversize bodies, wrong
 * content types, wrong methods, unknown paths), interleaved with clock advances and
 * state-changing control calls. After every request:
 *
 * - no 5xx, except an answer produced on purpose by an injected fault (faults are
 *   generated with no latency, and the requests they hit are told by the journal);
 * - every non-2xx body, and every body of the four API operations, is a JSON envelope
 *   with a numeric `code` (not 0 on an error) and a non-empty `msg`;
 * - `sim.engine.checkInvariants()` is empty (money conserved per account, no negative
 *   balance, timelines match statuses, COMPLETED has a txId, REFUNDED refunded once),
 *   and no order's status ever moved backwards;
 * - the simulator reported no unexpected error.
 *
 * Deterministic: rounds of five sequences seeded with FC_SEED when set, else a fixed
 * seed, then that seed + 1, … until the test's request count is reached. A failure
 * prints its round's seed and a shrunk sequence; FC_SEED=<seed> replays it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadSpec, type OperationInfo } from '../../src/spec/loader.ts';
import { encodeTronAddress } from '../../src/tron-address.ts';
import type { JournalEntry } from '../http/journal.ts';
import { createSimulator, DEFAULT_SCENARIO, type Simulator } from '../simulator.ts';

const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : 20_250_312;
const FORM = 'application/x-www-form-urlencoded';
const ADDRESS = 'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3';
const OTHER_ADDRESS = 'TAcN9gFvXZAxsWQQzWWbydBmscBHnEi5nZ';
const PERIODS = ['10min', '1h', '1d', '3d', '7d', '14d', '30d'] as const;
const STATUSES = ['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'REFUNDED'] as const;
const API_OPERATIONS = ['createOrder', 'getPrice', 'getOrderHistory', 'getAccount'] as const;
const MAX_BODY = 64 * 1024;
/** A second account of the starting scenario; `prop-key-bravo` may be created by the traffic. */
const SCENARIO = { ...DEFAULT_SCENARIO, accounts: [...DEFAULT_SCENARIO.accounts!, { apiKey: 'prop-key-alpha', balance: { trx: '200', usdt: '5' } }] };

const apiSpec = loadSpec('api');
const controlSpec = loadSpec('control');
const label = (op: Pick<OperationInfo, 'method' | 'path'>): string => `${op.method} ${op.path}`;
const API_LABELS = apiSpec.operations.map(label);
const CONTROL_LABELS = controlSpec.operations.map(label);
/** Methods each path of either document answers (HEAD goes with GET). */
const PATH_METHODS = new Map<string, Set<string>>();
for (const op of [...apiSpec.operations, ...controlSpec.operations]) {
  const methods = PATH_METHODS.get(op.path) ?? new Set<string>();
  methods.add(op.method);
  if (op.method === 'GET') methods.add('HEAD');
  PATH_METHODS.set(op.path, methods);
}

/** One generated request. `{{order:N}}` anywhere stands for the N-th order id seen so far. */
interface Step {
  /** The operation aimed at ('POST /v1/tron/order'), or a tag such as 'wrong-method'. */
  target: string;
  method: string;
  path: string;
  query: [string, string][];
  headers: Record<string, string>;
  body?: string;
}

// ---------------------------------------------------------------------------------
// Values: valid, boundary and malformed.

/** encodeURIComponent, with lone surrogates (which it refuses) as U+FFFD, as a URL parser does. */
const encode = (text: string): string => encodeURIComponent(text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'));

const injectionLike = fc.constantFrom(
  "' OR '1'='1",
  '"; DROP TABLE orders; --',
  '<script>alert(1)</script>',
  '../../../etc/passwd',
  '${jndi:ldap://example.invalid/a}',
  '{{7*7}}',
  '%00',
  '%',
  '%E0%A4%A',
  '\u0000',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  '{"$gt":""}',
  '\r\nSet-Cookie: x=1',
  'null',
  'undefined',
  'NaN',
  'true',
  '[]',
  '{}',
  '😀🔥',
  'ｆｕｌｌｗｉｄｔｈ',
  '\u202eevil',
  'é',
  '\ud800',
  'a'.repeat(64),
  'a'.repeat(65),
  'x'.repeat(5000),
);
const weirdString: fc.Arbitrary<string> = fc.oneof(
  fc.constant(''),
  fc.string({ maxLength: 16 }),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
  injectionLike,
);
const numberText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 64_000, max: 300_000 }).map(String) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '64000', '63999', '1', '0', '-0', '-1', '-64000', '1000000000', '1000000001', '65000.0', '65000.5', '6.5e4', ' 65000',
      '65000 ', '+65000', '065000', '0x10000', '0b1', '1e400', '-1e400', 'Infinity', '-Infinity', 'NaN', '9'.repeat(400), '1_000',
      '65,000', '', ' ',
    ),
  },
  { weight: 1, arbitrary: fc.double().map(String) },
  { weight: 1, arbitrary: fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }).map(String) },
  { weight: 1, arbitrary: fc.integer().map(String) },
  { weight: 1, arbitrary: weirdString },
);
const address: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(ADDRESS, OTHER_ADDRESS) },
  { weight: 2, arbitrary: fc.uint8Array({ minLength: 20, maxLength: 20 }).map(encodeTronAddress) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('TT3D8Br4YEkJtvS1DNSj77ymip51BemoP4', ADDRESS.toLowerCase(), ADDRESS.slice(0, 33), `${ADDRESS}A`, `41${'ab'.repeat(20)}`, ` ${ADDRESS}`),
  },
  { weight: 1, arbitrary: weirdString },
);
const period: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...PERIODS) },
  { weight: 1, arbitrary: fc.constantFrom('1H', '2h', '10MIN', ' 1h', '1h ', '60min', '0', '') },
  { weight: 1, arbitrary: weirdString },
);
const OUT_ORDER_NOS = ['o-1', 'o-2', 'o-3', 'shared', 'x'.repeat(64)];
const outOrderNo: fc.Arbitrary<string> = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...OUT_ORDER_NOS) }, { weight: 1, arbitrary: weirdString });
/** A well-formed order id that no order has (most likely). */
const guessedOrderId = fc.stringMatching(/^OR20250312\d{4}[A-Z0-9]{8}$/);
const orderId: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.nat(40).map((n) => `{{order:${n}}}`) },
  { weight: 1, arbitrary: guessedOrderId },
  { weight: 1, arbitrary: fc.constantFrom('OR', 'or20250312175009SYBOVW31', 'OR20250312175009SYBOVW3', 'OR20250312175009SYBOVW311') },
  { weight: 1, arbitrary: weirdString },
);
const decimal: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom('0', '1', '5', '100', '0.5', '1000', '0.000001') },
  {
    weight: 2,
    arbitrary: fc.constantFrom('0.0000001', '-1', '1e3', 'abc', '', ' 1', '9007199254.740991', '9007199254.740992', '99999999999999999999', '1.', '.5'),
  },
  { weight: 1, arbitrary: fc.nat().map(String) },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.double(), fc.constant(null), fc.boolean()) },
);
/** Any JSON value, for bodies of the wrong type. */
const jsonJunk: fc.Arbitrary<unknown> = fc.jsonValue({ maxDepth: 2 });

const apiKeyHeaders: fc.Arbitrary<Record<string, string>> = fc.oneof(
  { weight: 10, arbitrary: fc.constant({ 'API-KEY': 'demo-key' }) },
  { weight: 3, arbitrary: fc.constantFrom('prop-key-alpha', 'prop-key-bravo').map((key) => ({ 'API-KEY': key })) },
  { weight: 1, arbitrary: fc.constant({ 'api-key': 'demo-key' }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom('demo-kez', 'demo-ke', 'demo-key2', 'DEMO-KEY', 'unknown-key', 'é', "' OR '1'='1", 'x'.repeat(4096)).map((key) => ({ 'API-KEY': key })),
  },
  { weight: 1, arbitrary: fc.constant({}) },
);

// ---------------------------------------------------------------------------------
// Parameters of the API: placed in the query, the body, both (same or different).

interface Placed {
  name: string;
  value: string;
  where: 'query' | 'body' | 'both' | 'both-different' | 'query-twice' | 'query-twice-different';
}

function placed(name: string, value: fc.Arbitrary<string>, allowBody: boolean): fc.Arbitrary<Placed | undefined> {
  const where: fc.Arbitrary<Placed['where']> = allowBody
    ? fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom('query' as const, 'body' as const) },
        { weight: 1, arbitrary: fc.constantFrom('both' as const, 'both-different' as const, 'query-twice' as const, 'query-twice-different' as const) },
      )
    : fc.oneof({ weight: 8, arbitrary: fc.constant('query' as const) }, { weight: 1, arbitrary: fc.constantFrom('query-twice' as const, 'query-twice-different' as const) });
  return fc.option(
    fc.record({ name: fc.constant(name), value, where }),
    { nil: undefined, freq: 8 },
  );
}

const extraParams = (allowBody: boolean): fc.Arbitrary<Placed[]> =>
  fc.array(
    fc.record({
      name: fc.oneof(fc.constantFrom('foo', '__proto__', 'constructor', '', 'API-KEY', 'rentalCount', 'orderId'), weirdString),
      value: weirdString,
      where: allowBody ? fc.constantFrom('query' as const, 'body' as const) : fc.constant('query' as const),
    }),
    { maxLength: 2 },
  );

function spread(params: (Placed | undefined)[]): { query: [string, string][]; body: [string, string][] } {
  const query: [string, string][] = [];
  const body: [string, string][] = [];
  for (const p of params) {
    if (!p) continue;
    if (p.where === 'query' || p.where === 'both' || p.where === 'both-different' || p.where.startsWith('query-twice')) query.push([p.name, p.value]);
    if (p.where === 'body' || p.where === 'both') body.push([p.name, p.value]);
    if (p.where === 'both-different') body.push([p.name, `${p.value}9`]);
    if (p.where === 'query-twice') query.push([p.name, p.value]);
    if (p.where === 'query-twice-different') query.push([p.name, `${p.value}9`]);
  }
  return { query, body };
}

const apiPrefix = fc.oneof({ weight: 4, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.constant('/api') });
const formContentType = fc.oneof(
  { weight: 8, arbitrary: fc.constant(FORM) },
  { weight: 1, arbitrary: fc.constantFrom(`${FORM}; charset=utf-8`, 'APPLICATION/X-WWW-FORM-URLENCODED', 'application/json', 'text/plain', 'multipart/form-data; boundary=x', '') },
);

/** A valid order, as a well-behaved client sends it. */
const validOrder: fc.Arbitrary<Step> = fc
  .record({
    prefix: apiPrefix,
    headers: apiKeyHeaders,
    pledgeAddress: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(ADDRESS, OTHER_ADDRESS) }, { weight: 1, arbitrary: fc.uint8Array({ minLength: 20, maxLength: 20 }).map(encodeTronAddress) }),
    rentalCount: fc.integer({ min: 64_000, max: 200_000 }),
    period: fc.constantFrom(...PERIODS),
    outOrderNo: fc.option(fc.constantFrom(...OUT_ORDER_NOS), { nil: undefined }),
    inBody: fc.boolean(),
  })
  .map(({ prefix, headers, inBody, ...params }) => {
    const pairs = Object.entries(params)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, String(v)] as [string, string]);
    return inBody
      ? { target: 'POST /v1/tron/order', method: 'POST', path: `${prefix}/v1/tron/order`, query: [], headers: { ...headers, 'content-type': FORM }, body: new URLSearchParams(pairs).toString() }
      : { target: 'POST /v1/tron/order', method: 'POST', path: `${prefix}/v1/tron/order`, query: pairs, headers };
  });

const fuzzedOrder: fc.Arbitrary<Step> = fc
  .record({
    prefix: apiPrefix,
    headers: apiKeyHeaders,
    params: fc.tuple(placed('pledgeAddress', address, true), placed('rentalCount', numberText, true), placed('period', period, true), placed('outOrderNo', outOrderNo, true)),
    extra: extraParams(true),
    contentType: formContentType,
    rawBody: fc.option(fc.oneof(fc.constant('{"pledgeAddress":"TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3","rentalCount":65000,"period":"1h"}'), weirdString), { nil: undefined, freq: 6 }),
  })
  .map(({ prefix, headers, params, extra, contentType, rawBody }) => {
    const { query, body } = spread([...params, ...extra]);
    const text = rawBody ?? (body.length > 0 ? new URLSearchParams(body).toString() : undefined);
    const step: Step = { target: 'POST /v1/tron/order', method: 'POST', path: `${prefix}/v1/tron/order`, query, headers: { ...headers } };
    if (text !== undefined) {
      step.body = text;
      if (contentType) step.headers['content-type'] = contentType;
    }
    return step;
  });

const priceStep: fc.Arbitrary<Step> = fc
  .record({
    prefix: apiPrefix,
    headers: apiKeyHeaders,
    params: fc.tuple(
      placed('rentalCount', fc.oneof({ weight: 2, arbitrary: fc.integer({ min: 1, max: 1_000_000_000 }).map(String) }, { weight: 2, arbitrary: numberText }), false),
      placed('period', period, false),
    ),
    extra: extraParams(false),
  })
  .map(({ prefix, headers, params, extra }) => ({
    target: 'GET /v1/tron/price',
    method: 'GET',
    path: `${prefix}/v1/tron/price`,
    query: spread([...params, ...extra]).query,
    headers,
  }));

const historyStep: fc.Arbitrary<Step> = fc
  .record({
    prefix: apiPrefix,
    headers: apiKeyHeaders,
    params: fc.tuple(placed('orderId', orderId, false), placed('outOrderNo', outOrderNo, false)),
    extra: extraParams(false),
  })
  .map(({ prefix, headers, params, extra }) => ({
    target: 'GET /v1/tron/history',
    method: 'GET',
    path: `${prefix}/v1/tron/history`,
    query: spread([...params, ...extra]).query,
    headers,
  }));

const accountStep: fc.Arbitrary<Step> = fc
  .record({ prefix: apiPrefix, headers: apiKeyHeaders, extra: extraParams(false) })
  .map(({ prefix, headers, extra }) => ({ target: 'GET /v1/account', method: 'GET', path: `${prefix}/v1/account`, query: spread(extra).query, headers }));

const apiStep: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: validOrder },
  { weight: 3, arbitrary: fuzzedOrder },
  { weight: 2, arbitrary: priceStep },
  { weight: 4, arbitrary: historyStep },
  { weight: 2, arbitrary: accountStep },
);

// ---------------------------------------------------------------------------------
// The control plane: one generator per operation of spec/control.yaml, and a generic
// one, driven by the document, for any operation added later.

const controlContentType = fc.oneof(
  { weight: 10, arbitrary: fc.constant('application/json') },
  { weight: 1, arbitrary: fc.constantFrom('application/json; charset=utf-8', 'APPLICATION/JSON', 'text/plain', FORM, 'application/xml', 'image/png', '') },
);
const rawJunkBody = fc.constantFrom('{', 'nul', '{"ms": 1}garbage', '\ufeff{}', '{"__proto__":{"ms":1}}', '[', '"', '{"a":1,"a":2}', '   ');

/** A JSON body: the given shape mostly, any JSON value or broken JSON sometimes. */
function jsonBody(shape: fc.Arbitrary<unknown>): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 8, arbitrary: shape.map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: jsonJunk.map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: rawJunkBody },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

/** A settings patch: valid mostly, with one wrong field sometimes. */
const settingsPatch: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record(
      {
        timing: fc.constantFrom('realistic', 'fast', 'instant'),
        prices: fc.dictionary(fc.constantFrom(...PERIODS), fc.integer({ min: 1, max: 200 }).map(String), { maxKeys: 3 }),
        failureRate: fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom(0, 0.5, 1)),
        usdtPerTrx: fc.constantFrom('0.19', '0.000001', '1', '1000', '9007199254.740991'),
        accountSuccessCode: fc.constantFrom(0, 1),
        duplicateOutOrderNo: fc.constantFrom('return-existing', 'reject'),
        errorStatus: fc.constantFrom('mapped', 'always-200'),
        activationDelayMs: fc.integer({ min: 0, max: 5000 }),
        rateLimit: fc.oneof(
          { weight: 3, arbitrary: fc.constant(null) },
          { weight: 2, arbitrary: fc.record({ requests: fc.integer({ min: 1, max: 40 }), windowMs: fc.integer({ min: 1, max: 5000 }) }) },
        ),
        maxStoredOrders: fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 1, max: 30 }) }, { weight: 1, arbitrary: fc.constant(100_000) }),
      },
      { requiredKeys: [] },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.oneof(
      fc.record({ timing: fc.constantFrom('slow', 1, null) }),
      fc.record({ prices: fc.constantFrom({ '2h': '65' }, { '1h': '0' }, { '1h': '1000001' }, { '1h': '999999999' }, { '1h': '1.5' }, { '1h': 65 }, JSON.parse('{"__proto__":"1"}') as unknown, []) }),
      fc.record({ failureRate: fc.constantFrom(-0.1, 1.1, '0.5', null, 1e308) }),
      fc.record({ usdtPerTrx: fc.constantFrom('0', '0.0000001', '-1', 'abc', '9007199254.740992', 0.19) }),
      fc.record({ accountSuccessCode: fc.constantFrom(2, '0', -1) }),
      fc.record({ duplicateOutOrderNo: fc.constantFrom('ignore', '') }),
      fc.record({ errorStatus: fc.constantFrom('never', 200) }),
      fc.record({ activationDelayMs: fc.constantFrom(-1, 86_400_001, 0.5, '10') }),
      fc.record({ rateLimit: fc.constantFrom({ requests: 0, windowMs: 1 }, { requests: 1 }, { requests: 1, windowMs: 86_400_001 }, { requests: 1.5, windowMs: 10 }, 'x') }),
      fc.record({ maxStoredOrders: fc.constantFrom(0, -1, 1.5, 10_000_001) }),
      fc.record({ bogus: fc.constant(1) }),
    ),
  },
);

const faultRequest: fc.Arbitrary<unknown> = fc.oneof(
  {
    // Valid faults, with no added latency and a bounded use, so the traffic keeps flowing.
    weight: 4,
    arbitrary: fc.record(
      {
        operation: fc.constantFrom(...API_OPERATIONS, '*'),
        response: fc.constantFrom('status', 'malformed', 'truncated', 'drop'),
        times: fc.integer({ min: 1, max: 3 }),
        probability: fc.double({ min: 0, max: 1, noNaN: true }),
        latencyMs: fc.constant(0),
      },
      { requiredKeys: ['operation', 'response', 'times'] },
    ).map((f) => (f.response === 'status' ? { ...f, status: 503 } : f)),
  },
  {
    weight: 1,
    arbitrary: fc.record(
      {
        operation: fc.constantFrom(...API_OPERATIONS, '*'),
        response: fc.constant('status'),
        status: fc.constantFrom(429, 500, 502, 503),
        withBody: fc.boolean(),
        retryAfter: fc.integer({ min: 0, max: 3600 }),
        times: fc.integer({ min: 1, max: 2 }),
      },
      { requiredKeys: ['operation', 'response', 'status', 'times'] },
    ),
  },
  {
    // Invalid ones: each is refused with 400.
    weight: 2,
    arbitrary: fc.constantFrom(
      { operation: 'getHealth', response: 'drop' },
      { operation: '*' },
      { operation: '*', latencyMs: 0 },
      { operation: '*', latencyMs: 60_001 },
      { operation: '*', latencyMs: 10, latencyMaxMs: 5 },
      { operation: '*', response: 'status', status: 404 },
      { operation: '*', response: 'malformed', status: 503 },
      { operation: '*', response: 'drop', withBody: true },
      { operation: '*', response: 'drop', probability: 2 },
      { operation: '*', response: 'status', times: 0 },
      { operation: '*', response: 'status', retryAfter: -1 },
      { response: 'drop' },
    ),
  },
);

const ruleRequest = fc.record(
  {
    match: fc.record({ pledgeAddress: address, outOrderNo }, { requiredKeys: [] }),
    outcome: fc.oneof({ weight: 6, arbitrary: fc.constantFrom('COMPLETED', 'FAILED') }, { weight: 1, arbitrary: fc.constantFrom('REFUNDED', 'failed', 1) }),
    delayMs: fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 0, max: 10_000 }) }, { weight: 1, arbitrary: fc.constantFrom(-1, 86_400_001, 0.5, 86_400_000) }),
    times: fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 1, max: 5 }) }, { weight: 1, arbitrary: fc.constantFrom(0, -1, 1.5) }),
  },
  { requiredKeys: ['outcome'] },
);

const advanceMs = fc.oneof(
  { weight: 10, arbitrary: fc.integer({ min: 0, max: 8000 }) },
  { weight: 1, arbitrary: fc.constantFrom(0, 600_000, 3_600_000, 86_400_000, 2_592_000_000, 31_536_000_000) },
  { weight: 1, arbitrary: fc.constantFrom(-1, 1.5, 31_536_000_001, 1e21, '1000', null) },
);
const advanceStep: fc.Arbitrary<Step> = fc.record({ ms: advanceMs }).map((body) => ({
  target: 'POST /_sim/clock/advance',
  method: 'POST',
  path: '/_sim/clock/advance',
  query: [],
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
}));

const limitText = fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 1, max: 1000 }).map(String) }, { weight: 1, arbitrary: numberText });
const ruleId = fc.oneof(fc.integer({ min: 1, max: 8 }).map((n) => `rule-${n}`), weirdString);
const faultId = fc.oneof(fc.integer({ min: 1, max: 8 }).map((n) => `fault-${n}`), weirdString);

interface ControlParts {
  headers?: Record<string, string>;
  pathParams?: Record<string, string>;
  query?: [string, string][];
  body?: string | undefined;
}

/** Bespoke generators of the control plane's operations, by operationId. */
const CONTROL_PARTS: Record<string, fc.Arbitrary<ControlParts>> = {
  advanceClock: jsonBody(fc.record({ ms: advanceMs })).map((body) => ({ body })),
  updateConfig: jsonBody(settingsPatch).map((body) => ({ body })),
  createAccount: jsonBody(
    fc.record(
      {
        balance: fc.record({ trx: decimal, usdt: decimal }, { requiredKeys: [] }),
        apiKey: fc.oneof({ weight: 4, arbitrary: fc.constantFrom('prop-key-bravo', 'prop-key-alpha', 'demo-key') }, { weight: 1, arbitrary: fc.constantFrom('short', 'has space!', 'x'.repeat(129), 42) }),
        referralCount: fc.oneof(fc.nat(5), fc.constantFrom(-1, 1.5, '2')),
      },
      { requiredKeys: [] },
    ),
  ).map((body) => ({ body })),
  getOwnAccount: apiKeyHeaders.map((headers) => ({ headers })),
  deposit: fc
    .tuple(apiKeyHeaders, jsonBody(fc.record({ trx: decimal, usdt: decimal }, { requiredKeys: [] })))
    .map(([headers, body]) => ({ headers, body })),
  listOrders: fc
    .tuple(apiKeyHeaders, fc.option(fc.oneof(fc.constantFrom(...STATUSES), weirdString), { nil: undefined }), fc.option(limitText, { nil: undefined }))
    .map(([headers, status, limit]) => ({
      headers,
      query: [...(status === undefined ? [] : [['status', status] as [string, string]]), ...(limit === undefined ? [] : [['limit', limit] as [string, string]])],
    })),
  getOrderTimeline: fc.tuple(apiKeyHeaders, orderId).map(([headers, id]) => ({ headers, pathParams: { orderId: id } })),
  addRule: jsonBody(ruleRequest).map((body) => ({ body })),
  deleteRule: ruleId.map((id) => ({ pathParams: { id } })),
  injectFault: jsonBody(faultRequest).map((body) => ({ body })),
  deleteFault: faultId.map((id) => ({ pathParams: { id } })),
  setSupply: jsonBody(
    fc.record({ energy: fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 0, max: 2_000_000 }) }, { weight: 2, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constantFrom(-1, 1.5, '100', 1e20) }) }),
  ).map((body) => ({ body })),
  getAddress: address.map((a) => ({ pathParams: { address: a } })),
  setAddress: fc
    .tuple(address, jsonBody(fc.record({ activated: fc.oneof({ weight: 4, arbitrary: fc.boolean() }, { weight: 1, arbitrary: fc.constantFrom('true', 1, null) }) })))
    .map(([a, body]) => ({ pathParams: { address: a }, body })),
  getJournal: fc
    .tuple(fc.option(fc.oneof(fc.integer({ min: 1, max: 10_000 }).map(String), numberText), { nil: undefined }), fc.option(fc.oneof(fc.constantFrom(...API_OPERATIONS, 'reset'), weirdString), { nil: undefined }))
    .map(([limit, operation]) => ({
      query: [...(limit === undefined ? [] : [['limit', limit] as [string, string]]), ...(operation === undefined ? [] : [['operation', operation] as [string, string]])],
    })),
};

/** Any other operation, driven by the document: path and query parameters and a JSON body of any kind. */
function genericParts(op: OperationInfo): fc.Arbitrary<ControlParts> {
  const pathNames = op.parameters.filter((p) => p.in === 'path').map((p) => p.name);
  const queryNames = op.parameters.filter((p) => p.in === 'query').map((p) => p.name);
  return fc.record({
    headers: apiKeyHeaders,
    pathParams: fc.tuple(...pathNames.map(() => weirdString)).map((values) => Object.fromEntries(pathNames.map((name, i) => [name, values[i]!]))),
    query: fc.tuple(...queryNames.map(() => fc.option(fc.oneof(numberText, weirdString), { nil: undefined }))).map((values) =>
      queryNames.flatMap((name, i) => (values[i] === undefined ? [] : [[name, values[i]!] as [string, string]])),
    ),
    body: op.jsonBodySchema ? jsonBody(jsonJunk) : fc.constant(undefined),
  });
}

function controlStep(op: OperationInfo): fc.Arbitrary<Step> {
  const parts = CONTROL_PARTS[op.operationId] ?? genericParts(op);
  return fc.tuple(parts, controlContentType).map(([p, contentType]) => {
    let path = op.path;
    for (const [name, value] of Object.entries(p.pathParams ?? {})) path = path.replace(`{${name}}`, /^\{\{order:\d+\}\}$/.test(value) ? value : encode(value));
    const headers: Record<string, string> = { ...p.headers };
    if (p.body !== undefined && contentType) headers['content-type'] = contentType;
    const step: Step = { target: label(op), method: op.method, path, query: p.query ?? [], headers };
    if (p.body !== undefined && op.method !== 'GET' && op.method !== 'HEAD') step.body = p.body;
    return step;
  });
}

const anyControlStep: fc.Arbitrary<Step> = fc.oneof(...controlSpec.operations.map(controlStep));
/** Control calls that change the state the API works on, weighted up in mixed traffic. */
const stateChangingControlStep: fc.Arbitrary<Step> = fc.oneof(
  ...controlSpec.operations
    .filter((op) => ['updateConfig', 'addRule', 'setSupply', 'deposit', 'createAccount', 'reset', 'setAddress', 'clearRules', 'deleteRule'].includes(op.operationId))
    .map(controlStep),
);

// ---------------------------------------------------------------------------------
// HTTP-level abuse: wrong methods, unknown paths, oversize bodies.

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PURGE'];
/** A concrete path of either document, its parameters filled in. */
const concretePath: fc.Arbitrary<{ template: string; path: string }> = fc
  .tuple(fc.constantFrom(...PATH_METHODS.keys()), fc.constantFrom(ADDRESS, 'rule-1', 'fault-1', 'OR20250312175009SYBOVW31', 'x'), apiPrefix)
  .map(([template, value, prefix]) => ({ template, path: `${template.startsWith('/v1') ? prefix : ''}${template.replace(/\{[^}]+\}/g, value)}` }));

const wrongMethodStep: fc.Arbitrary<Step> = fc
  .tuple(concretePath, fc.constantFrom(...METHODS), apiKeyHeaders)
  .filter(([{ template }, method]) => !PATH_METHODS.get(template)!.has(method))
  .map(([{ path }, method, headers]) => ({ target: 'wrong-method', method, path, query: [], headers }));

const segment = fc.oneof(
  fc.constantFrom('v1', 'v2', 'tron', 'order', 'orders', 'price', 'history', 'account', 'api', '_sim', 'health', '..', '.', '', '%2e%2e', '%2F', 'V1', 'ORDER', 'docs'),
  weirdString.map(encode),
);
const unknownPathStep: fc.Arbitrary<Step> = fc
  .tuple(
    fc.oneof(
      fc.array(segment, { minLength: 1, maxLength: 5 }).map((s) => `/${s.join('/')}`),
      fc.constantFrom('/v1/tron/orders', '/v2/tron/order', '/V1/tron/order', '/v1/tron/order/', '//v1/tron/order', '/_sim/', '/_sim/nope', '/_sim/orders/', '/api', '/api/_sim/health', '/v1/tron/order/../price', '/%2e%2e/etc/passwd', '/_sim/rules/', '/_sim/addresses/', '/v1/tron'),
    ),
    fc.constantFrom(...METHODS),
    apiKeyHeaders,
  )
  .map(([path, method, headers]) => ({ target: 'unknown-path', method, path, query: [], headers }));

const oversizeStep: fc.Arbitrary<Step> = fc
  .tuple(concretePath, fc.constantFrom('POST', 'PUT', 'PATCH', 'DELETE'), fc.integer({ min: 1, max: 4096 }), fc.constantFrom(FORM, 'application/json', 'text/plain'))
  .map(([{ path }, method, extra, contentType]) => ({
    target: 'oversize-body',
    method,
    path,
    query: [],
    headers: { 'API-KEY': 'demo-key', 'content-type': contentType },
    body: contentType === 'application/json' ? `{"pad":"${'x'.repeat(MAX_BODY + extra)}"}` : `pad=${'x'.repeat(MAX_BODY + extra)}`,
  }));

const headStep: fc.Arbitrary<Step> = fc
  .tuple(concretePath, apiKeyHeaders)
  .filter(([{ template }]) => PATH_METHODS.get(template)!.has('GET'))
  .map(([{ path }, headers]) => ({ target: 'head', method: 'HEAD', path, query: [], headers }));

const httpAbuseStep: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: wrongMethodStep },
  { weight: 3, arbitrary: unknownPathStep },
  { weight: 1, arbitrary: oversizeStep },
  { weight: 1, arbitrary: headStep },
  { weight: 2, arbitrary: fuzzedOrder },
);

// ---------------------------------------------------------------------------------
// Running a sequence and checking every answer.

/** Status changes that move forward (several steps may happen in one clock advance). */
const FORWARD: Record<string, readonly string[]> = {
  PENDING: STATUSES,
  PROCESSING: ['PROCESSING', 'COMPLETED', 'FAILED', 'REFUNDED'],
  COMPLETED: ['COMPLETED'],
  FAILED: ['FAILED', 'REFUNDED'],
  REFUNDED: ['REFUNDED'],
};

interface Tally {
  requests: number;
  targets: Set<string>;
  /** Answers excluded from the body checks because an injected fault produced them. */
  faulted: number;
}

const newTally = (): Tally => ({ requests: 0, targets: new Set(), faulted: 0 });

function materialize(step: Step, orderIds: string[]): Request {
  const fill = (text: string): string =>
    text.replace(/\{\{order:(\d+)\}\}/g, (_, n: string) => (orderIds.length === 0 ? 'OR20250312175009NOORDER0' : orderIds[Number(n) % orderIds.length]!));
  const search = new URLSearchParams(step.query.map(([k, v]) => [k, fill(v)])).toString();
  const init: RequestInit = { method: step.method, headers: step.headers };
  if (step.body !== undefined) init.body = fill(step.body);
  return new Request(`http://sim${fill(step.path)}${search ? `?${search}` : ''}`, init);
}

function describeStep(index: number, step: Step): string {
  const body = step.body === undefined ? '' : ` body ${JSON.stringify(step.body.length > 300 ? `${step.body.slice(0, 300)}…` : step.body)}`;
  return `step ${index}: ${step.method} ${step.path} query ${JSON.stringify(step.query)} headers ${JSON.stringify(step.headers).slice(0, 200)}${body}`;
}

function isEnvelope(value: unknown): value is { code: number; msg: string } {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { code?: unknown }).code === 'number' &&
    typeof (value as { msg?: unknown }).msg === 'string' &&
    (value as { msg: string }).msg.length > 0
  );
}

async function checkAnswer(step: Step, request: Request, res: Response, where: string, orderIds: string[]): Promise<void> {
  expect(res.status, `${where}: a 5xx answer`).toBeLessThan(500);
  const type = res.headers.get('content-type') ?? '';
  if (type.startsWith('text/event-stream')) {
    await res.body?.cancel();
    return;
  }
  const text = await res.text();
  if (request.method === 'HEAD') {
    expect(text, `${where}: a HEAD answer with a body`).toBe('');
    return;
  }
  if (res.status === 405) expect(res.headers.get('allow'), `${where}: a 405 without Allow`).toBeTruthy();
  const path = new URL(request.url).pathname;
  const isApi = /^(\/api)?\/v1\//.test(path);
  const ok = res.status >= 200 && res.status < 300;
  if (ok && !isApi && !type.startsWith('application/json')) return; // pages such as /_sim/ui
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    expect.fail(`${where}: the body is not JSON: ${text.slice(0, 200)}`);
  }
  if (!ok || isApi) {
    expect(isEnvelope(body), `${where}: not an envelope with a numeric code and a msg: ${text.slice(0, 300)}`).toBe(true);
  }
  if (!ok) expect((body as { code: number }).code, `${where}: an error with code 0`).not.toBe(0);
  if (ok && isApi && step.target === 'POST /v1/tron/order') {
    const id = (body as { data?: { id?: unknown } }).data?.id;
    if (typeof id === 'string' && !orderIds.includes(id)) orderIds.push(id);
  }
}

function checkState(sim: Simulator, seen: WeakMap<object, string>, where: string, unexpected: unknown[]): void {
  expect(unexpected.map(String), `${where}: the simulator reported an unexpected error`).toEqual([]);
  expect(sim.engine.checkInvariants(), `${where}: broken invariants`).toEqual([]);
  for (const account of sim.engine.accounts()) {
    for (const book of Object.values(account.ledger)) {
      expect(Math.min(book.available, book.frozen, book.spent, book.deposited), `${where}: a negative balance`).toBeGreaterThanOrEqual(0);
    }
    for (const order of account.orders) {
      const before = seen.get(order);
      if (before !== undefined && !FORWARD[before]!.includes(order.status)) {
        expect.fail(`${where}: order ${order.id} went from ${before} back to ${order.status}`);
      }
      seen.set(order, order.status);
    }
  }
}

/** Runs one generated sequence against a fresh simulator, checking after every request. */
async function run(steps: Step[], tally: Tally): Promise<void> {
  const unexpected: unknown[] = [];
  const sim = createSimulator({ clock: 'manual', seed: 7, scenario: SCENARIO, onUnexpectedError: (error) => unexpected.push(error) });
  // The journal entry of the request in flight, to tell the answers of injected faults.
  let current: JournalEntry | undefined;
  const journaled = (): JournalEntry | undefined => current;
  sim.journal.subscribe((entry) => {
    current = entry;
  });
  const orderIds: string[] = [];
  const seen = new WeakMap<object, string>();
  for (const [index, step] of steps.entries()) {
    const where = describeStep(index, step);
    current = undefined;
    const request = materialize(step, orderIds);
    const res = await sim.app.request(request);
    tally.requests++;
    tally.targets.add(step.target);
    if (journaled()?.fault !== undefined) {
      // An injected fault answered on purpose (a status, a broken body, a drop).
      tally.faulted++;
      await res.body?.cancel();
    } else {
      await checkAnswer(step, request, res, where, orderIds);
    }
    checkState(sim, seen, where, unexpected);
  }
}

/**
 * Runs generated sequences (1 to 250 requests each, so that a failure shrinks to a
 * short one) in rounds of five, seeded SEED, SEED + 1, …, until `target` requests
 * have been sent. A failure names its round's seed: FC_SEED=<that seed> replays it.
 */
async function assertSequences(steps: fc.Arbitrary<Step>, target: number, tally: Tally): Promise<void> {
  for (let round = 0; tally.requests < target; round++) {
    await fc.assert(
      fc.asyncProperty(fc.array(steps, { minLength: 1, maxLength: 250, size: 'max' }), (sequence) => run(sequence, tally)),
      { seed: SEED + round, numRuns: 5, interruptAfterTimeLimit: 90_000, markInterruptAsFailure: true },
    );
  }
}

// ---------------------------------------------------------------------------------

describe('the simulator under generated traffic', () => {
  it('answers at least 3,000 generated API requests, interleaved with clock advances and control changes, without a 5xx or a broken invariant', async () => {
    const tally = newTally();
    const traffic = fc.oneof(
      { weight: 12, arbitrary: apiStep },
      { weight: 3, arbitrary: advanceStep },
      { weight: 2, arbitrary: stateChangingControlStep },
      { weight: 1, arbitrary: anyControlStep },
    );
    await assertSequences(traffic, 3000, tally);
    expect(tally.requests).toBeGreaterThanOrEqual(3000);
    expect([...tally.targets]).toEqual(expect.arrayContaining(API_LABELS));
  }, 120_000);

  it('answers at least 3,000 generated control-plane requests on every path of spec/control.yaml, interleaved with orders', async () => {
    const tally = newTally();
    const traffic = fc.oneof(
      { weight: 10, arbitrary: anyControlStep },
      { weight: 3, arbitrary: stateChangingControlStep },
      { weight: 3, arbitrary: advanceStep },
      { weight: 5, arbitrary: apiStep },
    );
    await assertSequences(traffic, 3000, tally);
    expect(tally.requests).toBeGreaterThanOrEqual(3000);
    expect([...tally.targets]).toEqual(expect.arrayContaining(CONTROL_LABELS));
  }, 120_000);

  it('answers at least 2,500 generated wrong methods, unknown paths, oversize bodies and wrong content types with an error envelope', async () => {
    const tally = newTally();
    const traffic = fc.oneof({ weight: 8, arbitrary: httpAbuseStep }, { weight: 2, arbitrary: validOrder }, { weight: 1, arbitrary: advanceStep });
    await assertSequences(traffic, 2500, tally);
    expect(tally.requests).toBeGreaterThanOrEqual(2500);
    expect([...tally.targets]).toEqual(expect.arrayContaining(['wrong-method', 'unknown-path', 'oversize-body', 'head']));
  }, 120_000);

  it('keeps the books right through at least 2,000 generated requests of every kind, injected faults included', async () => {
    const tally = newTally();
    const faults = controlSpec.operations.filter((op) => op.operationId === 'injectFault').map(controlStep);
    const traffic = fc.oneof(
      { weight: 8, arbitrary: apiStep },
      { weight: 3, arbitrary: advanceStep },
      { weight: 3, arbitrary: stateChangingControlStep },
      { weight: 2, arbitrary: anyControlStep },
      { weight: 2, arbitrary: httpAbuseStep },
      { weight: 2, arbitrary: fc.oneof(...faults) },
    );
    await assertSequences(traffic, 2000, tally);
    expect(tally.requests).toBeGreaterThanOrEqual(2000);
    // The faults did hit: their answers were told apart, not merely absent.
    expect(tally.faulted).toBeGreaterThan(0);
  }, 120_000);
});
