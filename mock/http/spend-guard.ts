/**
 * The proxy's spending guard: an order placed through `serve --upstream` spends real TRX,
 * so none is forwarded unless `--allow-spend` says so, at most `--max-orders` are in one
 * run, and, with `--max-spend`, their cost at the upstream's own price stays within it. An
 * order counts once it is forwarded, whatever the answer: a timeout may still have spent.
 * A refused order reaches nothing upstream.
 */
import { formatUnits } from '../engine/index.ts';

export interface SpendGuard {
  /** Whether an order's cost must be known before it may be forwarded (`--max-spend`). */
  readonly needsCost: boolean;
  /**
   * Why the next order may not be forwarded, without counting anything; undefined when it
   * may so far. Asked before the cost is looked up, so a refused order costs no lookup.
   */
  check(): string | undefined;
  /**
   * Takes the next order when it fits (counting it and its cost in sun as spent) and
   * answers undefined; else counts it refused and says why. `costSun` undefined under
   * `--max-spend` means the cost could not be known: refused, for `why`.
   */
  admit(costSun?: number, why?: string): string | undefined;
  /** Counts an order attempt answered before the guard was asked (another spelling or method). */
  refuse(): void;
  /** Orders refused so far. */
  readonly refused: number;
  /** Orders forwarded so far. */
  readonly forwarded: number;
  /** What the forwarded orders cost at the upstream's price, in sun (known under `--max-spend`). */
  readonly spentSun: number;
}

export interface SpendGuardOptions {
  allowSpend: boolean;
  /** Orders one run may forward; unlimited when absent. */
  maxOrders?: number | undefined;
  /** What the orders of one run may cost in all, in sun; unlimited when absent. */
  maxSpendSun?: number | undefined;
}

/**
 * Creates a guard for one proxy run.
 *
 * @example
 *   const guard = createSpendGuard({ allowSpend: true, maxOrders: 2 });
 *   guard.admit(); guard.admit(); // undefined, undefined
 *   guard.admit(); // 'Order not forwarded: --max-orders 2 ...'
 */
export function createSpendGuard(options: SpendGuardOptions): SpendGuard {
  let forwarded = 0;
  let refused = 0;
  let spentSun = 0;
  const max = options.maxSpendSun;

  const check = (): string | undefined => {
    if (!options.allowSpend)
      return 'Order not forwarded: creating an order on the upstream spends real TRX. Start the proxy with --allow-spend (ENERGY_SIM_ALLOW_SPEND=1) to forward orders.';
    if (options.maxOrders !== undefined && forwarded >= options.maxOrders)
      return `Order not forwarded: --max-orders ${options.maxOrders} allows no more, ${forwarded} ${forwarded === 1 ? 'order was' : 'orders were'} forwarded in this run already. Restart the proxy, or raise --max-orders.`;
    return undefined;
  };

  return {
    needsCost: max !== undefined,
    check,
    admit(costSun, why) {
      let reason = check();
      if (!reason && max !== undefined) {
        if (costSun === undefined)
          reason = `Order not forwarded: its cost could not be known (${why ?? 'no price'}), and --max-spend ${formatUnits(max)} TRX forwards only an order whose cost it knows.`;
        else if (spentSun + costSun > max)
          reason = `Order not forwarded: it costs ${formatUnits(costSun)} TRX at the upstream's price, and with the ${formatUnits(spentSun)} TRX of this run's orders that passes --max-spend ${formatUnits(max)} TRX. Restart the proxy, or raise --max-spend.`;
      }
      if (reason) {
        refused++;
        return reason;
      }
      forwarded++;
      spentSun += costSun ?? 0;
      return undefined;
    },
    refuse() {
      refused++;
    },
    get refused() {
      return refused;
    },
    get forwarded() {
      return forwarded;
    },
    get spentSun() {
      return spentSun;
    },
  };
}
