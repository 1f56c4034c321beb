import { defineConfig } from 'vitest/config';

/**
 * `npm run test:fidelity`: what proves the family of stand-ins beyond the gate's time
 * budget (every member's planted breaks, the calibration loop on every member). `.ci/run`
 * runs it after `npm test`.
 */
export default defineConfig({
  test: {
    name: 'fidelity',
    include: ['e2e/**/*.fidelity.test.ts', 'drift/**/*.fidelity.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 900_000,
    maxWorkers: 1,
  },
});
