/** The vitest config `contract` and `record` run the suite with, in a checkout or an installed package. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type ViteUserConfig } from 'vitest/config';
import { CONTRACT_PROJECT } from './contract-project.ts';

const here = fileURLToPath(import.meta.url);
/** '.ts' in a checkout, '.js' in the package. */
const extension = path.extname(here);
const suiteRoot = path.resolve(path.dirname(here), '..');
/** The built suite's own modules, as vite names them (forward slashes on every platform). */
const builtModules = new RegExp(
  `^${suiteRoot
    .split(path.sep)
    .join('/')
    .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/`,
);

const config: ViteUserConfig = defineConfig({
  test: {
    ...CONTRACT_PROJECT,
    root: suiteRoot,
    include: [`contract-tests/*.contract.test${extension}`],
    // The suite lives under node_modules in a user's project, which vitest leaves out by default.
    exclude: [],
    // Built, the suite is JavaScript that Node loads as it is: vitest does so under node_modules,
    // and this says so wherever else it lies (a link, a workspace, a checkout's dist/).
    server: { deps: { external: extension === '.js' ? [builtModules] : [] } },
    reporters: ['default', path.join(path.dirname(here), `contract-reporter${extension}`)],
    // The repository's tests run the suite a dozen times: they keep its transformed modules on disk.
    experimental: { fsModuleCache: extension === '.ts' && process.env.VITEST_POOL_ID !== undefined },
  },
});

export default config;
