/**
 * Runs `work` and counts the event loop's turns meanwhile: proof that work on a large body yields.
 * @example
 *   expect((await countingTurns(() => scrub(chunks))).turns).toBeGreaterThanOrEqual(8);
 */
export async function countingTurns<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let counting = true;
  const count = (): void => {
    turns++;
    if (counting) setImmediate(count);
  };
  setImmediate(count);
  try {
    return { result: await work(), turns };
  } finally {
    counting = false;
  }
}
