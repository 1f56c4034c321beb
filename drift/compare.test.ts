/**
 * Hand-made pairs of recordings, one per kind of drift: each must be reported with its
 * operation and JSON path. A pair with different values and the same shapes must
 * report nothing.
 */
import { describe, expect, it } from 'vitest';
import { compareRecordings } from './compare.ts';
import type { Finding } from './finding.ts';
import type { Interaction } from '../recording/recording.ts';
import { baseline, bodiesOf, dataOf, exchange, VALUES_A, VALUES_B } from '../recording/test-support.ts';

const breakingOf = (findings: Finding[]) => findings.filter((f) => f.severity === 'breaking');

describe('compareRecordings: no drift', () => {
  it('reports nothing for a recording compared with itself', () => {
    expect(compareRecordings(baseline(), baseline())).toEqual([]);
  });

  it('reports nothing for different values with the same shapes, either way round', () => {
    // Every id, address, amount, balance, time, txId and outOrderNo differs, and so do
    // the values inside the messages and the polling luck; the shapes do not.
    expect(compareRecordings(baseline(VALUES_A), baseline(VALUES_B))).toEqual([]);
    expect(compareRecordings(baseline(VALUES_B), baseline(VALUES_A))).toEqual([]);
  });
});

describe('compareRecordings: a paced recording that met 429s', () => {
  it('leaves out the 429s the suite waited out and retried, and keeps one it handed to a case', () => {
    const tooMany = { code: 42900, msg: 'Too many requests', time: 1741801809, data: null };
    const retried = baseline(VALUES_B, (interactions) => {
      const price = interactions.findIndex((i) => i.operation === 'getPrice');
      const superseded = structuredClone(interactions[price]!);
      superseded.response = { status: 429, headers: { 'content-type': 'application/json' }, body: tooMany };
      superseded.retried = true;
      interactions[price]!.attempt = 2;
      interactions.splice(price, 0, superseded);
    });
    expect(compareRecordings(baseline(), retried)).toEqual([]);
    // Unmarked, the same 429 is what the case got: drift shows it.
    const unmarked = structuredClone(retried);
    for (const i of unmarked.interactions) delete i.retried;
    expect(compareRecordings(baseline(), unmarked)).toContainEqual(
      expect.objectContaining({ operation: 'getPrice', message: expect.stringContaining('429') as string }),
    );
  });
});

describe('compareRecordings: each kind of drift', () => {
  const drift = (change: Parameters<typeof baseline>[1]) =>
    compareRecordings(baseline(), baseline(VALUES_B, change));

  it('reports a field added, non-breaking', () => {
    const findings = drift((i) => void (dataOf(i, 'getAccount').vipLevel = 3));
    expect(findings).toEqual([
      expect.objectContaining({
        kind: 'field-added',
        severity: 'non-breaking',
        operation: 'getAccount',
        path: '/data/vipLevel',
        response: 'HTTP 2xx, code 0',
      }),
    ]);
  });

  it('reports a field removed, breaking', () => {
    const findings = drift((i) => void delete dataOf(i, 'getPrice').sun);
    expect(findings).toEqual([
      expect.objectContaining({
        kind: 'field-removed',
        severity: 'breaking',
        operation: 'getPrice',
        path: '/data/sun',
      }),
    ]);
  });

  it('reports no removal for the items of an array NEW only saw empty', () => {
    const withList = (list: unknown[]) => (i: Interaction[]) =>
      void (dataOf(i, 'getAccount').referrals = list);
    const findings = compareRecordings(
      baseline(VALUES_A, withList([{ address: 'T1' }])),
      baseline(VALUES_B, withList([])),
    );
    expect(findings).toEqual([]);
  });

  it('reports a number sent as a decimal string', () => {
    const findings = drift((i) => void (dataOf(i, 'createOrder').amount = '4.11'));
    expect(findings).toEqual([
      expect.objectContaining({
        kind: 'type-changed',
        severity: 'breaking',
        operation: 'createOrder',
        path: '/data/amount',
        old: 'number',
        new: 'string (decimal-string, 2 decimals)',
      }),
    ]);
    expect(findings[0]!.message).toMatch(/a number became a decimal string/);
  });

  it('reports a decimal string sent as a number', () => {
    const findings = drift((i) =>
      bodiesOf(i, 'getOrderHistory').forEach((b) => ((b.data as Record<string, unknown>).amount = 4.11)),
    );
    expect(findings).toEqual([
      expect.objectContaining({ kind: 'type-changed', operation: 'getOrderHistory', path: '/data/amount' }),
    ]);
    expect(findings[0]!.message).toMatch(/a numeric string became a number/);
  });

  it('reports a change of the id format', () => {
    const findings = drift(
      (i) => void (dataOf(i, 'createOrder').id = '0f8fad5b-d9cb-469f-a165-70867728950e'),
    );
    expect(findings).toEqual([
      expect.objectContaining({
        kind: 'format-changed',
        severity: 'breaking',
        operation: 'createOrder',
        path: '/data/id',
        old: 'order-id',
        new: 'uuid',
      }),
    ]);
    expect(findings[0]!.message).toMatch(/the id format changed/);
  });

  it('reports a change of the time unit, milliseconds to seconds', () => {
    const findings = drift((i) =>
      bodiesOf(i, 'getOrderHistory').forEach(
        (b) =>
          ((b.data as { createdAt: number }).createdAt = Math.floor(
            (b.data as { createdAt: number }).createdAt / 1000,
          )),
      ),
    );
    expect(findings).toContainEqual(
      expect.objectContaining({
        kind: 'format-changed',
        severity: 'breaking',
        operation: 'getOrderHistory',
        path: '/data/createdAt',
        old: 'time in milliseconds',
        new: 'time in seconds',
      }),
    );
  });

  it('reports a change of the number of decimals where they are a format', () => {
    const findings = drift(
      (i) =>
        void ((dataOf(i, 'getAccount').balance as { available: { usdt: string } }).available.usdt = '55.10'),
    );
    expect(findings).toEqual([
      expect.objectContaining({
        kind: 'format-changed',
        severity: 'breaking',
        operation: 'getAccount',
        path: '/data/balance/available/usdt',
        old: 'always 6 decimals',
        new: 'always 2 decimals',
      }),
    ]);
  });

  it('leaves decimals that only follow the value (trailing zeros dropped)', () => {
    // '1000' then '996.16', '12.5': whole and fractional balances are one shape.
    const findings = drift(
      (i) => void ((dataOf(i, 'getAccount').balance as { frozen: { trx: string } }).frozen.trx = '12.5'),
    );
    expect(findings).toEqual([]);
  });

  it('reports an enum value the spec does not list', () => {
    const findings = drift((i) =>
      bodiesOf(i, 'getOrderHistory').forEach((b) => ((b.data as { currency: string }).currency = 'USDC')),
    );
    expect(findings).toEqual([
      expect.objectContaining({
        kind: 'unknown-enum-value',
        severity: 'breaking',
        operation: 'getOrderHistory',
        path: '/data/currency',
        old: 'TRX, USDT',
        new: 'USDC',
      }),
    ]);
  });

  it('reports a changed message text, non-breaking, but not changed values inside one', () => {
    const findings = drift((i) => void (bodiesOf(i, 'getPrice')[0]!.msg = 'Price estimated'));
    expect(findings).toEqual([
      expect.objectContaining({
        kind: 'message-changed',
        severity: 'non-breaking',
        operation: 'getPrice',
        path: '/msg',
        old: 'Get price successfully',
        new: 'Price estimated',
      }),
    ]);
  });

  it('reports a changed error code', () => {
    const findings = drift((i) => void (bodiesOf(i, 'getOrderHistory', 404)[0]!.code = 40400));
    expect(findings).toContainEqual(
      expect.objectContaining({
        kind: 'code-changed',
        severity: 'breaking',
        operation: 'getOrderHistory',
        response: 'HTTP 404',
        path: '/code',
        old: '40401',
        new: '40400',
      }),
    );
  });

  it('reports a status path never seen before', () => {
    const findings = drift((i) => {
      const statuses = ['PENDING', 'FAILED', 'COMPLETED', 'COMPLETED'];
      bodiesOf(i, 'getOrderHistory').forEach(
        (b, n) => ((b.data as { status: string }).status = statuses[n] ?? 'COMPLETED'),
      );
    });
    expect(breakingOf(findings)).toEqual([
      expect.objectContaining({
        kind: 'new-status-path',
        operation: 'getOrderHistory',
        path: '/data/status',
        new: 'PENDING → FAILED → COMPLETED',
      }),
    ]);
  });

  it('calls a known path with a status left out non-breaking (polling can miss one)', () => {
    const findings = drift((i) =>
      bodiesOf(i, 'getOrderHistory').forEach(
        (b) =>
          ((b.data as { status: string }).status =
            (b.data as { status: string }).status === 'PROCESSING'
              ? 'PENDING'
              : (b.data as { status: string }).status),
      ),
    );
    expect(findings).toEqual([
      expect.objectContaining({
        kind: 'new-status-path',
        severity: 'non-breaking',
        new: 'PENDING → COMPLETED',
      }),
    ]);
  });

  describe('a status one side never showed because of its manual clock', () => {
    // OLD never shows PROCESSING: its manual clock moved in polling steps over it.
    const withoutProcessing = (i: Interaction[]) =>
      bodiesOf(i, 'getOrderHistory').forEach((b) => {
        const data = b.data as { status: string };
        if (data.status === 'PROCESSING') data.status = 'PENDING';
      });
    const sampledOld = (clock: string) => {
      const old = baseline(VALUES_A, withoutProcessing);
      return { ...old, target: { ...old.target, simulator: true, clock } };
    };

    it('is sampling, not drift, when OLD was recorded with a manual clock', () => {
      const findings = compareRecordings(sampledOld('manual'), baseline(VALUES_B));
      expect(breakingOf(findings)).toEqual([]);
      expect(findings).toContainEqual(
        expect.objectContaining({
          kind: 'new-status-path',
          severity: 'non-breaking',
          new: 'PENDING → PROCESSING → COMPLETED',
          message: expect.stringMatching(/manual clock/),
        }),
      );
    });

    it('is sampling when both sides sampled one documented lifecycle differently', () => {
      // OLD (manual) saw PENDING → COMPLETED; NEW polled late and saw PROCESSING → COMPLETED.
      const lateFirstRead = (i: Interaction[]) =>
        bodiesOf(i, 'getOrderHistory').forEach((b) => {
          const data = b.data as { status: string };
          if (data.status === 'PENDING') data.status = 'PROCESSING';
        });
      const findings = compareRecordings(sampledOld('manual'), baseline(VALUES_B, lateFirstRead));
      expect(breakingOf(findings)).toEqual([]);
      expect(
        breakingOf(compareRecordings(sampledOld('real'), baseline(VALUES_B, lateFirstRead))),
      ).toHaveLength(1);
    });

    it('is a new status path when OLD ran on a real clock', () => {
      expect(breakingOf(compareRecordings(sampledOld('real'), baseline(VALUES_B)))).toEqual([
        expect.objectContaining({ kind: 'new-status-path', new: 'PENDING → PROCESSING → COMPLETED' }),
      ]);
    });
  });

  it('reports a timing shift beyond the threshold, non-breaking, and none within it', () => {
    const slow = baseline({
      ...VALUES_A,
      polls: [
        ['PENDING', 0],
        ['PROCESSING', 2],
        ['COMPLETED', 15],
      ],
    });
    expect(compareRecordings(baseline(), slow)).toEqual([
      expect.objectContaining({
        kind: 'timing-shift',
        severity: 'non-breaking',
        operation: 'getOrderHistory',
        old: '5 s',
        new: '15 s',
      }),
    ]);
    expect(compareRecordings(baseline(), slow, { timingThresholdSeconds: 10 })).toEqual([]);
  });

  it('reports a case whose request is now answered with another HTTP status', () => {
    const findings = drift((i) => {
      const rejected = i.find((x) => x.response?.status === 401)!;
      rejected.response = exchange('getAccount', bodiesOf(i, 'getAccount')[0]).response!;
    });
    expect(findings).toContainEqual(
      expect.objectContaining({
        kind: 'response-changed',
        severity: 'breaking',
        operation: 'getAccount',
        old: 'HTTP 401 (code 10002)',
        new: 'HTTP 200 (code 0)',
      }),
    );
  });

  it('reports, as breaking, a request refused where OLD accepted it, with the same HTTP status', () => {
    const findings = drift((i) => {
      const price = i.find((x) => x.operation === 'getPrice' && x.response?.status === 200)!;
      price.response = {
        ...price.response!,
        body: { code: 40003, msg: '数量超出上限', time: '1', data: null },
      };
    });
    expect(findings).toContainEqual(
      expect.objectContaining({
        kind: 'response-changed',
        severity: 'breaking',
        operation: 'getPrice',
        old: 'HTTP 200 (code 0)',
        new: 'HTTP 200 (code 40003)',
        message: expect.stringContaining('refused where OLD accepted it'),
      }),
    );
  });

  it('compares nothing for a request OLD only got a transient answer to (a 429 given up on)', () => {
    const limited = baseline(VALUES_A, (i) => {
      const rejected = i.find((x) => x.response?.status === 401)!;
      rejected.response = {
        ...rejected.response!,
        status: 429,
        body: { code: 42900, msg: 'slow down', time: '1', data: null },
      };
    });
    expect(compareRecordings(limited, baseline()).filter((f) => f.kind === 'response-changed')).toEqual([]);
  });

  it('calls an operation that NEW never called unobserved, non-breaking', () => {
    const findings = drift(
      (i) =>
        void i.splice(
          i.findIndex((x) => x.operation === 'getPrice'),
          1,
        ),
    );
    expect(findings).toEqual([
      expect.objectContaining({
        kind: 'operation-unobserved',
        severity: 'non-breaking',
        operation: 'getPrice',
      }),
    ]);
  });

  it('reports a type change once, not the formats of the new type on top', () => {
    const findings = drift((i) =>
      bodiesOf(i, 'getOrderHistory').forEach(
        (b) => ((b.data as Record<string, unknown>).createdAt = new Date(VALUES_B.createdAtMs).toISOString()),
      ),
    );
    expect(findings).toEqual([
      expect.objectContaining({
        kind: 'type-changed',
        path: '/data/createdAt',
        old: 'integer',
        new: 'string (iso-datetime)',
      }),
    ]);
  });
});
