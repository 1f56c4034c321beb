import { describe, expect, it } from 'vitest';
import {
  decimalRange,
  describeShape,
  fixedDecimals,
  inferRecording,
  inferResponses,
  messageTemplate,
  stringFormat,
} from './infer-schema.ts';
import { timeUnit } from '../recording/order-observations.ts';
import { baseline, exchange, VALUES_A } from '../recording/test-support.ts';

describe('stringFormat', () => {
  it.each([
    ['', 'empty'],
    ['TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3', 'tron-address'],
    ['TT3D8Br4YEkJtvS1DNSj77ymip51BemoP4', 'text'], // bad checksum
    ['OR20250312175009BJ1QRQH7', 'order-id'],
    ['5c3b1e0a9f7d4c2b8a6e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a', 'hex64'],
    ['0f8fad5b-d9cb-469f-a165-70867728950e', 'uuid'],
    ['key-3', 'key-alias'],
    ['65000', 'integer-string'],
    ['4.23', 'decimal-string'],
    ['2025-03-12T17:50:09Z', 'iso-datetime'],
    ['10min', 'text'],
  ])('%j is %s', (value, format) => {
    expect(stringFormat(value)).toBe(format);
  });
});

describe('timeUnit', () => {
  it('tells seconds, milliseconds and microseconds apart by magnitude', () => {
    expect(timeUnit(1_741_801_809)).toBe('seconds');
    expect(timeUnit(1_741_801_809_000)).toBe('milliseconds');
    expect(timeUnit(1_741_801_809_000_000)).toBe('microseconds');
  });
});

describe('messageTemplate', () => {
  it('replaces quoted values, ids, addresses and numbers, and keeps the words', () => {
    expect(
      messageTemplate("Order not found: no order of this account has orderId 'OR20000101000000ZZZZZZZZ'."),
    ).toBe("Order not found: no order of this account has orderId '…'.");
    expect(
      messageTemplate(
        'Insufficient balance: the order costs 4.23 TRX (or 0.80 USDT) but 1.5 TRX are available.',
      ),
    ).toBe('Insufficient balance: the order costs # TRX (or # USDT) but # TRX are available.');
    expect(messageTemplate('rentalCount must be at least 64000.')).toBe('rentalCount must be at least #.');
    expect(messageTemplate('one of 10min, 1h, 1d')).toBe('one of 10min, 1h, 1d');
  });
});

describe('inferResponses', () => {
  it('keys shapes by operation, status class and code, with a shape per JSON path', () => {
    const shapes = inferResponses(baseline().interactions);
    expect([...shapes.keys()].sort()).toEqual([
      'createOrder 2xx code 0',
      'getAccount 2xx code 0',
      'getAccount 4xx code 10002',
      'getOrderHistory 2xx code 0',
      'getOrderHistory 4xx code 40401',
      'getPrice 2xx code 0',
    ]);
    const history = shapes.get('getOrderHistory 2xx code 0')!;
    expect(history.samples).toBe(VALUES_A.polls.length);
    expect(describeShape(history.fields.get('/data/createdAt')!)).toBe('integer');
    expect([...history.fields.get('/data/createdAt')!.timeUnits]).toEqual(['milliseconds']);
    expect([...history.fields.get('/time')!.timeUnits]).toEqual(['seconds']);
    expect(describeShape(history.fields.get('/data/txId')!)).toBe('string (empty, hex64)');
    expect([...history.fields.get('/data/status')!.values]).toEqual(['PENDING', 'PROCESSING', 'COMPLETED']);
    expect(describeShape(shapes.get('getOrderHistory 4xx code 40401')!.fields.get('/data')!)).toBe('null');
  });

  it('proves fixed decimals only where a trailing zero was kept', () => {
    const shapes = inferResponses([
      exchange('x', { usdt: '100.000000', trx: '996.16', mixed: '1000' }),
      exchange('x', { usdt: '0.031748', trx: '12.50', mixed: '4.2' }),
    ]);
    const fields = shapes.get('x 2xx code none')!.fields;
    expect(fixedDecimals(fields.get('/usdt')!)).toBe(6);
    expect(fixedDecimals(fields.get('/trx')!)).toBe(2);
    expect(fixedDecimals(fields.get('/mixed')!)).toBeUndefined();
    expect(decimalRange(fields.get('/mixed')!)).toEqual({ min: 0, max: 1 });
  });

  it('lists array items under /*', () => {
    const fields = inferResponses([
      exchange('x', { timeline: [{ status: 'PENDING', at: 1_741_801_809_000 }] }),
    ]).get('x 2xx code none')!.fields;
    expect(describeShape(fields.get('/timeline')!)).toBe('array');
    expect([...fields.get('/timeline/*/at')!.timeUnits]).toEqual(['milliseconds']);
  });
});

describe('inferRecording', () => {
  it('collects codes per HTTP status, responses per case, and status paths', () => {
    const inferred = inferRecording(baseline());
    expect(inferred.codes.get('getOrderHistory\n200')).toEqual(new Set([0]));
    expect(inferred.codes.get('getOrderHistory\n404')).toEqual(new Set([40401]));
    expect(inferred.statusPaths).toEqual(new Map([['PENDING → PROCESSING → COMPLETED', 1]]));
    expect(inferred.timing.medianSecondsTo).toEqual({ PROCESSING: 2, COMPLETED: 5 });
  });
});
