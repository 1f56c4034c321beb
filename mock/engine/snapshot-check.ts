/** The engine's invariants beyond a state file's shape: unique ids, references, books, timelines. */
import { UNITS_PER_COIN } from './money.ts';
import { SHOWN_DECIMALS } from './pricing.ts';
import type { EngineSnapshot } from './snapshot.ts';

/** Order amounts are shown with SHOWN_DECIMALS decimals, so each is a whole multiple of this. */
const AMOUNT_STEP = UNITS_PER_COIN / 10 ** SHOWN_DECIMALS;
const OPEN = new Set(['PENDING', 'PROCESSING', 'FAILED']);
/** The outcome a final status says the order came to. */
const OUTCOME_OF: Partial<Record<string, string>> = {
  COMPLETED: 'COMPLETED',
  FAILED: 'FAILED',
  REFUNDED: 'FAILED',
};
/** How many of createdAt, processingAt, outcomeAt, refundedAt each status has reached. */
const STEPS_REACHED = { PENDING: 1, PROCESSING: 2, COMPLETED: 3, FAILED: 3, REFUNDED: 4 } as const;

/**
 * Every broken relation of a snapshot of valid shape, as `JSON path: rule`; empty when it can be restored.
 *
 * @example
 *   snapshotProblems(engine.snapshot()); // []
 *   snapshotProblems({ ...saved, orders: [saved.orders[0], saved.orders[0]] });
 *   // ['/orders/1/id: duplicate order id OR…, also /orders/0/id', …]
 */
export function snapshotProblems(saved: EngineSnapshot): string[] {
  const problems: string[] = [];
  const accountIndex = new Map(saved.accounts.map((a, i) => [a.id, i]));
  const firstAt = new Map<string, Map<string, () => string>>();
  const unique = (kind: string, value: string, path: () => string): void => {
    let seen = firstAt.get(kind);
    if (!seen) firstAt.set(kind, (seen = new Map()));
    const first = seen.get(value);
    if (first !== undefined) problems.push(`${path()}: duplicate ${kind} ${value}, also at ${first()}`);
    else seen.set(value, path);
  };
  const expected = saved.accounts.map((a) => ({
    TRX: { frozen: 0, spent: a.evictedSpent.TRX },
    USDT: { frozen: 0, spent: a.evictedSpent.USDT },
  }));

  let delegated = 0;
  saved.orders.forEach((o, i) => {
    const path = `/orders/${i}`;
    unique('order id', o.id, () => `${path}/id`);
    const owner = accountIndex.get(o.accountId);
    if (owner === undefined) {
      problems.push(`${path}/accountId: names account ${o.accountId}, which is not in the file`);
    } else {
      if (o.outOrderNo !== undefined)
        unique(`outOrderNo of account ${o.accountId}:`, o.outOrderNo, () => `${path}/outOrderNo`);
      if (OPEN.has(o.status)) expected[owner]![o.currency].frozen += o.amount;
      if (o.status === 'COMPLETED') expected[owner]![o.currency].spent += o.amount;
    }
    if (o.amount % AMOUNT_STEP !== 0)
      problems.push(
        `${path}/amount: must be a whole multiple of ${AMOUNT_STEP} (an amount with ${SHOWN_DECIMALS} decimals; got ${o.amount})`,
      );
    const times = [o.createdAt, o.processingAt, o.outcomeAt, o.refundedAt].slice(0, STEPS_REACHED[o.status]);
    if (times.some((at, k) => k > 0 && at < times[k - 1]!))
      problems.push(`${path}: the timeline goes back in time (${times.join(', ')})`);
    const refunds = o.status === 'REFUNDED' ? 1 : 0;
    if (o.refunds !== refunds)
      problems.push(`${path}/refunds: must be ${refunds} for status ${o.status} (got ${o.refunds})`);
    const outcome = OUTCOME_OF[o.status];
    if (outcome !== undefined && o.outcome !== outcome)
      problems.push(`${path}/outcome: must be ${outcome} for status ${o.status} (got ${o.outcome})`);
    if (o.reserved) {
      if (o.outcome !== 'COMPLETED' || (o.status !== 'PROCESSING' && o.status !== 'COMPLETED')) {
        problems.push(
          `${path}/reserved: only a PROCESSING or COMPLETED order with outcome COMPLETED holds supply (status ${o.status}, outcome ${o.outcome})`,
        );
      }
      delegated += o.rentalCount;
    }
  });

  saved.accounts.forEach((a, i) => {
    const path = `/accounts/${i}`;
    if (a.id !== i + 1)
      problems.push(
        `${path}/id: accounts are numbered 1, 2, 3… in order, so this one must be ${i + 1} (got ${a.id})`,
      );
    unique('key digest', a.keyDigest, () => `${path}/keyDigest`);
    unique('wallet address', a.walletAddress, () => `${path}/walletAddress`);
    for (const currency of ['TRX', 'USDT'] as const) {
      const b = a.ledger[currency];
      if (b.available + b.frozen + b.spent !== b.deposited) {
        problems.push(
          `${path}/ledger/${currency}: available ${b.available} + frozen ${b.frozen} + spent ${b.spent} must equal deposited ${b.deposited}`,
        );
      }
      for (const key of ['available', 'frozen', 'spent', 'deposited'] as const)
        if (!(Number.isSafeInteger(b[key]) && b[key] >= 0))
          problems.push(`${path}/ledger/${currency}/${key}: must be a whole number from 0 (got ${b[key]})`);
      const want = expected[i]![currency];
      if (b.frozen !== want.frozen)
        problems.push(
          `${path}/ledger/${currency}/frozen: must equal what its open orders hold, ${want.frozen} (got ${b.frozen})`,
        );
      if (b.spent !== want.spent) {
        problems.push(
          `${path}/ledger/${currency}/spent: must equal what its COMPLETED orders and evictedSpent cost, ${want.spent} (got ${b.spent})`,
        );
      }
    }
  });
  if (saved.supply.delegated !== delegated)
    problems.push(
      `/supply/delegated: must equal the rentalCount of the orders holding supply, ${delegated} (got ${saved.supply.delegated})`,
    );

  saved.rules.forEach((r, i) => {
    unique('rule id', r.id, () => `/rules/${i}/id`);
    if (r.times !== undefined && r.used >= r.times)
      problems.push(`/rules/${i}/used: must be below times ${r.times} (got ${r.used})`);
  });
  saved.addresses.forEach((r, i) => {
    unique('address', r.address, () => `/addresses/${i}/address`);
    if (r.activated && r.claimedByOrderId !== undefined)
      problems.push(`/addresses/${i}/claimedByOrderId: an activated address has no pending claim`);
  });
  return problems;
}

/**
 * Stops a restore on the problems found, naming up to ten of them.
 *
 * @example
 *   refuseIfBroken(snapshotProblems(saved)); // throws a RestoreError when any
 */
export function refuseIfBroken(problems: string[]): void {
  if (problems.length === 0) return;
  const more = problems.length > 10 ? `; and ${problems.length - 10} more` : '';
  throw new RestoreError(`${problems.slice(0, 10).join('; ')}${more}`);
}

/** A snapshot whose parts contradict each other; its message lists what is wrong, by JSON path. */
export class RestoreError extends Error {
  override name = 'RestoreError';
}
