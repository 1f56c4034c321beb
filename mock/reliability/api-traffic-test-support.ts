/**
 * The API's requests as fast-check generates them for the property tests: valid and fuzzed
 * orders, price and history reads, and every other operation driven by the document.
 */
import fc from 'fast-check';
import { PERIODS } from '../../src/generated/lists.ts';
import type { OperationInfo } from '../../src/spec/loader.ts';
import { encodeTronAddress } from '../../src/tron-address.ts';
import {
  OUT_ORDER_NOS,
  address,
  apiKeyHeaders,
  apiSpec,
  extraParams,
  FORM,
  label,
  numberText,
  orderId,
  outOrderNo,
  period,
  placed,
  spread,
  weirdString,
  type Step,
} from './traffic-test-support.ts';
import { ADDRESS, OTHER_ADDRESS } from '../test-support/fixtures.ts';

export const apiPrefix = fc.oneof(
  { weight: 4, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: fc.constant('/api') },
);
export const formContentType = fc.oneof(
  { weight: 8, arbitrary: fc.constant(FORM) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      `${FORM}; charset=utf-8`,
      'APPLICATION/X-WWW-FORM-URLENCODED',
      'application/json',
      'text/plain',
      'multipart/form-data; boundary=x',
      '',
    ),
  },
);

/** A valid order, as a well-behaved client sends it. */
export const validOrder: fc.Arbitrary<Step> = fc
  .record({
    prefix: apiPrefix,
    headers: apiKeyHeaders,
    pledgeAddress: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(ADDRESS, OTHER_ADDRESS) },
      { weight: 1, arbitrary: fc.uint8Array({ minLength: 20, maxLength: 20 }).map(encodeTronAddress) },
    ),
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
      ? {
          target: 'POST /v1/tron/order',
          method: 'POST',
          path: `${prefix}/v1/tron/order`,
          query: [],
          headers: { ...headers, 'content-type': FORM },
          body: new URLSearchParams(pairs).toString(),
        }
      : {
          target: 'POST /v1/tron/order',
          method: 'POST',
          path: `${prefix}/v1/tron/order`,
          query: pairs,
          headers,
        };
  });

export const fuzzedOrder: fc.Arbitrary<Step> = fc
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
        fc.constant(
          '{"pledgeAddress":"TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3","rentalCount":65000,"period":"1h"}',
        ),
        weirdString,
      ),
      { nil: undefined, freq: 6 },
    ),
  })
  .map(({ prefix, headers, params, extra, contentType, rawBody }) => {
    const { query, body } = spread([...params, ...extra]);
    const text = rawBody ?? (body.length > 0 ? new URLSearchParams(body).toString() : undefined);
    const step: Step = {
      target: 'POST /v1/tron/order',
      method: 'POST',
      path: `${prefix}/v1/tron/order`,
      query,
      headers: { ...headers },
    };
    if (text !== undefined) {
      step.body = text;
      if (contentType) step.headers['content-type'] = contentType;
    }
    return step;
  });

export const priceStep: fc.Arbitrary<Step> = fc
  .record({
    prefix: apiPrefix,
    headers: apiKeyHeaders,
    params: fc.tuple(
      placed(
        'rentalCount',
        fc.oneof(
          { weight: 2, arbitrary: fc.integer({ min: 1, max: 1_000_000_000 }).map(String) },
          { weight: 2, arbitrary: numberText },
        ),
        false,
      ),
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

export const historyStep: fc.Arbitrary<Step> = fc
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

/** The operations above have arbitraries of their own; every other one of the spec gets plainStep's. */
const TAILORED: ReadonlySet<string> = new Set(['createOrder', 'getPrice', 'getOrderHistory']);

/**
 * A request of an operation the traffic knows nothing special about (the account's, and one
 * the spec gains later): its method and path, with stray parameters.
 */
function plainStep(op: OperationInfo): fc.Arbitrary<Step> {
  return fc
    .record({ prefix: apiPrefix, headers: apiKeyHeaders, extra: extraParams(false) })
    .map(({ prefix, headers, extra }) => ({
      target: label(op),
      method: op.method,
      path: `${prefix}${op.path}`,
      query: spread(extra).query,
      headers,
    }));
}

export const apiStep: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: validOrder },
  { weight: 3, arbitrary: fuzzedOrder },
  { weight: 2, arbitrary: priceStep },
  { weight: 4, arbitrary: historyStep },
  ...apiSpec.operations
    .filter((op) => !TAILORED.has(op.operationId))
    .map((op) => ({ weight: 2, arbitrary: plainStep(op) })),
);
