/**
 * Comparing a recording with spec/openapi.yaml: where the service departs from the
 * document.
 */
import { describe, expect, it } from 'vitest';
import { compareWithSpec } from './compare-spec.ts';
import { documentedStatusPaths } from './spec-schema.ts';
import { baseline, bodiesOf, dataOf, VALUES_A, VALUES_B } from '../recording/test-support.ts';

describe('compareWithSpec', () => {
  it('reports nothing for a recording that fits the document', () => {
    expect(compareWithSpec(baseline(VALUES_A))).toEqual([]);
    expect(compareWithSpec(baseline(VALUES_B))).toEqual([]);
  });

  it('reads the lifecycle from the OrderStatus description', () => {
    expect(documentedStatusPaths()).toEqual([
      ['PENDING', 'PROCESSING', 'COMPLETED'],
      ['PENDING', 'PROCESSING', 'FAILED', 'REFUNDED'],
    ]);
  });

  it('reports a required field missing, a type and a pattern broken, and an unknown enum value', () => {
    const findings = compareWithSpec(
      baseline(VALUES_A, (i) => {
        const price = dataOf(i, 'getPrice');
        delete price.trxPrice;
        price.rentalCount = '64000';
        dataOf(i, 'createOrder').id = 'ord_1';
        bodiesOf(i, 'getOrderHistory').forEach((b) => ((b.data as { period: string }).period = '2h'));
      }),
    );
    expect(findings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          kind: 'field-removed',
          operation: 'getPrice',
          path: '/data/trxPrice',
          severity: 'breaking',
        }),
        expect.objectContaining({
          kind: 'type-changed',
          operation: 'getPrice',
          path: '/data/rentalCount',
          old: 'integer',
          new: '"64000"',
        }),
        expect.objectContaining({ kind: 'format-changed', operation: 'createOrder', path: '/data/id' }),
        expect.objectContaining({
          kind: 'unknown-enum-value',
          operation: 'getOrderHistory',
          path: '/data/period',
          new: '"2h"',
        }),
      ]),
    );
    expect(findings.find((f) => f.path === '/data/period')!.message).toMatch(/Seen 5 times/);
  });

  it('reports a field the document does not declare, once, at its top', () => {
    const findings = compareWithSpec(
      baseline(VALUES_A, (i) => void (dataOf(i, 'getAccount').vip = { level: 3, since: 1 })),
    );
    expect(findings).toEqual([
      expect.objectContaining({
        kind: 'field-added',
        severity: 'non-breaking',
        operation: 'getAccount',
        path: '/data/vip',
        old: 'not in the document',
      }),
    ]);
  });

  it('reports a time unit other than the example, noting that the field is unverified', () => {
    const findings = compareWithSpec(
      baseline(VALUES_A, (i) =>
        bodiesOf(i, 'getOrderHistory').forEach(
          (b) => ((b.data as { createdAt: number }).createdAt = 1_741_801_809),
        ),
      ),
    );
    expect(findings).toEqual([
      expect.objectContaining({
        kind: 'format-changed',
        operation: 'getOrderHistory',
        path: '/data/createdAt',
        old: 'time in milliseconds',
        new: 'time in seconds',
      }),
    ]);
    expect(findings[0]!.message).toMatch(/x-unverified/);
  });

  it('reports fixed decimals other than the example', () => {
    const findings = compareWithSpec(
      baseline(
        VALUES_A,
        (i) =>
          void ((dataOf(i, 'getAccount').balance as { available: { usdt: string } }).available.usdt =
            '100.00'),
      ),
    );
    expect(findings).toEqual([
      expect.objectContaining({
        kind: 'format-changed',
        operation: 'getAccount',
        path: '/data/balance/available/usdt',
        old: '6 decimals in the example',
        new: 'always 2 decimals',
      }),
    ]);
  });

  it('reports a status path the documented lifecycle does not allow', () => {
    const findings = compareWithSpec(
      baseline(VALUES_A, (i) => {
        const statuses = ['PENDING', 'COMPLETED', 'PROCESSING', 'COMPLETED', 'COMPLETED'];
        bodiesOf(i, 'getOrderHistory').forEach(
          (b, n) => ((b.data as { status: string }).status = statuses[n]!),
        );
      }),
    );
    expect(findings).toEqual([
      expect.objectContaining({
        kind: 'new-status-path',
        severity: 'breaking',
        new: 'PENDING → COMPLETED → PROCESSING → COMPLETED',
      }),
    ]);
  });

  it('checks a rejection of a service that is not a simulator against the bare envelope only', () => {
    // The baseline is of a URL that is not a simulator: its 404 and 401 only need code, msg and time.
    const findings = compareWithSpec(
      baseline(VALUES_A, (i) => void (bodiesOf(i, 'getOrderHistory', 404)[0]!.msg = 42)),
    );
    expect(findings).toEqual([
      expect.objectContaining({
        kind: 'type-changed',
        operation: 'getOrderHistory',
        response: 'HTTP 4xx, code 40401',
        path: '/msg',
      }),
    ]);
  });
});
