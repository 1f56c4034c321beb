/**
 * The vitest config the `contract` and `record` commands run the suite with, in a checkout
 * (the TypeScript sources) and in an installed package (the built suite in dist/, with the
 * kit's own vitest and nothing of the user's project: it is passed with --config).
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
    // The repository's tests run the suite a dozen times: they keep its transformed modules on disk.
    experimental: { fsModuleCache: extension === '.ts' && process.env.VITEST_POOL_ID !== undefined },
  },
});

export default config;
