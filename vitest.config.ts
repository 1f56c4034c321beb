import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 20_000,
    reporters: ['default', './contract-tests/contract-reporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'mock/**/*.test.ts', 'contract-tests/**/*.test.ts', 'scripts/**/*.test.ts', 'examples/**/*.test.ts', 'drift/**/*.test.ts'],
          exclude: ['contract-tests/**/*.contract.test.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'contract',
          include: ['contract-tests/**/*.contract.test.ts'],
          testTimeout: 120_000,
          // Contract files keep their state in fixtures, so sharing one module graph is
          // safe, and it halves the suite's start-up.
          pool: 'threads',
          isolate: false,
        },
      },
    ],
  },
});
