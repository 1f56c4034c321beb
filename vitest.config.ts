import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { CONTRACT_PROJECT } from './contract-tests/contract-project.ts';

/** The package's own names, as the examples import them, resolved by tsconfig.json's `paths`. */
const tsconfig = JSON.parse(readFileSync(new URL('./tsconfig.json', import.meta.url), 'utf8')) as {
  compilerOptions: { paths?: Record<string, string[]> };
};
const packageNames = Object.entries(tsconfig.compilerOptions.paths ?? {}).map(([name, [target]]) => ({
  find: new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`),
  replacement: fileURLToPath(new URL(target!, import.meta.url)),
}));

/** The package test, the longest file, in a project of its own that starts first ('package' < 'unit'). */
const PACKAGE = ['scripts/package-install.test.ts'];

/** Files that need a process of their own (unit files share one per worker): MSW patches fetch and http. */
const OWN_PROCESS = ['mock/msw/simulator-handlers.test.ts'];

const UNIT_FILES = [
  'src/**/*.test.ts',
  'mock/**/*.test.ts',
  'cli/**/*.test.ts',
  'contract-tests/**/*.test.ts',
  'scripts/**/*.test.ts',
  'examples/**/*.test.ts',
  'drift/**/*.test.ts',
  'recording/**/*.test.ts',
  'e2e/**/*.test.ts',
];

export default defineConfig({
  resolve: { alias: packageNames },
  test: {
    // A guard against a hang, not a bound on time: six busy loops on two cores stretch the
    // slowest files several-fold, and the gate must pass there too.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Most slow files wait on a child process, a server or a browser: others fill those waits.
    maxWorkers: 3,
    reporters: ['default', './contract-tests/contract-reporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: UNIT_FILES,
          isolate: false,
          // The fidelity files run as `npm run test:fidelity` (vitest.fidelity.config.ts).
          exclude: [
            'contract-tests/**/*.contract.test.ts',
            '**/*.fidelity.test.ts',
            ...PACKAGE,
            ...OWN_PROCESS,
          ],
        },
      },
      { extends: true, test: { name: 'own-process', include: OWN_PROCESS } },
      { extends: true, test: { name: 'package', include: PACKAGE } },
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
