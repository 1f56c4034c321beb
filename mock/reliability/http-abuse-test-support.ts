/**
 * Requests no operation takes, as fast-check generates them for the property tests: wrong
 * methods, unknown paths, oversized bodies, HEAD.
 */
import fc from 'fast-check';
import { apiPrefix, fuzzedOrder } from './api-traffic-test-support.ts';
import {
  apiKeyHeaders,
  encode,
  FORM,
  MAX_BODY,
  PATH_METHODS,
  weirdString,
  type Step,
} from './traffic-test-support.ts';
import { ADDRESS } from '../test-support/fixtures.ts';

export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PURGE'];
/** A concrete path of either document, its parameters filled in. */
export const concretePath: fc.Arbitrary<{ template: string; path: string }> = fc
  .tuple(
    fc.constantFrom(...PATH_METHODS.keys()),
    fc.constantFrom(ADDRESS, 'rule-1', 'fault-1', 'OR20250312175009SYBOVW31', 'x'),
    apiPrefix,
  )
  .map(([template, value, prefix]) => ({
    template,
    path: `${template.startsWith('/v1') ? prefix : ''}${template.replace(/\{[^}]+\}/g, value)}`,
  }));

export const wrongMethodStep: fc.Arbitrary<Step> = fc
  .tuple(concretePath, fc.constantFrom(...METHODS), apiKeyHeaders)
  .filter(([{ template }, method]) => !PATH_METHODS.get(template)!.has(method))
  .map(([{ path }, method, headers]) => ({ target: 'wrong-method', method, path, query: [], headers }));

export const segment = fc.oneof(
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
export const unknownPathStep: fc.Arbitrary<Step> = fc
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

export const oversizeStep: fc.Arbitrary<Step> = fc
  .tuple(
    concretePath,
    fc.constantFrom('POST', 'PUT', 'PATCH', 'DELETE'),
    fc.integer({ min: 1, max: 4096 }),
    fc.constantFrom(FORM, 'application/json', 'text/plain'),
  )
  .map(([{ path }, method, extra, contentType]) => ({
    target: 'oversize-body',
    method,
    path,
    query: [],
    headers: { 'API-KEY': 'demo-key', 'content-type': contentType },
    body:
      contentType === 'application/json'
        ? `{"pad":"${'x'.repeat(MAX_BODY + extra)}"}`
        : `pad=${'x'.repeat(MAX_BODY + extra)}`,
  }));

export const headStep: fc.Arbitrary<Step> = fc
  .tuple(concretePath, apiKeyHeaders)
  .filter(([{ template }]) => PATH_METHODS.get(template)!.has('GET'))
  .map(([{ path }, headers]) => ({ target: 'head', method: 'HEAD', path, query: [], headers }));

export const httpAbuseStep: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: wrongMethodStep },
  { weight: 3, arbitrary: unknownPathStep },
  { weight: 1, arbitrary: oversizeStep },
  { weight: 1, arbitrary: headStep },
  { weight: 2, arbitrary: fuzzedOrder },
);
