import { describe, expect, it } from 'vitest';
import { createEngine } from './engine.ts';
import { createLedger, deposit, releaseFrozen, spendFrozen, tryFreeze, type Ledger } from './ledger.ts';
import { createManualClock } from './manual-clock.ts';
import { MAX_AMOUNT } from './money.ts';
import { SimulatorError } from './simulator-error.ts';

function balanced(ledger: Ledger): boolean {
  return (['TRX', 'USDT'] as const).every((c) => {
    const b = ledger[c];
    return b.available + b.frozen + b.spent === b.deposited;
  });
}

describe('ledger', () => {
  it('starts empty and balanced', () => {
    const ledger = createLedger();
    expect(ledger.TRX).toEqual({ deposited: 0, available: 0, frozen: 0, spent: 0 });
    expect(ledger.USDT).toEqual({ deposited: 0, available: 0, frozen: 0, spent: 0 });
    expect(balanced(ledger)).toBe(true);
  });

  it('keeps available + frozen + spent = deposited through deposit, freeze, spend and release', () => {
    const ledger = createLedger();
    deposit(ledger, 'TRX', 10_000_000);
    expect(ledger.TRX).toEqual({ deposited: 10_000_000, available: 10_000_000, frozen: 0, spent: 0 });
    expect(tryFreeze(ledger, 'TRX', 4_230_000)).toBe(true);
    expect(ledger.TRX).toEqual({ deposited: 10_000_000, available: 5_770_000, frozen: 4_230_000, spent: 0 });
    expect(tryFreeze(ledger, 'TRX', 1_000_000)).toBe(true);
    spendFrozen(ledger, 'TRX', 4_230_000);
    expect(ledger.TRX).toEqual({
      deposited: 10_000_000,
      available: 4_770_000,
      frozen: 1_000_000,
      spent: 4_230_000,
    });
    releaseFrozen(ledger, 'TRX', 1_000_000);
    expect(ledger.TRX).toEqual({ deposited: 10_000_000, available: 5_770_000, frozen: 0, spent: 4_230_000 });
    expect(ledger.USDT).toEqual({ deposited: 0, available: 0, frozen: 0, spent: 0 });
    expect(balanced(ledger)).toBe(true);
  });

  it('stays balanced over a long random sequence of movements', () => {
    const ledger = createLedger();
    const open: Array<{ currency: 'TRX' | 'USDT'; units: number }> = [];
    let state = 12345;
    const next = (n: number): number => {
      state = (state * 48_271) % 2_147_483_647;
      return state % n;
    };
    for (let i = 0; i < 2_000; i++) {
      const currency = next(2) === 0 ? 'TRX' : 'USDT';
      switch (next(4)) {
        case 0:
          deposit(ledger, currency, next(5_000_000));
          break;
        case 1: {
          const units = next(3_000_000);
          if (tryFreeze(ledger, currency, units)) open.push({ currency, units });
          break;
        }
        case 2: {
          const held = open.splice(next(open.length + 1), 1)[0];
          if (held) spendFrozen(ledger, held.currency, held.units);
          break;
        }
        default: {
          const held = open.splice(next(open.length + 1), 1)[0];
          if (held) releaseFrozen(ledger, held.currency, held.units);
        }
      }
      if (!balanced(ledger)) throw new Error(`unbalanced after movement ${i}`);
    }
    expect(balanced(ledger)).toBe(true);
    expect(ledger.TRX.frozen + ledger.USDT.frozen).toBe(open.reduce((sum, h) => sum + h.units, 0));
  });

  it('fails to freeze without changing anything when the available balance is short', () => {
    const ledger = createLedger();
    deposit(ledger, 'TRX', 4_229_999);
    deposit(ledger, 'USDT', 10_000_000);
    const before = structuredClone(ledger);
    expect(tryFreeze(ledger, 'TRX', 4_230_000)).toBe(false);
    expect(ledger).toEqual(before);
    // Frozen money is not available again.
    expect(tryFreeze(ledger, 'USDT', 6_000_000)).toBe(true);
    const afterFirst = structuredClone(ledger);
    expect(tryFreeze(ledger, 'USDT', 6_000_000)).toBe(false);
    expect(ledger).toEqual(afterFirst);
  });

  it('freezes the whole available balance when asked for exactly all of it', () => {
    const ledger = createLedger();
    deposit(ledger, 'TRX', 4_230_000);
    expect(tryFreeze(ledger, 'TRX', 4_230_000)).toBe(true);
    expect(ledger.TRX.available).toBe(0);
    expect(ledger.TRX.frozen).toBe(4_230_000);
  });

  it('rejects a deposit that would take the balance past the largest amount, changing nothing', () => {
    const ledger = createLedger();
    deposit(ledger, 'USDT', MAX_AMOUNT - 1);
    deposit(ledger, 'USDT', 1);
    expect(ledger.USDT.deposited).toBe(MAX_AMOUNT);
    expect(() => deposit(ledger, 'USDT', 1)).toThrow(SimulatorError);
    expect(ledger.USDT.deposited).toBe(MAX_AMOUNT);
    expect(ledger.USDT.available).toBe(MAX_AMOUNT);
  });

  it('makes the engine report a book whose parts do not add up, or that goes negative while they do', () => {
    const engine = createEngine({ clock: createManualClock(), scenario: { accounts: [{ apiKey: 'k' }] } });
    const { ledger } = engine.authenticate('k')!;
    deposit(ledger, 'TRX', 5_000_000);
    ledger.TRX.available -= 1;
    expect(engine.checkInvariants()).toEqual([
      '/accounts/0/ledger/TRX: available 4999999 + frozen 0 + spent 0 must equal deposited 5000000',
    ]);
    ledger.TRX.available += 1;
    deposit(ledger, 'USDT', 1_000_000);
    // Spending more than was frozen: the sum still balances, frozen goes negative.
    spendFrozen(ledger, 'USDT', 200_000);
    expect(balanced(ledger)).toBe(true);
    expect(engine.checkInvariants()).toContain(
      '/accounts/0/ledger/USDT/frozen: must be a whole number from 0 (got -200000)',
    );
  });
});
