/**
 * The proxy's spending guard: an order placed through `serve --upstream` spends real TRX,
 * so none is forwarded unless `--allow-spend` says so, and at most `--max-orders` are in
 * one run. A refused order reaches nothing upstream.
 */
export interface SpendGuard {
  /** Undefined when the next order may be forwarded (and counts it); else why not. */
  admit(): string | undefined;
  /** Orders refused so far. */
  readonly refused: number;
}

export interface SpendGuardOptions {
  allowSpend: boolean;
  /** Orders one run may forward; unlimited when absent. */
  maxOrders?: number | undefined;
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
  return {
    admit() {
      if (!options.allowSpend) {
        refused++;
        return 'Order not forwarded: creating an order on the upstream spends real TRX. Start the proxy with --allow-spend (ENERGY_SIM_ALLOW_SPEND=1) to forward orders.';
      }
      if (options.maxOrders !== undefined && forwarded >= options.maxOrders) {
        refused++;
        return `Order not forwarded: --max-orders ${options.maxOrders} orders were forwarded in this run already. Restart the proxy, or raise --max-orders.`;
      }
      forwarded++;
      return undefined;
    },
    get refused() {
      return refused;
    },
  };
}
