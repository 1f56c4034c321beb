/**
 * The proxy's allow-list: only the exact canonical spelling of a documented operation, with
 * its documented method, may be forwarded; every other spelling of an API path is named as
 * such, and every spelling of the order path counts as an order.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadSpec } from '../../src/spec/loader.ts';
import { orderSpelling } from '../test-support/order-spellings.ts';
import { createEdgeClassifier, normalisePath } from './edge-classifier.ts';

const classify = createEdgeClassifier(loadSpec('api').operations);
const ORDER = '/v1/tron/order';

describe('the edge classifier', () => {
  it.each([
    ['POST', '/v1/tron/order', 'createOrder', true],
    ['POST', '/api/v1/tron/order', 'createOrder', true],
    ['GET', '/v1/tron/price?rentalCount=65000&period=1h', 'getPrice', false],
    ['GET', '/api/v1/tron/history?orderId=OR1', 'getOrderHistory', false],
    ['GET', '/v1/account', 'getAccount', false],
    ['GET', 'http://127.0.0.1:8787/v1/account', 'getAccount', false],
  ])('lets %s %s through as %s', (method, target, operationId, order) => {
    expect(classify(method, target)).toEqual({ kind: 'api', operationId, order });
  });

  it.each([
    '/v1/tron/order/',
    '/api/v1/tron/order/',
    '/v1/tron//order',
    '/v1//tron/order',
    '/v1/tron/ORDER',
    '/v1/Tron/order',
    '/v1/tron%2Forder',
    '/v1/tron/order%2F',
    '/v1/tron/order;x=1',
    '/v1/tron/order%3B',
    '/v1/tron/order%20',
    '/v1/tron/order%00',
    '/v1/tron/order.json',
    '/v1/tron/%252e/order',
    '/v1/tron/./order',
    '/v1/tron/x/../order',
    '/v1\\tron\\order',
    '/API/v1/tron/order',
  ])('answers the spelling %s of the order path locally, naming the canonical path', (target) => {
    for (const method of ['POST', 'GET', 'PUT']) {
      expect(classify(method, target)).toEqual({
        kind: 'misspelled',
        operationId: 'createOrder',
        canonical: ORDER,
        order: true,
      });
    }
  });

  it.each(['PUT', 'PATCH', 'DELETE', 'OPTIONS', 'GET', 'HEAD', 'TRACE', 'CONNECT'])(
    'refuses %s on the exact order path with the documented method, and counts it as an order',
    (method) => {
      expect(classify(method, ORDER)).toEqual({
        kind: 'wrong-method',
        operationId: 'createOrder',
        allowed: 'POST',
        canonical: ORDER,
        order: true,
      });
    },
  );

  it('names a read path spelled otherwise, without counting it as an order', () => {
    expect(classify('GET', '/v1/tron/price/')).toMatchObject({
      kind: 'misspelled',
      canonical: '/v1/tron/price',
      order: false,
    });
    expect(classify('HEAD', '/v1/account')).toMatchObject({
      kind: 'wrong-method',
      allowed: 'GET',
      order: false,
    });
  });

  it('marks an unknown path that names an order segment, whatever else it says', () => {
    expect(classify('GET', '/v2/tron/order')).toEqual({ kind: 'unknown', order: true });
    expect(classify('GET', '/v1/tron/order/..')).toEqual({ kind: 'unknown', order: true });
    expect(classify('GET', '/v1/orders/ORDER.xml')).toEqual({ kind: 'unknown', order: true });
    expect(classify('GET', '/v2/status')).toEqual({ kind: 'unknown', order: false });
    expect(classify('GET', '/v1/tron')).toEqual({ kind: 'unknown', order: false });
  });

  it('normalises a path as the most lenient server would route it', () => {
    expect(normalisePath('/API/v1//Tron/order.json;x=1/').path).toBe('/v1/tron/order');
    expect(normalisePath('/v1/tron/%2525%32%65/order').path).toBe('/v1/tron/order');
    expect(normalisePath('/v1/tron/order/%').path).toBe('/v1/tron/order/%');
  });
});

describe('the edge classifier over generated spellings of the order path', () => {
  it('forwards only the two exact spellings, with POST, and counts every one as an order', () => {
    fc.assert(
      fc.property(
        orderSpelling,
        fc.constantFrom('POST', 'GET', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'),
        (target, method) => {
          const verdict = classify(method, target);
          const exact = target === ORDER || target === '/api' + ORDER;
          expect(verdict.kind === 'api').toBe(exact && method === 'POST');
          expect(verdict.order).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
