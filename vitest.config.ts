import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { CONTRACT_PROJECT } from './contract-tests/contract-project.ts';

/**
 * The package's own names (`energy-rental-kit/client`, …), as the examples import them like a
 * user's code, resolved to the sources: tsconfig.json's `paths` is the one list, which tsc
 * reads too. Exact matches, so `energy-rental-kit/client` never captures a longer name.
 */
const tsconfig = JSON.parse(readFileSync(new URL('./tsconfig.json', import.meta.url), 'utf8')) as {
  compilerOptions: { paths?: Record<string, string[]> };
};
const packageNames = Object.entries(tsconfig.compilerOptions.paths ?? {}).map(([name, [target]]) => ({
  find: new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`),
  replacement: fileURLToPath(new URL(target!, import.meta.url)),
}));

/**
 * The package test, in a project of its own so that it starts first (vitest queues the
 * projects of one group by name, and 'package' comes before 'unit'): it is the longest file
 * by far, and it packs a copy of the checkout, so it can run beside all the others.
 */
const PACKAGE = ['scripts/package-install.test.ts'];

/**
 * Files that need a process of their own. The unit files share one per worker (a file's
 * modules stay loaded for the next, which halves what the run spends importing them); MSW
 * patches the process's fetch and http, which a process shared with other files does not
 * leave to it alone.
 */
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
    // vitest's default is one worker fewer than the cores, so one file at a time on this
    // project's two-core machines; most slow files wait on a child process, a server or a
    // browser, and other files fill those waits. Three, as the package test holds one worker
    // for most of the run.
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
