/** The contract project's vitest settings, shared by vitest.config.ts and contract.vitest.config.ts. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestUserConfig } from 'vitest/config';
import { mayWaitPolitely } from './contract-config.ts';

/** A case's own time limit, waits for the target's pace and rate limit not counted. */
export const CASE_TIMEOUT_MS = 120_000;

const here = fileURLToPath(import.meta.url);

export const CONTRACT_PROJECT: TestUserConfig = {
  name: 'contract',
  // A run that may wait to be polite times its cases itself; vitest's timeout is then a backstop.
  testTimeout: mayWaitPolitely(process.env) ? 30 * 60_000 : CASE_TIMEOUT_MS,
  // Contract files keep their state in fixtures, so they can share one module graph.
  pool: 'threads',
  isolate: false,
  // The run's one pace, shared by every worker: .ts in a checkout, .js in the package.
  globalSetup: path.join(path.dirname(here), `pace-coordinator${path.extname(here)}`),
};
