import { describe, expect, it } from 'vitest';
import { encodeTronAddress } from '../../src/tron-address.ts';
import { createManualClock } from './manual-clock.ts';
import { createEngine, type Scenario } from './index.ts';
import { PERIOD_MS } from './pricing.ts';

const KEY = 'k';
const PLEDGE = 'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3';

function address(n: number): string {
  return encodeTronAddress(new Uint8Array(20).fill(n));
}

function funded(extra: Scenario = {}): Scenario {
  return {
    accounts: [{ apiKey: KEY, trx: 10_000_000_000 }],
    activatedAddresses: [PLEDGE, address(1), address(2)],
    ...extra,
  };
}

describe('outcome rules', () => {
  it('forces the outcome of orders to a matching pledgeAddress only', () => {
    const clock = createManualClock();
    const engine = createEngine({
      clock,
      seed: 1,
      scenario: funded({ rules: [{ match: { pledgeAddress: address(1) }, outcome: 'FAILED' }] }),
    });
    const account = engine.authenticate(KEY)!;
    const hit = engine.createOrder(account, {
      pledgeAddress: address(1),
      rentalCount: 65_000,
      period: '1h',
    }).order;
    const miss = engine.createOrder(account, {
      pledgeAddress: address(2),
      rentalCount: 65_000,
      period: '1h',
    }).order;
    const hitAgain = engine.createOrder(account, {
      pledgeAddress: address(1),
      rentalCount: 65_000,
      period: '1h',
    }).order;
    clock.advance(20_000);
    expect([hit.status, miss.status, hitAgain.status]).toEqual(['REFUNDED', 'COMPLETED', 'REFUNDED']);
    expect(hit.forced).toBe(true);
    expect(miss.forced).toBe(false);
    // A rule without `times` stays.
    expect(engine.rules.list()).toEqual([
      { id: 'rule-1', match: { pledgeAddress: address(1) }, outcome: 'FAILED', used: 2 },
    ]);
  });

  it('forces the outcome of the order with a matching outOrderNo only', () => {
    const clock = createManualClock();
    const engine = createEngine({
      clock,
      seed: 1,
      scenario: funded({ rules: [{ match: { outOrderNo: 'doomed' }, outcome: 'FAILED' }] }),
    });
    const account = engine.authenticate(KEY)!;
    const plain = engine.createOrder(account, {
      pledgeAddress: PLEDGE,
      rentalCount: 65_000,
      period: '1h',
    }).order;
    const other = engine.createOrder(account, {
      pledgeAddress: PLEDGE,
      rentalCount: 65_000,
      period: '1h',
      outOrderNo: 'fine',
    }).order;
    const doomed = engine.createOrder(account, {
      pledgeAddress: PLEDGE,
      rentalCount: 65_000,
      period: '1h',
      outOrderNo: 'doomed',
    }).order;
    clock.advance(20_000);
    expect([plain.status, other.status, doomed.status]).toEqual(['COMPLETED', 'COMPLETED', 'REFUNDED']);
  });

  it('requires every field of a match to agree', () => {
    const clock = createManualClock();
    const engine = createEngine({
      clock,
      seed: 1,
      scenario: {
        accounts: [
          { apiKey: 'a', trx: 1_000_000_000 },
          { apiKey: 'b', trx: 1_000_000_000 },
        ],
        rules: [{ match: { pledgeAddress: address(1), outOrderNo: 'x' }, outcome: 'FAILED' }],
      },
    });
    const a = engine.authenticate('a')!;
    const b = engine.authenticate('b')!;
    const onlyAddress = engine.createOrder(a, {
      pledgeAddress: address(1),
      rentalCount: 65_000,
      period: '1h',
      outOrderNo: 'y',
    }).order;
    const onlyNo = engine.createOrder(a, {
      pledgeAddress: address(2),
      rentalCount: 65_000,
      period: '1h',
      outOrderNo: 'x',
    }).order;
    const both = engine.createOrder(b, {
      pledgeAddress: address(1),
      rentalCount: 65_000,
      period: '1h',
      outOrderNo: 'x',
    }).order;
    expect([onlyAddress.outcome, onlyNo.outcome, both.outcome]).toEqual(['COMPLETED', 'COMPLETED', 'FAILED']);
  });

  it('applies an empty match with times N to exactly the next N orders, then drops the rule', () => {
    const clock = createManualClock();
    const engine = createEngine({ clock, seed: 1, scenario: funded() });
    const account = engine.authenticate(KEY)!;
    const rule = engine.rules.add({ match: {}, outcome: 'FAILED', times: 3 });
    expect(rule).toEqual({ id: 'rule-1', match: {}, outcome: 'FAILED', times: 3, used: 0 });
    const outcomes: string[] = [];
    for (let i = 0; i < 5; i++) {
      outcomes.push(
        engine.createOrder(account, { pledgeAddress: address(i), rentalCount: 65_000, period: '1h' }).order
          .outcome,
      );
      if (i === 1) expect(engine.rules.list()).toEqual([{ ...rule, used: 2 }]);
    }
    expect(outcomes).toEqual(['FAILED', 'FAILED', 'FAILED', 'COMPLETED', 'COMPLETED']);
    expect(engine.rules.list()).toEqual([]);
  });

  it('forces COMPLETED over a failure rate of 1', () => {
    const clock = createManualClock();
    const engine = createEngine({
      clock,
      seed: 1,
      scenario: funded({ settings: { failureRate: 1 }, rules: [{ outcome: 'COMPLETED', times: 1 }] }),
    });
    const account = engine.authenticate(KEY)!;
    const forced = engine.createOrder(account, {
      pledgeAddress: PLEDGE,
      rentalCount: 65_000,
      period: '1h',
    }).order;
    const free = engine.createOrder(account, {
      pledgeAddress: PLEDGE,
      rentalCount: 65_000,
      period: '1h',
    }).order;
    expect([forced.outcome, free.outcome]).toEqual(['COMPLETED', 'FAILED']);
  });

  it('fixes the time from creation to the outcome with delayMs, whatever the profile', () => {
    for (const timing of ['realistic', 'fast', 'instant'] as const) {
      const clock = createManualClock();
      const engine = createEngine({
        clock,
        seed: 1,
        scenario: funded({ settings: { timing }, rules: [{ outcome: 'COMPLETED', delayMs: 12_345 }] }),
      });
      const account = engine.authenticate(KEY)!;
      const { order } = engine.createOrder(account, {
        pledgeAddress: PLEDGE,
        rentalCount: 65_000,
        period: '1h',
      });
      clock.advance(12_344);
      expect(order.status).toBe('PROCESSING');
      clock.advance(1);
      expect(order.status).toBe('COMPLETED');
      expect(order.outcomeAt - order.createdAt).toBe(12_345);
      expect(order.processingAt - order.createdAt).toBe(6_172);
    }
  });

  it('fixes the time to a forced failure with delayMs and refunds after it', () => {
    const clock = createManualClock();
    const engine = createEngine({
      clock,
      seed: 1,
      scenario: funded({ rules: [{ outcome: 'FAILED', delayMs: 100 }] }),
    });
    const account = engine.authenticate(KEY)!;
    const { order } = engine.createOrder(account, {
      pledgeAddress: PLEDGE,
      rentalCount: 65_000,
      period: '1h',
    });
    clock.advance(100);
    expect(order.status).toBe('FAILED');
    expect(order.outcomeAt - order.createdAt).toBe(100);
    clock.advance(3_000);
    expect(order.status).toBe('REFUNDED');
    expect(order.refundedAt - order.outcomeAt).toBeGreaterThanOrEqual(1_000);
  });

  it('delivers an order with delayMs 0 before createOrder returns', () => {
    const clock = createManualClock();
    const engine = createEngine({
      clock,
      seed: 1,
      scenario: funded({ rules: [{ outcome: 'COMPLETED', delayMs: 0 }] }),
    });
    const { order } = engine.createOrder(engine.authenticate(KEY)!, {
      pledgeAddress: PLEDGE,
      rentalCount: 65_000,
      period: '1h',
    });
    expect(order.status).toBe('COMPLETED');
  });

  it('tries rules in the order they were added, using up only the first match', () => {
    const clock = createManualClock();
    const engine = createEngine({ clock, seed: 1, scenario: funded() });
    const account = engine.authenticate(KEY)!;
    const first = engine.rules.add({ match: { pledgeAddress: address(1) }, outcome: 'FAILED', times: 1 });
    const second = engine.rules.add({ match: {}, outcome: 'COMPLETED', delayMs: 777, times: 2 });
    const a = engine.createOrder(account, {
      pledgeAddress: address(1),
      rentalCount: 65_000,
      period: '1h',
    }).order;
    expect(a.outcome).toBe('FAILED');
    expect(engine.rules.list()).toEqual([{ ...second, used: 0 }]);
    const b = engine.createOrder(account, {
      pledgeAddress: address(1),
      rentalCount: 65_000,
      period: '1h',
    }).order;
    expect(b.outcome).toBe('COMPLETED');
    expect(b.outcomeAfter).toBe(777);
    expect(first.id).toBe('rule-1');
    expect(second.id).toBe('rule-2');
  });

  it('tries an earlier general rule before a later specific one', () => {
    const clock = createManualClock();
    const engine = createEngine({ clock, seed: 1, scenario: funded() });
    const account = engine.authenticate(KEY)!;
    engine.rules.add({ match: {}, outcome: 'COMPLETED', times: 1 });
    engine.rules.add({ match: { pledgeAddress: address(1) }, outcome: 'FAILED' });
    const a = engine.createOrder(account, {
      pledgeAddress: address(1),
      rentalCount: 65_000,
      period: '1h',
    }).order;
    const b = engine.createOrder(account, {
      pledgeAddress: address(1),
      rentalCount: 65_000,
      period: '1h',
    }).order;
    expect([a.outcome, b.outcome]).toEqual(['COMPLETED', 'FAILED']);
  });

  it('removes a rule by id, reporting whether it existed', () => {
    const clock = createManualClock();
    const engine = createEngine({ clock, seed: 1, scenario: funded() });
    const account = engine.authenticate(KEY)!;
    const doomed = engine.rules.add({ match: {}, outcome: 'FAILED' });
    const kept = engine.rules.add({ match: { pledgeAddress: address(2) }, outcome: 'FAILED' });
    expect(engine.rules.remove(doomed.id)).toBe(true);
    expect(engine.rules.remove(doomed.id)).toBe(false);
    expect(engine.rules.remove('rule-99')).toBe(false);
    expect(engine.rules.list().map((r) => r.id)).toEqual([kept.id]);
    expect(
      engine.createOrder(account, { pledgeAddress: address(1), rentalCount: 65_000, period: '1h' }).order
        .outcome,
    ).toBe('COMPLETED');
    expect(
      engine.createOrder(account, { pledgeAddress: address(2), rentalCount: 65_000, period: '1h' }).order
        .outcome,
    ).toBe('FAILED');
  });

  it('drops every rule on clear(), and keeps numbering new rules after it', () => {
    const clock = createManualClock();
    const engine = createEngine({
      clock,
      seed: 1,
      scenario: funded({ rules: [{ outcome: 'FAILED' }, { outcome: 'FAILED' }] }),
    });
    const account = engine.authenticate(KEY)!;
    engine.rules.clear();
    expect(engine.rules.list()).toEqual([]);
    expect(
      engine.createOrder(account, { pledgeAddress: PLEDGE, rentalCount: 65_000, period: '1h' }).order.outcome,
    ).toBe('COMPLETED');
    expect(engine.rules.add({ outcome: 'FAILED' }).id).toBe('rule-3');
  });

  it('hands out copies of rules, so changing a listed rule changes nothing', () => {
    const clock = createManualClock();
    const engine = createEngine({ clock, seed: 1, scenario: funded() });
    const account = engine.authenticate(KEY)!;
    const match = { pledgeAddress: address(1) };
    engine.rules.add({ match, outcome: 'FAILED' });
    match.pledgeAddress = address(2);
    const [listed] = engine.rules.list();
    listed!.match.pledgeAddress = address(2);
    listed!.outcome = 'COMPLETED';
    expect(
      engine.createOrder(account, { pledgeAddress: address(1), rentalCount: 65_000, period: '1h' }).order
        .outcome,
    ).toBe('FAILED');
    expect(
      engine.createOrder(account, { pledgeAddress: address(2), rentalCount: 65_000, period: '1h' }).order
        .outcome,
    ).toBe('COMPLETED');
  });
});

describe('address activation', () => {
  it('activates an unactivated address exactly once, when the first order to it starts processing', () => {
    const clock = createManualClock();
    const engine = createEngine({ clock, seed: 3, scenario: funded() });
    const account = engine.authenticate(KEY)!;
    const target = address(50);
    expect(engine.address(target)).toEqual({ address: target, activated: false });
    const first = engine.createOrder(account, {
      pledgeAddress: target,
      rentalCount: 65_000,
      period: '1h',
    }).order;
    expect(first.activates).toBe(true);
    expect(engine.address(target)).toMatchObject({ activated: false, claimedByOrderId: first.id });
    clock.advance(first.processingAfter - 1);
    expect(engine.address(target).activated).toBe(false);
    clock.advance(1);
    expect(first.status).toBe('PROCESSING');
    expect(engine.address(target)).toEqual({
      address: target,
      activated: true,
      activatedAt: first.processingAt,
      activatedByOrderId: first.id,
    });
    expect(first.timeline()[1]).toEqual({
      status: 'PROCESSING',
      at: first.processingAt,
      note: 'activated the pledge address',
    });
    clock.advance(20_000);
    expect(engine.address(target).activatedByOrderId).toBe(first.id);
    expect(engine.addresses().filter((r) => r.address === target)).toHaveLength(1);
  });

  it('does not re-activate for a second concurrent order to the same address, nor delay it', () => {
    const clock = createManualClock();
    const engine = createEngine({
      clock,
      seed: 3,
      scenario: funded({ settings: { activationDelayMs: 50_000 } }),
    });
    const account = engine.authenticate(KEY)!;
    const target = address(51);
    const first = engine.createOrder(account, {
      pledgeAddress: target,
      rentalCount: 65_000,
      period: '1h',
    }).order;
    clock.advance(100);
    const second = engine.createOrder(account, {
      pledgeAddress: target,
      rentalCount: 65_000,
      period: '1h',
    }).order;
    expect(first.activates).toBe(true);
    expect(second.activates).toBe(false);
    expect(first.outcomeAfter).toBeGreaterThanOrEqual(53_000);
    expect(second.outcomeAfter).toBeGreaterThanOrEqual(3_000);
    expect(second.outcomeAfter).toBeLessThanOrEqual(6_000);
    clock.advance(10_000);
    expect(second.status).toBe('COMPLETED');
    expect(second.timeline()[1]).toEqual({ status: 'PROCESSING', at: second.processingAt });
    expect(engine.address(target).activatedByOrderId).toBe(first.id);
    expect(engine.address(target).activatedAt).toBe(first.processingAt);
    clock.advance(60_000);
    expect(first.status).toBe('COMPLETED');
    expect(engine.address(target).activatedByOrderId).toBe(first.id);
  });

  it('does not activate for an order to an address activated by an earlier order', () => {
    const clock = createManualClock();
    const engine = createEngine({ clock, seed: 3, scenario: funded() });
    const account = engine.authenticate(KEY)!;
    const target = address(52);
    const first = engine.createOrder(account, {
      pledgeAddress: target,
      rentalCount: 65_000,
      period: '1h',
    }).order;
    clock.advance(20_000);
    const later = engine.createOrder(account, {
      pledgeAddress: target,
      rentalCount: 65_000,
      period: '1h',
    }).order;
    expect(later.activates).toBe(false);
    clock.advance(20_000);
    expect(engine.address(target).activatedByOrderId).toBe(first.id);
  });

  it('adds the configured activationDelayMs to the delivery of the activating order', () => {
    const run = (activated: boolean, activationDelayMs?: number) => {
      const clock = createManualClock();
      const target = address(53);
      const settings = activationDelayMs === undefined ? {} : { activationDelayMs };
      const engine = createEngine({
        clock,
        seed: 44,
        scenario: funded({ settings, activatedAddresses: activated ? [target] : [] }),
      });
      const { order } = engine.createOrder(engine.authenticate(KEY)!, {
        pledgeAddress: target,
        rentalCount: 65_000,
        period: '1h',
      });
      clock.advance(60_000);
      expect(order.status).toBe('COMPLETED');
      return order.outcomeAt - order.createdAt;
    };
    const plain = run(true, 2_500);
    expect(run(false, 2_500) - plain).toBe(2_500);
    expect(run(false, 0) - plain).toBe(0);
    // Without a configured delay the realistic profile adds 1000 ms.
    expect(run(false) - run(true)).toBe(1_000);
  });

  it('starts with the seeded activatedAddresses activated, so orders to them do not activate', () => {
    const clock = createManualClock();
    const engine = createEngine({ clock, seed: 3, scenario: funded() });
    expect(engine.address(PLEDGE)).toEqual({ address: PLEDGE, activated: true, activatedAt: clock.now() });
    expect(
      engine
        .addresses()
        .map((r) => r.address)
        .sort(),
    ).toEqual([PLEDGE, address(1), address(2)].sort());
    const { order } = engine.createOrder(engine.authenticate(KEY)!, {
      pledgeAddress: PLEDGE,
      rentalCount: 65_000,
      period: '1h',
    });
    expect(order.activates).toBe(false);
    clock.advance(20_000);
    expect(engine.address(PLEDGE).activatedByOrderId).toBeUndefined();
  });

  it('sets an address activated or not with setAddress, deciding whether the next order activates it', () => {
    const clock = createManualClock();
    const engine = createEngine({ clock, seed: 3, scenario: funded() });
    const account = engine.authenticate(KEY)!;
    const target = address(54);
    clock.advance(5_000);
    expect(engine.setAddress(target, true)).toEqual({
      address: target,
      activated: true,
      activatedAt: clock.now(),
    });
    expect(
      engine.createOrder(account, { pledgeAddress: target, rentalCount: 65_000, period: '1h' }).order
        .activates,
    ).toBe(false);
    expect(engine.setAddress(PLEDGE, false)).toEqual({ address: PLEDGE, activated: false });
    expect(engine.address(PLEDGE).activated).toBe(false);
    const reactivating = engine.createOrder(account, {
      pledgeAddress: PLEDGE,
      rentalCount: 65_000,
      period: '1h',
    }).order;
    expect(reactivating.activates).toBe(true);
    clock.advance(20_000);
    expect(engine.address(PLEDGE)).toMatchObject({ activated: true, activatedByOrderId: reactivating.id });
  });
});

describe('supply', () => {
  it('fails and refunds an order that does not fit in the remaining supply, naming the reason', () => {
    const clock = createManualClock();
    const engine = createEngine({ clock, seed: 5, scenario: funded() });
    const account = engine.authenticate(KEY)!;
    expect(engine.setSupply(100_000)).toEqual({ energy: 100_000, delegated: 0 });
    const fits = engine.createOrder(account, {
      pledgeAddress: PLEDGE,
      rentalCount: 65_000,
      period: '1h',
    }).order;
    // Supply is taken when processing starts, so let the first order get there first.
    clock.advance(fits.processingAfter);
    expect(engine.supply()).toEqual({ energy: 100_000, delegated: 65_000 });
    const tooMuch = engine.createOrder(account, {
      pledgeAddress: PLEDGE,
      rentalCount: 65_000,
      period: '1h',
    }).order;
    const before = structuredClone(account.ledger);
    clock.advance(20_000);
    expect(fits.status).toBe('COMPLETED');
    expect(fits.failureReason).toBeUndefined();
    expect(tooMuch.status).toBe('REFUNDED');
    expect(tooMuch.failureReason).toBe('insufficient supply: 35000 energy left, 65000 ordered');
    expect(tooMuch.timeline()[2]).toEqual({
      status: 'FAILED',
      at: tooMuch.outcomeAt,
      note: tooMuch.failureReason,
    });
    expect(engine.supply()).toEqual({ energy: 100_000, delegated: 65_000 });
    expect(account.ledger.TRX.frozen).toBe(0);
    expect(account.ledger.TRX.available).toBe(before.TRX.available + 4_230_000);
    expect(account.ledger.TRX.spent).toBe(4_230_000);
    expect(engine.checkInvariants()).toEqual([]);
  });

  it('accepts an order that exactly uses up the supply', () => {
    const clock = createManualClock();
    const engine = createEngine({ clock, seed: 5, scenario: funded({ supply: 130_000 }) });
    const account = engine.authenticate(KEY)!;
    expect(engine.supply()).toEqual({ energy: 130_000, delegated: 0 });
    const a = engine.createOrder(account, { pledgeAddress: PLEDGE, rentalCount: 65_000, period: '1h' }).order;
    const b = engine.createOrder(account, { pledgeAddress: PLEDGE, rentalCount: 65_000, period: '1h' }).order;
    clock.advance(20_000);
    expect([a.status, b.status]).toEqual(['COMPLETED', 'COMPLETED']);
    expect(engine.supply().delegated).toBe(130_000);
  });

  it('returns the energy to the pool exactly when the rental period ends', () => {
    const clock = createManualClock();
    const engine = createEngine({ clock, seed: 5, scenario: funded({ supply: 65_000 }) });
    const account = engine.authenticate(KEY)!;
    const rented = engine.createOrder(account, {
      pledgeAddress: PLEDGE,
      rentalCount: 65_000,
      period: '10min',
    }).order;
    clock.advance(10_000);
    expect(rented.status).toBe('COMPLETED');
    expect(engine.supply().delegated).toBe(65_000);
    const end = rented.outcomeAt + PERIOD_MS['10min'];
    clock.advance(end - clock.now() - 1);
    expect(engine.supply().delegated).toBe(65_000);
    // An order processed a millisecond before the end finds no supply.
    engine.updateSettings({ timing: 'instant' });
    const refused = engine.createOrder(account, {
      pledgeAddress: PLEDGE,
      rentalCount: 64_000,
      period: '1h',
    }).order;
    expect(refused.status).toBe('REFUNDED');
    clock.advance(1);
    expect(engine.supply().delegated).toBe(0);
    expect(rented.status).toBe('COMPLETED');
    const accepted = engine.createOrder(account, {
      pledgeAddress: PLEDGE,
      rentalCount: 65_000,
      period: '1h',
    }).order;
    expect(accepted.status).toBe('COMPLETED');
    expect(engine.supply().delegated).toBe(65_000);
  });

  it('holds energy for the whole length of each period', () => {
    for (const period of ['1h', '1d', '30d'] as const) {
      const clock = createManualClock();
      const engine = createEngine({
        clock,
        seed: 5,
        scenario: funded({ supply: 1_000_000, settings: { timing: 'instant' } }),
      });
      const order = engine.createOrder(engine.authenticate(KEY)!, {
        pledgeAddress: PLEDGE,
        rentalCount: 70_000,
        period,
      }).order;
      expect(engine.supply().delegated).toBe(70_000);
      clock.advance(PERIOD_MS[period] - 1);
      expect(engine.supply().delegated).toBe(70_000);
      clock.advance(1);
      expect(engine.supply().delegated).toBe(0);
      expect(order.status).toBe('COMPLETED');
    }
  });

  it('treats a null supply as unlimited', () => {
    const clock = createManualClock();
    const engine = createEngine({ clock, seed: 5, scenario: funded({ supply: 10 }) });
    const account = engine.authenticate(KEY)!;
    expect(engine.setSupply(null)).toEqual({ energy: null, delegated: 0 });
    const orders = Array.from(
      { length: 10 },
      () =>
        engine.createOrder(account, { pledgeAddress: PLEDGE, rentalCount: 10_000_000, period: '1h' }).order,
    );
    clock.advance(20_000);
    expect(orders.every((o) => o.status === 'COMPLETED')).toBe(true);
    expect(engine.supply()).toEqual({ energy: null, delegated: 0 });
  });

  it('lets a rule-forced COMPLETED order through whatever the supply', () => {
    const clock = createManualClock();
    const engine = createEngine({
      clock,
      seed: 5,
      scenario: funded({ supply: 0, rules: [{ match: { outOrderNo: 'vip' }, outcome: 'COMPLETED' }] }),
    });
    const account = engine.authenticate(KEY)!;
    const vip = engine.createOrder(account, {
      pledgeAddress: PLEDGE,
      rentalCount: 65_000,
      period: '1h',
      outOrderNo: 'vip',
    }).order;
    const plain = engine.createOrder(account, {
      pledgeAddress: PLEDGE,
      rentalCount: 65_000,
      period: '1h',
    }).order;
    clock.advance(20_000);
    expect(vip.status).toBe('COMPLETED');
    expect(vip.failureReason).toBeUndefined();
    expect(plain.status).toBe('REFUNDED');
    expect(plain.failureReason).toContain('insufficient supply');
    expect(engine.checkInvariants()).toEqual([]);
  });

  it('reserves nothing for an order that fails anyway', () => {
    const clock = createManualClock();
    const engine = createEngine({
      clock,
      seed: 5,
      scenario: funded({ supply: 65_000, rules: [{ outcome: 'FAILED', times: 1 }] }),
    });
    const account = engine.authenticate(KEY)!;
    const failed = engine.createOrder(account, {
      pledgeAddress: PLEDGE,
      rentalCount: 65_000,
      period: '1h',
    }).order;
    const next = engine.createOrder(account, {
      pledgeAddress: PLEDGE,
      rentalCount: 65_000,
      period: '1h',
    }).order;
    clock.advance(20_000);
    expect(failed.status).toBe('REFUNDED');
    expect(failed.failureReason).toBeUndefined();
    expect(next.status).toBe('COMPLETED');
  });
});
