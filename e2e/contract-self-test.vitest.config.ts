/** The contract suite against every target of the self-test in one vitest (contract-self-test-run.ts). */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { CONTRACT_PROJECT } from '../contract-tests/contract-project.ts';
import { readPlan } from './contract-self-test-reporter.ts';

const plan = readPlan(process.env.CONTRACT_SELF_TEST_PLAN);

export default defineConfig({
  test: {
    ...CONTRACT_PROJECT,
    name: 'contract-self-test',
    root: fileURLToPath(new URL('..', import.meta.url)),
    dir: plan.dir,
    include: ['*/*.contract.test.ts'],
    maxWorkers: plan.maxWorkers,
    reporters: [[fileURLToPath(new URL('./contract-self-test-reporter.ts', import.meta.url)), { plan }]],
  },
});
