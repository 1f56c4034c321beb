/**
 * The engine's invariants, checked over accounts and their stored orders: each ledger
 * adds up, frozen money equals what open orders hold, spent money equals what completed
 * orders cost (evicted ones included), and each order's status agrees with its timeline.
 * Run by tests, the property suite and every restore of a state file.
 */
import type { Account } from './accounts.ts';
import { checkLedger } from './ledger.ts';
import type { Order, OrderStatusCode } from './order.ts';

/**
 * Every broken invariant, as sentences naming the account or order; empty when all hold.
 *
 * @example
 *   booksProblems(engine.accounts()); // [] for any engine that only took API calls
 */
export function booksProblems(accounts: readonly Account[]): string[] {
  const problems: string[] = [];
  for (const account of accounts) {
    const owner = account.walletAddress;
    problems.push(...checkLedger(account.ledger, owner));
    const expected = { TRX: { frozen: 0, spent: 0 }, USDT: { frozen: 0, spent: 0 } };
    for (const order of account.orders) {
      if (order.isOpen) expected[order.currency].frozen += order.amount;
      if (order.status === 'COMPLETED') expected[order.currency].spent += order.amount;
      problems.push(...orderProblems(order));
    }
    expected.TRX.spent += account.evictedSpent.TRX;
    expected.USDT.spent += account.evictedSpent.USDT;
    for (const currency of ['TRX', 'USDT'] as const) {
      const book = account.ledger[currency];
      if (book.frozen !== expected[currency].frozen) {
        problems.push(
          `${owner} ${currency}: frozen ${book.frozen} but open orders hold ${expected[currency].frozen}`,
        );
      }
      if (book.spent !== expected[currency].spent) {
        problems.push(
          `${owner} ${currency}: spent ${book.spent} but completed orders cost ${expected[currency].spent}`,
        );
      }
    }
  }
  return problems;
}

function orderProblems(order: Order): string[] {
  const problems: string[] = [];
  const times = order.timeline().map((s) => s.at);
  for (let i = 1; i < times.length; i++) {
    if (times[i]! < times[i - 1]!) problems.push(`${order.id}: timeline goes back in time`);
  }
  const expectedSteps: Record<OrderStatusCode, number> = {
    PENDING: 1,
    PROCESSING: 2,
    COMPLETED: 3,
    FAILED: 3,
    REFUNDED: 4,
  };
  if (order.timeline().length !== expectedSteps[order.status])
    problems.push(`${order.id}: status ${order.status} does not match its timeline`);
  if (order.status === 'COMPLETED' && !/^[0-9a-f]{64}$/.test(order.txId))
    problems.push(`${order.id}: COMPLETED without a txId`);
  if (order.status === 'REFUNDED' && order.refunds !== 1)
    problems.push(`${order.id}: REFUNDED with ${order.refunds} refunds`);
  if (order.status !== 'REFUNDED' && order.refunds !== 0)
    problems.push(`${order.id}: ${order.refunds} refunds while ${order.status}`);
  return problems;
}
