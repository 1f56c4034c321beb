import { describe, expect, it } from 'vitest';
import { accountFromSnapshot } from './accounts.ts';
import { Order, ORDER_STATUSES } from './order.ts';
import type { PERIODS } from './pricing.ts';

const books = { deposited: 0, available: 0, frozen: 0, spent: 0 };
const ACCOUNT = accountFromSnapshot({
  id: 1,
  keyDigest: 'digest',
  walletAddress: 'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3',
  referralCount: 0,
  ledger: { TRX: books, USDT: books },
  evictedSpent: { TRX: 0, USDT: 0 },
});
const START = 1_741_801_809_000;
const TX_HEX = Buffer.from(Uint8Array.from({ length: 32 }, (_, i) => 255 - i)).toString('hex');

function order(
  overrides: {
    period?: (typeof PERIODS)[number];
    currency?: 'TRX' | 'USDT';
    outcome?: 'COMPLETED' | 'FAILED';
    forced?: boolean;
    activates?: boolean;
    tx?: string;
  } = {},
): Order {
  return new Order({
    id: 'OR20250312175009ZQAS3GWA',
    account: ACCOUNT,
    pledgeAddress: 'TA4Wt1DUCqz6YegbnsmqsWC5uUfbdBqPxm',
    rentalCount: 65_000,
    period: overrides.period ?? '1h',
    currency: overrides.currency ?? 'TRX',
    amount: 4_230_000,
    createdAt: START,
    outOrderNo: 'my-order-1',
    plannedTxId: overrides.tx ?? TX_HEX,
    outcome: overrides.outcome ?? 'COMPLETED',
    forced: overrides.forced ?? false,
    activates: overrides.activates ?? false,
    processingAfter: 1_435,
    outcomeAfter: 3_586,
    refundAfter: 5_672,
  });
}

describe('order', () => {
  it('reads back what it was created with', () => {
    const o = order();
    expect({
      id: o.id,
      account: o.account,
      pledgeAddress: o.pledgeAddress,
      rentalCount: o.rentalCount,
      period: o.period,
      currency: o.currency,
      amount: o.amount,
    }).toEqual({
      id: 'OR20250312175009ZQAS3GWA',
      account: ACCOUNT,
      pledgeAddress: 'TA4Wt1DUCqz6YegbnsmqsWC5uUfbdBqPxm',
      rentalCount: 65_000,
      period: '1h',
      currency: 'TRX',
      amount: 4_230_000,
    });
    expect({
      createdAt: o.createdAt,
      outOrderNo: o.outOrderNo,
      outcome: o.outcome,
      forced: o.forced,
      activates: o.activates,
    }).toEqual({
      createdAt: START,
      outOrderNo: 'my-order-1',
      outcome: 'COMPLETED',
      forced: false,
      activates: false,
    });
    expect([o.processingAfter, o.outcomeAfter, o.refundAfter]).toEqual([1_435, 3_586, 5_672]);
    expect([
      o.status,
      o.processingAt,
      o.outcomeAt,
      o.refundedAt,
      o.refunds,
      o.reserved,
      o.failureReason,
    ]).toEqual(['PENDING', 0, 0, 0, 0, false, undefined]);
    expect(o.plannedTxId).toBe(TX_HEX);
  });

  it('changes status, outcome, reservation and refunds without disturbing the rest', () => {
    const o = order({ period: '30d', currency: 'USDT', activates: true });
    for (const status of ORDER_STATUSES) {
      o.status = status;
      expect(o.status).toBe(status);
    }
    o.outcome = 'FAILED';
    o.reserved = true;
    o.refunds++;
    o.refunds++;
    expect([o.status, o.outcome, o.reserved, o.refunds, o.period, o.currency, o.activates, o.forced]).toEqual(
      ['REFUNDED', 'FAILED', true, 2, '30d', 'USDT', true, false],
    );
    o.reserved = false;
    o.refunds = 0;
    o.outcome = 'COMPLETED';
    expect([o.status, o.outcome, o.reserved, o.refunds, o.period]).toEqual([
      'REFUNDED',
      'COMPLETED',
      false,
      0,
      '30d',
    ]);
  });

  it('starts PENDING', () => {
    expect(order().status).toBe('PENDING');
  });

  it('shows its txId only once COMPLETED', () => {
    const o = order();
    for (const status of ORDER_STATUSES) {
      o.status = status;
      expect(o.txId).toBe(status === 'COMPLETED' ? TX_HEX : '');
    }
  });

  it('keeps a failure reason and a txId that is not 64 hex digits, as restored from a hand-made state file', () => {
    const o = order({ tx: 'not-a-hex-txid' });
    expect(o.plannedTxId).toBe('not-a-hex-txid');
    expect(o.failureReason).toBeUndefined();
    o.failureReason = 'insufficient supply: 0 energy left, 65000 ordered';
    expect(o.failureReason).toBe('insufficient supply: 0 energy left, 65000 ordered');
    expect(o.plannedTxId).toBe('not-a-hex-txid');
    o.failureReason = undefined;
    expect(o.failureReason).toBeUndefined();
    expect(order({ tx: TX_HEX }).plannedTxId).toBe(TX_HEX);
  });

  it('builds its timeline from the times of its steps', () => {
    const o = order({ activates: true });
    o.status = 'PROCESSING';
    o.processingAt = START + 1_500;
    o.status = 'FAILED';
    o.outcome = 'FAILED';
    o.outcomeAt = START + 3_600;
    o.failureReason = 'insufficient supply';
    o.status = 'REFUNDED';
    o.refundedAt = START + 5_700;
    expect(o.timeline()).toEqual([
      { status: 'PENDING', at: START },
      { status: 'PROCESSING', at: START + 1_500, note: 'activated the pledge address' },
      { status: 'FAILED', at: START + 3_600, note: 'insufficient supply' },
      { status: 'REFUNDED', at: START + 5_700 },
    ]);
  });
});

describe('order snapshot', () => {
  it('comes back from its snapshot with every stored field, as far along as it was', () => {
    const o = order({ outcome: 'FAILED', forced: true, activates: true, currency: 'USDT', period: '3d' });
    o.status = 'REFUNDED';
    o.processingAt = START + 1_435;
    o.outcomeAt = START + 3_586;
    o.refundedAt = START + 5_672;
    o.refunds = 1;
    o.failureReason = 'forced by rule r-1';
    const saved = o.toSnapshot();
    const back = Order.fromSnapshot(ACCOUNT, structuredClone(saved));
    expect(back.toSnapshot()).toEqual(saved);
    expect(back.timeline()).toEqual(o.timeline());
    expect(saved).toMatchObject({
      accountId: ACCOUNT.id,
      plannedTxId: TX_HEX,
      outOrderNo: 'my-order-1',
      reserved: false,
    });
  });

  it('leaves optional fields out of the snapshot rather than writing undefined', () => {
    const o = new Order({
      ...order().toSnapshot(),
      account: ACCOUNT,
      outOrderNo: undefined,
    });
    const saved = o.toSnapshot();
    expect('outOrderNo' in saved).toBe(false);
    expect('failureReason' in saved).toBe(false);
  });
});
