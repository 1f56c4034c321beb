/**
 * The vitest config the `contract` and `record` commands run the suite with, in a checkout
 * (the TypeScript sources) and in an installed package (the built suite in dist/, with the
 * kit's own vitest and nothing of the user's project: `contract` passes this file with
 * --config, so no config of theirs is read). A checkout's vitest.config.ts also holds the
 * suite, as one of its projects, for `npm test`; a command's run starts from this file
 * instead, which sets up one project where that one sets up every project of the
 * repository (a second of CPU a run, and the commands run the suite a dozen times in
 * `npm test`).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type ViteUserConfig } from 'vitest/config';
import { CONTRACT_PROJECT } from './contract-project.ts';

const here = fileURLToPath(import.meta.url);
/** '.ts' in a checkout, '.js' in the package. */
const extension = path.extname(here);

const config: ViteUserConfig = defineConfig({
  test: {
    ...CONTRACT_PROJECT,
    root: path.resolve(path.dirname(here), '..'),
    include: [`contract-tests/*.contract.test${extension}`],
    // The suite lives under node_modules in a user's project, which vitest leaves out by default.
    exclude: [],
    reporters: ['default', path.join(path.dirname(here), `contract-reporter${extension}`)],
    // A checkout's suite started by a test of the repository (the commands run it a dozen
    // times in `npm test`) keeps the modules it transforms on disk, keyed by their content,
    // so the next run starts from them instead of transforming the same sources again
    // (about a second of CPU each time). A run of yours, or of the package, transforms afresh.
    experimental: { fsModuleCache: extension === '.ts' && process.env.VITEST_POOL_ID !== undefined },
  },
});

export default config;
