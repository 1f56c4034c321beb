/** The API's requests as fast-check generates them: valid and fuzzed orders, others, requests none takes. */
import fc from 'fast-check';
import { PERIODS } from '../../src/generated/lists.ts';
import type { OperationInfo } from '../../src/spec/loader.ts';
import { ADDRESS } from '../test-support/fixtures.ts';
import {
  OUT_ORDER_NOS,
  address,
  apiKeyHeaders,
  apiSpec,
  contentTypeOf,
  encode,
  extraParams,
  FORM,
  label,
  MAX_BODY,
  numberText,
  orderId,
  outOrderNo,
  PATH_METHODS,
  period,
  placed,
  spread,
  weirdString,
  type Placed,
  validAddress,
  type Step,
} from './traffic-test-support.ts';

const apiPrefix = fc.oneof(
  { weight: 4, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: fc.constant('/api') },
);
const formContentType = contentTypeOf(
  FORM,
  `${FORM}; charset=utf-8`,
  'APPLICATION/X-WWW-FORM-URLENCODED',
  'application/json',
  'text/plain',
  'multipart/form-data; boundary=x',
  '',
);

/** An order with `query`, and `body` sent as `contentType` when there is one. */
function orderStep(
  prefix: string,
  headers: Record<string, string>,
  query: [string, string][],
  body?: string,
  contentType?: string,
): Step {
  const step: Step = {
    target: 'POST /v1/tron/order',
    method: 'POST',
    path: `${prefix}/v1/tron/order`,
    query,
    headers,
  };
  if (body === undefined) return step;
  return { ...step, body, headers: contentType ? { ...headers, 'content-type': contentType } : headers };
}

/** A valid order, as a well-behaved client sends it. */
export const validOrder: fc.Arbitrary<Step> = fc
  .record({
    prefix: apiPrefix,
    headers: apiKeyHeaders,
    pledgeAddress: validAddress,
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
      ? orderStep(prefix, headers, [], new URLSearchParams(pairs).toString(), FORM)
      : orderStep(prefix, headers, pairs);
  });

const fuzzedOrder: fc.Arbitrary<Step> = fc
  .record({
    prefix: apiPrefix,
    headers: apiKeyHeaders,
    params: fc.tuple(
      placed('pledgeAddress', address, true),
      placed('rentalCount', numberText, true),
      placed('period', period, true),
      placed('outOrderNo', outOrderNo, true),
    ),
    extra: extraParams(true),
    contentType: formContentType,
    rawBody: fc.option(
      fc.oneof(
        fc.constant(JSON.stringify({ pledgeAddress: ADDRESS, rentalCount: 65000, period: '1h' })),
        weirdString,
      ),
      { nil: undefined, freq: 6 },
    ),
  })
  .map(({ prefix, headers, params, extra, contentType, rawBody }) => {
    const { query, body } = spread([...params, ...extra]);
    const text = rawBody ?? (body.length > 0 ? new URLSearchParams(body).toString() : undefined);
    return orderStep(prefix, headers, query, text, contentType);
  });

/** The parameters generated for an operation the traffic knows; any other gets stray ones only. */
const PARAMS: Record<string, fc.Arbitrary<Placed | undefined>[]> = {
  getPrice: [
    placed(
      'rentalCount',
      fc.oneof(
        { weight: 2, arbitrary: fc.integer({ min: 1, max: 1_000_000_000 }).map(String) },
        { weight: 2, arbitrary: numberText },
      ),
      false,
    ),
    placed('period', period, false),
  ],
  getOrderHistory: [placed('orderId', orderId, false), placed('outOrderNo', outOrderNo, false)],
};

/** A request of `op` (the account's, and one the spec gains later): its parameters, with stray ones. */
function operationStep(op: OperationInfo): fc.Arbitrary<Step> {
  return fc
    .record({
      prefix: apiPrefix,
      headers: apiKeyHeaders,
      params: fc.tuple(...(PARAMS[op.operationId] ?? [])),
      extra: extraParams(false),
    })
    .map(({ prefix, headers, params, extra }) => ({
      target: label(op),
      method: op.method,
      path: `${prefix}${op.path}`,
      query: spread([...params, ...extra]).query,
      headers,
    }));
}

export const apiStep: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: validOrder },
  { weight: 3, arbitrary: fuzzedOrder },
  ...apiSpec.operations
    .filter((op) => op.operationId !== 'createOrder')
    .map((op) => ({ weight: op.operationId === 'getOrderHistory' ? 4 : 2, arbitrary: operationStep(op) })),
);

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PURGE'];
/** A concrete path of either document, its parameters filled in. */
const concretePath: fc.Arbitrary<{ template: string; path: string }> = fc
  .tuple(
    fc.constantFrom(...PATH_METHODS.keys()),
    fc.constantFrom(ADDRESS, 'rule-1', 'fault-1', 'OR20250312175009SYBOVW31', 'x'),
    apiPrefix,
  )
  .map(([template, value, prefix]) => ({
    template,
    path: `${template.startsWith('/v1') ? prefix : ''}${template.replace(/\{[^}]+\}/g, value)}`,
  }));

const wrongMethodStep: fc.Arbitrary<Step> = fc
  .tuple(concretePath, fc.constantFrom(...METHODS), apiKeyHeaders)
  .filter(([{ template }, method]) => !PATH_METHODS.get(template)!.has(method))
  .map(([{ path }, method, headers]) => ({ target: 'wrong-method', method, path, query: [], headers }));

const segment = fc.oneof(
  fc.constantFrom(
    'v1',
    'v2',
    'tron',
    'order',
    'orders',
    'price',
    'history',
    'account',
    'api',
    '_sim',
    'health',
    '..',
    '.',
    '',
    '%2e%2e',
    '%2F',
    'V1',
    'ORDER',
    'docs',
  ),
  weirdString.map(encode),
);
const unknownPathStep: fc.Arbitrary<Step> = fc
  .tuple(
    fc.oneof(
      fc.array(segment, { minLength: 1, maxLength: 5 }).map((s) => `/${s.join('/')}`),
      fc.constantFrom(
        '/v1/tron/orders',
        '/v2/tron/order',
        '/V1/tron/order',
        '/v1/tron/order/',
        '//v1/tron/order',
        '/_sim/',
        '/_sim/nope',
        '/_sim/orders/',
        '/api',
        '/api/_sim/health',
        '/v1/tron/order/../price',
        '/%2e%2e/etc/passwd',
        '/_sim/rules/',
        '/_sim/addresses/',
        '/v1/tron',
      ),
    ),
    fc.constantFrom(...METHODS),
    apiKeyHeaders,
  )
  .map(([path, method, headers]) => ({ target: 'unknown-path', method, path, query: [], headers }));

const oversizeStep: fc.Arbitrary<Step> = fc
  .tuple(
    concretePath,
    fc.constantFrom('POST', 'PUT', 'PATCH', 'DELETE'),
    fc.integer({ min: 1, max: 4096 }),
    fc.constantFrom(FORM, 'application/json', 'text/plain'),
  )
  .map(([{ path }, method, extra, contentType]) => {
    const pad = 'x'.repeat(MAX_BODY + extra);
    const body = contentType === 'application/json' ? `{"pad":"${pad}"}` : `pad=${pad}`;
    const headers = { 'API-KEY': 'demo-key', 'content-type': contentType };
    return { target: 'oversize-body', method, path, query: [], headers, body };
  });

const headStep: fc.Arbitrary<Step> = fc
  .tuple(concretePath, apiKeyHeaders)
  .filter(([{ template }]) => PATH_METHODS.get(template)!.has('GET'))
  .map(([{ path }, headers]) => ({ target: 'head', method: 'HEAD', path, query: [], headers }));

/** Requests no operation takes, and fuzzed orders. */
export const httpAbuseStep: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: wrongMethodStep },
  { weight: 3, arbitrary: unknownPathStep },
  { weight: 1, arbitrary: oversizeStep },
  { weight: 1, arbitrary: headStep },
  { weight: 2, arbitrary: fuzzedOrder },
);
