/**
 * Accounts of the engine, and ids that stay the same whatever the settings.
 */
import { describe, expect, it } from 'vitest';
import { isTronAddress } from '../../src/tron-address.ts';
import { createManualClock } from './manual-clock.ts';
import { createEngine, DEMO_SCENARIO } from './engine.ts';
import { SimulatorError } from './simulator-error.ts';
import { rejection } from './test-support.ts';

describe('accounts', () => {
  it('gives every account a valid TRON wallet address and the name User- + its first six characters', () => {
    const clock = createManualClock();
    const engine = createEngine({ clock, seed: 17, scenario: DEMO_SCENARIO });
    for (let i = 0; i < 30; i++) engine.createAccount();
    const all = engine.accounts();
    expect(all).toHaveLength(31);
    for (const a of all) {
      expect(isTronAddress(a.walletAddress)).toBe(true);
      expect(a.name).toBe(`User-${a.walletAddress.slice(0, 6)}`);
      expect(a.name).toMatch(/^User-T[1-9A-HJ-NP-Za-km-z]{5}$/);
    }
    expect(new Set(all.map((a) => a.walletAddress)).size).toBe(31);
    expect(all.map((a) => a.id)).toEqual(Array.from({ length: 31 }, (_, i) => i + 1));
  });

  it('funds the demo account of the default scenario with 1000 TRX and 100 USDT', () => {
    const clock = createManualClock();
    const engine = createEngine({ clock, seed: 17, scenario: DEMO_SCENARIO });
    const demo = engine.authenticate('demo-key')!;
    expect(demo.ledger.TRX.available).toBe(1_000_000_000);
    expect(demo.ledger.USDT.available).toBe(100_000_000);
    expect(demo.referralCount).toBe(0);
  });

  it('authenticates only known keys and generates unguessable keys for new accounts', () => {
    const clock = createManualClock();
    const engine = createEngine({ clock, seed: 17, scenario: DEMO_SCENARIO });
    expect(engine.authenticate('demo-key')).toBeDefined();
    expect(engine.authenticate('demo-key ')).toBeUndefined();
    expect(engine.authenticate('')).toBeUndefined();
    const created = engine.createAccount({ trx: 5_000_000, referralCount: 3 });
    expect(created.apiKey).toMatch(/^sk_[A-Za-z0-9_-]{32}$/);
    expect(engine.authenticate(created.apiKey)).toBe(created.account);
    expect(created.account.referralCount).toBe(3);
    expect(created.account.ledger.TRX.available).toBe(5_000_000);
    // Same seed, different key: keys do not come from the seeded source.
    const twinClock = createManualClock();
    const twin = createEngine({ clock: twinClock, seed: 17, scenario: DEMO_SCENARIO });
    const twinCreated = twin.createAccount({ trx: 5_000_000 });
    expect(twinCreated.apiKey).not.toBe(created.apiKey);
    expect(twinCreated.account.walletAddress).toBe(created.account.walletAddress);
  });

  it('rejects a second account with a known key as a conflict', () => {
    const clock = createManualClock();
    const engine = createEngine({ clock, seed: 17, scenario: DEMO_SCENARIO });
    const error = rejection(() => engine.createAccount({ apiKey: 'demo-key' }));
    expect(error.kind).toBe('conflict');
    expect(engine.accounts()).toHaveLength(1);
  });

  it('books deposits in both currencies, or neither when one would overflow', () => {
    const clock = createManualClock();
    const engine = createEngine({ clock, seed: 17, scenario: DEMO_SCENARIO });
    const demo = engine.authenticate('demo-key')!;
    engine.deposit(demo, { trx: 1_000_000, usdt: 2_000_000 });
    expect(demo.ledger.TRX.available).toBe(1_001_000_000);
    expect(demo.ledger.USDT.available).toBe(102_000_000);
    const before = structuredClone(demo.ledger);
    expect(() => engine.deposit(demo, { trx: 1, usdt: Number.MAX_SAFE_INTEGER })).toThrow(SimulatorError);
    expect(demo.ledger).toEqual(before);
  });
});

describe('determinism across settings', () => {
  it('gives the same ids and txIds under every timing profile, failure rate and rule', () => {
    const run = (
      timing: 'realistic' | 'fast' | 'instant',
      extra: { failureRate?: number; rule?: boolean } = {},
    ) => {
      const clock = createManualClock();
      const engine = createEngine({
        clock,
        seed: 11,
        scenario: {
          accounts: [{ apiKey: 'k', trx: 10_000_000_000 }],
          settings: { timing, failureRate: extra.failureRate ?? 0 },
        },
      });
      if (extra.rule) engine.rules.add({ match: {}, outcome: 'FAILED', delayMs: 10, times: 1 });
      const account = engine.authenticate('k')!;
      const orders = [1, 2, 3].map(
        () =>
          engine.createOrder(account, {
            pledgeAddress: 'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3',
            rentalCount: 65_000,
            period: '1h',
          }).order,
      );
      return orders.map((o) => `${o.id}:${o.plannedTxId}`);
    };
    const expected = run('realistic');
    expect(run('instant')).toEqual(expected);
    expect(run('fast', { failureRate: 0.5 })).toEqual(expected);
    expect(run('realistic', { rule: true })).toEqual(expected);
  });
});
