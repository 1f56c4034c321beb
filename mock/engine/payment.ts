/** How an order is paid: TRX when the account has enough, else USDT at the set rate (or not at all). */
import { tryFreeze, type Ledger } from './ledger.ts';
import { formatFixed, formatUnits, type CurrencyCode } from './money.ts';
import { SHOWN_DECIMALS, usdtCost, type Quote } from './pricing.ts';
import { SimulatorError } from './simulator-error.ts';

/**
 * Freezes an order's price, saying in which currency; `insufficientBalance`, changing nothing, if none can.
 *
 * @example
 *   freezePayment(account.ledger, quote(prices, 65_000, '1h'), 190_000); // { currency: 'TRX', amount: 4_230_000 }
 */
export function freezePayment(
  ledger: Ledger,
  priced: Quote,
  microUsdtPerTrx: number,
  whenTrxShort: 'pay-usdt' | 'reject' = 'pay-usdt',
): { currency: CurrencyCode; amount: number } {
  if (tryFreeze(ledger, 'TRX', priced.costSun)) return { currency: 'TRX', amount: priced.costSun };
  if (whenTrxShort === 'reject')
    throw new SimulatorError(
      'insufficientBalance',
      `Insufficient balance: the order costs ${priced.trxPrice} TRX but ${formatUnits(ledger.TRX.available)} TRX are available (orders are paid in TRX only). Deposit TRX and retry.`,
    );
  const amount = usdtCost(priced.costSun, microUsdtPerTrx);
  if (!Number.isSafeInteger(amount))
    throw new SimulatorError(
      'insufficientBalance',
      `Insufficient balance: the order costs ${priced.trxPrice} TRX, more than any USDT balance can cover at usdtPerTrx ${formatUnits(microUsdtPerTrx)}. Deposit TRX or order less.`,
    );
  if (!tryFreeze(ledger, 'USDT', amount))
    throw new SimulatorError(
      'insufficientBalance',
      `Insufficient balance: the order costs ${priced.trxPrice} TRX (or ${formatFixed(amount, SHOWN_DECIMALS)} USDT) ` +
        `but ${formatUnits(ledger.TRX.available)} TRX and ${formatFixed(ledger.USDT.available, 6)} USDT are available. Deposit funds and retry.`,
    );
  return { currency: 'USDT', amount };
}
