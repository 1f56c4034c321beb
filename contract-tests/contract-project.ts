/**
 * The contract project's vitest settings, shared by the repository's vitest.config.ts
 * and the config an installed package runs its suite with (contract.vitest.config.ts).
 */
export const CONTRACT_PROJECT = {
  name: 'contract',
  testTimeout: 120_000,
  // Contract files keep their state in fixtures, so sharing one module graph is safe, and
  // it halves the suite's start-up.
  pool: 'threads',
  isolate: false,
} as const;
