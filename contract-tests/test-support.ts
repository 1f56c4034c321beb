/** Helpers shared by the tests that run the contract suite as child processes. */

/**
 * Runs at most `limit` pieces of work at once (each contract run is a vitest process).
 *
 * @example
 *   const withSlot = createSlots(2);
 *   await Promise.all(variants.map((v) => withSlot(() => runSuite(v))));
 */
export function createSlots(limit: number): <T>(work: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async (work) => {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await work();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}
