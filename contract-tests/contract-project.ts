/**
 * The contract project's vitest settings, shared by the repository's vitest.config.ts
 * (`npm test`) and the config the `contract` and `record` commands run the suite with, in
 * a checkout and in an installed package (contract.vitest.config.ts).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mayWaitPolitely } from './politeness-settings.ts';

/** A case's own time limit, waits for the target's pace and rate limit not counted. */
export const CASE_TIMEOUT_MS = 120_000;

/**
 * vitest's timeout when the run may wait to be polite: only a backstop for a case stuck
 * outside any request, since the suite itself fails a case that spends CASE_TIMEOUT_MS of
 * its own time (contract-test.ts) and vitest's clock cannot leave the waits out.
 */
export const POLITE_BACKSTOP_MS: number = 30 * 60_000;

const here = fileURLToPath(import.meta.url);

/** The settings of the contract project (a vitest project's test options). */
export interface ContractProject {
  readonly name: 'contract';
  readonly testTimeout: number;
  readonly pool: 'threads';
  readonly isolate: false;
  readonly globalSetup: string;
}

export const CONTRACT_PROJECT: ContractProject = {
  name: 'contract',
  testTimeout: mayWaitPolitely(process.env) ? POLITE_BACKSTOP_MS : CASE_TIMEOUT_MS,
  // Contract files keep their state in fixtures, so sharing one module graph is safe, and
  // it halves the suite's start-up.
  pool: 'threads',
  isolate: false,
  // The run's one pace, shared by every worker: .ts in a checkout, .js in the package.
  globalSetup: path.join(path.dirname(here), `pace-global-setup${path.extname(here)}`),
};
