import { defineConfig } from 'vitest/config';

/** `npm run test:fidelity` (`.ci/run` runs it after `npm test`): the family of stand-ins beyond the gate. */
export default defineConfig({
  test: {
    name: 'fidelity',
    include: ['e2e/**/*.fidelity.test.ts', 'drift/**/*.fidelity.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 900_000,
    maxWorkers: 1,
  },
});
