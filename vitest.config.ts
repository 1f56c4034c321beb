import { defineConfig } from 'vitest/config';
import { CONTRACT_PROJECT } from './contract-tests/contract-project.ts';

export default defineConfig({
  test: {
    testTimeout: 20_000,
    reporters: ['default', './contract-tests/contract-reporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: [
            'src/**/*.test.ts',
            'mock/**/*.test.ts',
            'cli/**/*.test.ts',
            'contract-tests/**/*.test.ts',
            'scripts/**/*.test.ts',
            'examples/**/*.test.ts',
            'drift/**/*.test.ts',
            'recording/**/*.test.ts',
            'e2e/**/*.test.ts',
          ],
          exclude: ['contract-tests/**/*.contract.test.ts'],
        },
      },
      {
        extends: true,
        test: {
          ...CONTRACT_PROJECT,
          include: ['contract-tests/**/*.contract.test.ts'],
        },
      },
    ],
  },
});
