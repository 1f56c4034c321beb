/** The control plane's requests as fast-check generates them: one generator per operation of control.yaml. */
import fc from 'fast-check';
import { API_OPERATION_IDS, ORDER_STATUSES, PERIODS } from '../../src/generated/lists.ts';
import type { OperationInfo } from '../../src/spec/loader.ts';
import {
  FORM,
  controlSpec,
  label,
  type Step,
  encode,
  weirdString,
  numberText,
  address,
  outOrderNo,
  orderId,
  decimal,
  jsonJunk,
  apiKeyHeaders,
  contentTypeOf,
} from './traffic-test-support.ts';

const controlContentType = contentTypeOf(
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'text/plain',
  FORM,
  'application/xml',
  'image/png',
  '',
);
const rawJunkBody = fc.constantFrom(
  '{',
  'nul',
  '{"ms": 1}garbage',
  '\ufeff{}',
  '{"__proto__":{"ms":1}}',
  '[',
  '"',
  '{"a":1,"a":2}',
  '   ',
);

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
        prices: fc.dictionary(fc.constantFrom(...PERIODS), fc.integer({ min: 1, max: 200 }).map(String), {
          maxKeys: 3,
        }),
        failureRate: fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom(0, 0.5, 1)),
        usdtPerTrx: fc.constantFrom('0.19', '0.000001', '1', '1000', '9007199254.740991'),
        accountSuccessCode: fc.constantFrom(0, 1),
        duplicateOutOrderNo: fc.constantFrom('return-existing', 'reject'),
        errorStatus: fc.constantFrom('mapped', 'always-200'),
        activationDelayMs: fc.integer({ min: 0, max: 5000 }),
        rateLimit: fc.oneof(
          { weight: 3, arbitrary: fc.constant(null) },
          {
            weight: 2,
            arbitrary: fc.record({
              requests: fc.integer({ min: 1, max: 40 }),
              windowMs: fc.integer({ min: 1, max: 5000 }),
            }),
          },
        ),
        maxStoredOrders: fc.oneof(
          { weight: 3, arbitrary: fc.integer({ min: 1, max: 30 }) },
          { weight: 1, arbitrary: fc.constant(100_000) },
        ),
      },
      { requiredKeys: [] },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.oneof(
      fc.record({ timing: fc.constantFrom('slow', 1, null) }),
      fc.record({
        prices: fc.constantFrom(
          { '2h': '65' },
          { '1h': '0' },
          { '1h': '1000001' },
          { '1h': '999999999' },
          { '1h': '1.5' },
          { '1h': 65 },
          JSON.parse('{"__proto__":"1"}') as unknown,
          [],
        ),
      }),
      fc.record({ failureRate: fc.constantFrom(-0.1, 1.1, '0.5', null, 1e308) }),
      fc.record({ usdtPerTrx: fc.constantFrom('0', '0.0000001', '-1', 'abc', '9007199254.740992', 0.19) }),
      fc.record({ accountSuccessCode: fc.constantFrom(2, '0', -1) }),
      fc.record({ duplicateOutOrderNo: fc.constantFrom('ignore', '') }),
      fc.record({ errorStatus: fc.constantFrom('never', 200) }),
      fc.record({ activationDelayMs: fc.constantFrom(-1, 86_400_001, 0.5, '10') }),
      fc.record({
        rateLimit: fc.constantFrom(
          { requests: 0, windowMs: 1 },
          { requests: 1 },
          { requests: 1, windowMs: 86_400_001 },
          { requests: 1.5, windowMs: 10 },
          'x',
        ),
      }),
      fc.record({ maxStoredOrders: fc.constantFrom(0, -1, 1.5, 10_000_001) }),
      fc.record({ bogus: fc.constant(1) }),
    ),
  },
);

const faultRequest: fc.Arbitrary<unknown> = fc.oneof(
  {
    // Valid faults, with no added latency and a bounded use, so the traffic keeps flowing.
    weight: 4,
    arbitrary: fc
      .record(
        {
          operation: fc.constantFrom(...API_OPERATION_IDS, '*'),
          response: fc.constantFrom('status', 'malformed', 'truncated', 'drop'),
          times: fc.integer({ min: 1, max: 3 }),
          probability: fc.double({ min: 0, max: 1, noNaN: true }),
          latencyMs: fc.constant(0),
        },
        { requiredKeys: ['operation', 'response', 'times'] },
      )
      .map((f) => (f.response === 'status' ? { ...f, status: 503 } : f)),
  },
  {
    weight: 1,
    arbitrary: fc.record(
      {
        operation: fc.constantFrom(...API_OPERATION_IDS, '*'),
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
    outcome: fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom('COMPLETED', 'FAILED') },
      { weight: 1, arbitrary: fc.constantFrom('REFUNDED', 'failed', 1) },
    ),
    delayMs: fc.oneof(
      { weight: 4, arbitrary: fc.integer({ min: 0, max: 10_000 }) },
      { weight: 1, arbitrary: fc.constantFrom(-1, 86_400_001, 0.5, 86_400_000) },
    ),
    times: fc.oneof(
      { weight: 4, arbitrary: fc.integer({ min: 1, max: 5 }) },
      { weight: 1, arbitrary: fc.constantFrom(0, -1, 1.5) },
    ),
  },
  { requiredKeys: ['outcome'] },
);

const advanceMs = fc.oneof(
  { weight: 10, arbitrary: fc.integer({ min: 0, max: 8000 }) },
  { weight: 1, arbitrary: fc.constantFrom(0, 600_000, 3_600_000, 86_400_000, 2_592_000_000, 31_536_000_000) },
  { weight: 1, arbitrary: fc.constantFrom(-1, 1.5, 31_536_000_001, 1e21, '1000', null) },
);
export const advanceStep: fc.Arbitrary<Step> = fc.record({ ms: advanceMs }).map((body) => ({
  target: 'POST /_sim/clock/advance',
  method: 'POST',
  path: '/_sim/clock/advance',
  query: [],
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
}));

const limitText = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 1, max: 1000 }).map(String) },
  { weight: 1, arbitrary: numberText },
);
/** The id of a rule or fault (rule-1, …), or a weird string. */
const idOf = (kind: string): fc.Arbitrary<string> =>
  fc.oneof(
    fc.integer({ min: 1, max: 8 }).map((n) => `${kind}-${n}`),
    weirdString,
  );

/** The query of the parameters that have a value. */
const queryOf = (params: Record<string, string | undefined>): [string, string][] =>
  Object.entries(params).filter((entry): entry is [string, string] => entry[1] !== undefined);

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
        apiKey: fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom('prop-key-bravo', 'prop-key-alpha', 'demo-key') },
          { weight: 1, arbitrary: fc.constantFrom('short', 'has space!', 'x'.repeat(129), 42) },
        ),
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
    .tuple(
      apiKeyHeaders,
      fc.option(fc.oneof(fc.constantFrom(...ORDER_STATUSES), weirdString), { nil: undefined }),
      fc.option(limitText, { nil: undefined }),
    )
    .map(([headers, status, limit]) => ({ headers, query: queryOf({ status, limit }) })),
  getOrderTimeline: fc
    .tuple(apiKeyHeaders, orderId)
    .map(([headers, id]) => ({ headers, pathParams: { orderId: id } })),
  addRule: jsonBody(ruleRequest).map((body) => ({ body })),
  deleteRule: idOf('rule').map((id) => ({ pathParams: { id } })),
  injectFault: jsonBody(faultRequest).map((body) => ({ body })),
  deleteFault: idOf('fault').map((id) => ({ pathParams: { id } })),
  setSupply: jsonBody(
    fc.record({
      energy: fc.oneof(
        { weight: 4, arbitrary: fc.integer({ min: 0, max: 2_000_000 }) },
        { weight: 2, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: fc.constantFrom(-1, 1.5, '100', 1e20) },
      ),
    }),
  ).map((body) => ({ body })),
  getAddress: address.map((a) => ({ pathParams: { address: a } })),
  setAddress: fc
    .tuple(
      address,
      jsonBody(
        fc.record({
          activated: fc.oneof(
            { weight: 4, arbitrary: fc.boolean() },
            { weight: 1, arbitrary: fc.constantFrom('true', 1, null) },
          ),
        }),
      ),
    )
    .map(([a, body]) => ({ pathParams: { address: a }, body })),
  getJournal: fc
    .tuple(
      fc.option(fc.oneof(fc.integer({ min: 1, max: 10_000 }).map(String), numberText), { nil: undefined }),
      fc.option(fc.oneof(fc.constantFrom(...API_OPERATION_IDS, 'reset'), weirdString), { nil: undefined }),
    )
    .map(([limit, operation]) => ({ query: queryOf({ limit, operation }) })),
};

/** Any other operation, driven by the document: path and query parameters and a JSON body of any kind. */
function genericParts(op: OperationInfo): fc.Arbitrary<ControlParts> {
  const pathNames = op.parameters.filter((p) => p.in === 'path').map((p) => p.name);
  const queryNames = op.parameters.filter((p) => p.in === 'query').map((p) => p.name);
  return fc.record({
    headers: apiKeyHeaders,
    pathParams: fc
      .tuple(...pathNames.map(() => weirdString))
      .map((values) => Object.fromEntries(pathNames.map((name, i) => [name, values[i]!]))),
    query: fc
      .tuple(...queryNames.map(() => fc.option(fc.oneof(numberText, weirdString), { nil: undefined })))
      .map((values) => queryOf(Object.fromEntries(queryNames.map((name, i) => [name, values[i]])))),
    body: op.jsonBodySchema ? jsonBody(jsonJunk) : fc.constant(undefined),
  });
}

export function controlStep(op: OperationInfo): fc.Arbitrary<Step> {
  const parts = CONTROL_PARTS[op.operationId] ?? genericParts(op);
  return fc.tuple(parts, controlContentType).map(([p, contentType]) => {
    let path = op.path;
    for (const [name, value] of Object.entries(p.pathParams ?? {}))
      path = path.replace(`{${name}}`, /^\{\{order:\d+\}\}$/.test(value) ? value : encode(value));
    const headers: Record<string, string> = { ...p.headers };
    if (p.body !== undefined && contentType) headers['content-type'] = contentType;
    const step: Step = { target: label(op), method: op.method, path, query: p.query ?? [], headers };
    if (p.body !== undefined && op.method !== 'GET' && op.method !== 'HEAD') step.body = p.body;
    return step;
  });
}

export const anyControlStep: fc.Arbitrary<Step> = fc.oneof(...controlSpec.operations.map(controlStep));
/** Control calls that change the state the API works on, weighted up in mixed traffic. */
export const stateChangingControlStep: fc.Arbitrary<Step> = fc.oneof(
  ...controlSpec.operations
    .filter((op) =>
      [
        'updateConfig',
        'addRule',
        'setSupply',
        'deposit',
        'createAccount',
        'reset',
        'setAddress',
        'clearRules',
        'deleteRule',
      ].includes(op.operationId),
    )
    .map(controlStep),
);
