// The consumer example's own vitest run, with the behaviour coverage reporter: after the
// tests it writes energy-coverage.json (docs/coverage.md walks through it). In your
// project the reporter is 'energy-rental-kit/coverage-reporter'.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['examples/consumer/**/*.test.ts'],
    reporters: [
      'default',
      ['./mock/testing/coverage-reporter.ts', { outputFile: 'examples/consumer/energy-coverage.json' }],
    ],
  },
});
