/**
 * The contract suite against every target of the self-test in one vitest process and
 * one project. e2e/contract-self-test.test.ts writes the plan (CONTRACT_SELF_TEST_PLAN)
 * and one small test file per target and contract file into the plan's directory; each
 * imports its contract file afresh and sets the target's environment
 * (contract-self-test-target.ts). Workers are not isolated, as in the contract project,
 * so each loads the suite's modules once and then runs file after file of any target;
 * a project per target would give each target workers and a module graph of its own,
 * which costs as much as the child process per target it replaces.
 */
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
