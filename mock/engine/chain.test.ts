/**
 * The chain a rental's client reads is derived from the engine's orders, registry and
 * settings at a time: delivered at COMPLETED, gone at the period's end, nothing for a
 * failed order, and nothing stored of its own.
 */
import { describe, expect, it } from 'vitest';
import {
  blockAt,
  callUsdt,
  chainAccountAt,
  chainOf,
  delegatedAt,
  energyOf,
  stakeFor,
  stakeOf,
  type Chain,
} from './chain.ts';
import { createEngine } from './engine.ts';
import { createManualClock } from './manual-clock.ts';
import { PERIOD_MS } from './pricing.ts';
import { applySettings, DEFAULT_SETTINGS } from './settings.ts';
import { rejection } from './test-support.ts';

const POOL = 'TJR2XHNAFojq68V2Y6H1ESQy75LaUnB7ji';
const RECEIVER = 'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3';
const HOLDER = 'TLsV52sRDL79HXGGm9yzwKibb6BeruhUzy';

function setup(scenario: Parameters<typeof createEngine>[0]['scenario'] = {}) {
  const clock = createManualClock();
  const engine = createEngine({
    clock,
    scenario: { accounts: [{ apiKey: 'k', trx: 10_000_000_000 }], ...scenario },
  });
  const account = engine.authenticate('k')!;
  const order = (rentalCount = 65_000, period: '10min' | '1h' = '1h') =>
    engine.createOrder(account, { pledgeAddress: RECEIVER, rentalCount, period }).order;
  const view = (at = clock.now()) =>
    chainAccountAt(engine.address(RECEIVER), engine.delegations(), chainOf(engine.settings()), at);
  return { clock, engine, order, view };
}

describe('the chain model', () => {
  it('fills in the spec defaults, with the timing profile confirmation lag', () => {
    const chain = chainOf(DEFAULT_SETTINGS);
    expect(chain).toMatchObject({
      poolAddress: POOL,
      totalEnergyWeight: 18_000_000_000,
      confirmationMs: 57_000,
    });
    expect(chain.chainParameters.getTotalEnergyLimit).toBe(180_000_000_000);
    expect(chainOf(applySettings(DEFAULT_SETTINGS, { timing: 'instant' })).confirmationMs).toBe(0);
  });

  it('merges a chain patch field by field and the chain parameters over their defaults', () => {
    const once = applySettings(DEFAULT_SETTINGS, { chain: { confirmationMs: 5 } });
    const twice = applySettings(once, { chain: { chainParameters: { getEnergyFee: 420 } } });
    const chain = chainOf(twice);
    expect(chain.confirmationMs).toBe(5);
    expect(chain.chainParameters).toMatchObject({ getEnergyFee: 420, getTotalEnergyLimit: 180_000_000_000 });
  });

  it('refuses a USDT balance the token cannot hold, naming the address', () => {
    const error = rejection(() =>
      applySettings(DEFAULT_SETTINGS, { chain: { usdtBalances: { [HOLDER]: '1.1234567' } } }),
    );
    expect(error.message).toContain(`chain.usdtBalances.${HOLDER}`);
  });

  it('stakes whole TRX that yield at least the energy, in integer arithmetic', () => {
    const chain = chainOf(DEFAULT_SETTINGS);
    expect(stakeFor(65_000, chain)).toBe(6_500_000_000);
    expect(energyOf(stakeFor(65_000, chain), chain)).toBe(65_000);
    const odd: Chain = { ...chain, totalEnergyWeight: 19_312_345_678 };
    for (const energy of [64_000, 65_001, 131_313, 1_000_000_000])
      expect(energyOf(stakeFor(energy, odd), odd)).toBeGreaterThanOrEqual(energy);
    expect(stakeFor(65_000, { ...chain, chainParameters: { getTotalEnergyLimit: 0 } })).toBe(0);
  });

  it('shows an address from its activation, its energy from COMPLETED until the period ends', () => {
    const { clock, order, view } = setup({ settings: { timing: 'realistic' } });
    const made = order();
    expect(view()).toBeUndefined();
    clock.advance(made.processingAfter);
    expect(view()?.createTime).toBe(made.processingAt);
    expect(view()?.received).toEqual([]);
    clock.advance(made.outcomeAfter - made.processingAfter);
    expect(made.status).toBe('COMPLETED');
    const running = view()!.received;
    expect(running).toHaveLength(1);
    expect(running[0]).toMatchObject({
      from: POOL,
      to: RECEIVER,
      energy: 65_000,
      stakeSun: 6_500_000_000,
      deliveredAt: made.outcomeAt,
      expiresAt: made.outcomeAt + PERIOD_MS['1h'],
    });
    clock.advance(PERIOD_MS['1h'] - 1);
    expect(view()!.received).toHaveLength(1);
    clock.advance(1);
    expect(view()!.received).toEqual([]);
    expect(view()!.ended.map((d) => d.orderId)).toEqual([made.id]);
  });

  it('lags the confirmed view by the confirmation time', () => {
    const { clock, engine, order, view } = setup({
      settings: { timing: 'instant', chain: { confirmationMs: 9000 } },
    });
    order();
    const lag = chainOf(engine.settings()).confirmationMs;
    expect(view()?.received).toHaveLength(1);
    expect(view(clock.now() - lag)).toBeUndefined();
    clock.advance(lag);
    expect(view(clock.now() - lag)?.received).toHaveLength(1);
  });

  it('delivers nothing for an order that fails, nor after its refund', () => {
    const { clock, engine, order, view } = setup({ rules: [{ outcome: 'FAILED' }] });
    const made = order();
    clock.advance(made.refundAfter);
    expect(made.status).toBe('REFUNDED');
    expect(engine.delegations()).toEqual([]);
    expect(view()?.received).toEqual([]);
  });

  it('takes a rule delegationMs: a delivery that never shows, or one shorter than the period', () => {
    const { clock, engine, order, view } = setup({
      settings: { timing: 'instant' },
      rules: [
        { outcome: 'COMPLETED', delegationMs: 0, times: 1 },
        { outcome: 'COMPLETED', delegationMs: 60_000, times: 1 },
      ],
    });
    const never = order();
    expect(never.status).toBe('COMPLETED');
    expect(view()?.received).toEqual([]);
    const short = order();
    expect(view()?.received.map((d) => d.orderId)).toEqual([short.id]);
    clock.advance(60_000);
    expect(view()?.received).toEqual([]);
    // A snapshot keeps the rule's length, so a restored engine shows the same chain.
    const saved = engine.snapshot();
    expect(saved.orders.map((o) => o.delegationMs)).toEqual([0, 60_000]);
    const restored = createEngine({ clock, scenario: { accounts: [{ apiKey: 'k' }] }, restore: saved });
    expect(restored.delegations()).toEqual(engine.delegations());
  });

  it('shows the pool lending every running delegation, from the start', () => {
    const { clock, engine, order } = setup({ settings: { timing: 'instant' } });
    order(65_000, '10min');
    order(100_000, '1h');
    const chain = chainOf(engine.settings());
    const pool = () => chainAccountAt(engine.address(POOL), engine.delegations(), chain, clock.now())!;
    expect(stakeOf(pool().lent)).toBe(stakeFor(65_000, chain) + stakeFor(100_000, chain));
    clock.advance(PERIOD_MS['10min']);
    expect(pool().lent.map((d) => d.energy)).toEqual([100_000]);
    expect(delegatedAt(engine.delegations()[0]!, clock.now())).toBe(false);
  });

  it('numbers a block every 3 s, its id starting with its number', () => {
    const first = blockAt(1_741_801_809_000);
    const next = blockAt(1_741_801_809_000 + 3000);
    expect(next.number).toBe(first.number + 1);
    expect(next.parentHash).toBe(first.blockID);
    expect(parseInt(first.blockID.slice(0, 16), 16)).toBe(first.number);
    expect(first.blockID).toMatch(/^[0-9a-f]{64}$/);
  });

  it('answers USDT balanceOf and a transfer energy by what its receiver holds', () => {
    const chain = chainOf(
      applySettings(DEFAULT_SETTINGS, { chain: { usdtBalances: { [HOLDER]: '12.5', [POOL]: '1' } } }),
    );
    expect(callUsdt(chain, { fn: 'balanceOf', holder: HOLDER }).output).toBe(
      (12_500_000).toString(16).padStart(64, '0'),
    );
    expect(callUsdt(chain, { fn: 'transfer', owner: POOL, to: HOLDER, amount: 1_000_000n }).energy).toBe(
      64_285,
    );
    expect(callUsdt(chain, { fn: 'transfer', owner: POOL, to: RECEIVER, amount: 1n }).energy).toBe(130_285);
    expect(callUsdt(chain, { fn: 'transfer', owner: POOL, to: HOLDER, amount: 1_000_001n }).reverted).toBe(
      true,
    );
    expect(callUsdt(chain, { fn: 'other' }).reverted).toBe(true);
  });
});
