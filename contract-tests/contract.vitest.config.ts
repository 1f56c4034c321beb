/**
 * The vitest config an installed package runs its contract suite with: the built suite
 * in dist/, the kit's own vitest, and nothing of the user's project (no config of theirs
 * is read, since `contract` passes this file with --config).
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { CONTRACT_PROJECT } from './contract-project.ts';

export default defineConfig({
  test: {
    ...CONTRACT_PROJECT,
    root: fileURLToPath(new URL('..', import.meta.url)),
    include: ['contract-tests/*.contract.test.js'],
    // The suite lives under node_modules in a user's project, which vitest leaves out by default.
    exclude: [],
    reporters: ['default', fileURLToPath(new URL('./contract-reporter.js', import.meta.url))],
  },
});
