/** An account's money per currency, in smallest units: available + frozen + spent = deposited. */
import type { components } from '../../src/generated/control.ts';
import { MAX_AMOUNT, formatUnits, type CurrencyCode } from './money.ts';
import { SimulatorError } from './simulator-error.ts';

export type CurrencyBook = components['schemas']['StateCurrencyBook'];
export type Ledger = Record<CurrencyCode, CurrencyBook>;

export function createLedger(): Ledger {
  return {
    TRX: { deposited: 0, available: 0, frozen: 0, spent: 0 },
    USDT: { deposited: 0, available: 0, frozen: 0, spent: 0 },
  };
}

/**
 * Adds a deposit.
 *
 * @example
 *   const ledger = createLedger();
 *   deposit(ledger, 'TRX', 1_000_000); // 1 TRX available
 */
export function deposit(ledger: Ledger, currency: CurrencyCode, units: number): void {
  const book = ledger[currency];
  if (!Number.isSafeInteger(units) || units < 0)
    throw SimulatorError.invalidParameter(
      `A deposit is a whole, non-negative number of smallest units (got ${units} ${currency}).`,
    );
  if (book.deposited + units > MAX_AMOUNT)
    throw SimulatorError.invalidParameter(
      `A deposit of ${formatUnits(units)} ${currency} would take the balance past ${formatUnits(MAX_AMOUNT)}; deposit less.`,
    );
  book.deposited += units;
  book.available += units;
}

/** Moves `units` from available to frozen; returns false, changing nothing, when they are not there. */
export function tryFreeze(ledger: Ledger, currency: CurrencyCode, units: number): boolean {
  const book = ledger[currency];
  if (book.available < units) return false;
  book.available -= units;
  book.frozen += units;
  return true;
}

/** Moves frozen units to spent (the order completed). */
export function spendFrozen(ledger: Ledger, currency: CurrencyCode, units: number): void {
  const book = ledger[currency];
  book.frozen -= units;
  book.spent += units;
}

/** Moves frozen units back to available (the order was refunded). */
export function releaseFrozen(ledger: Ledger, currency: CurrencyCode, units: number): void {
  const book = ledger[currency];
  book.frozen -= units;
  book.available += units;
}
