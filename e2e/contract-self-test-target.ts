/**
 * Imported by the self-test's generated test files: one file per target and contract
 * file, which imports that contract file afresh (its own module instance, so its module
 * state is the target's alone) and calls useTarget with the target's environment.
 */
import { beforeAll } from 'vitest';

// The worker's own environment, before any target changed it.
const base = { ...process.env };

/**
 * Runs this file's contract cases with the environment `contract` would set for the
 * target alone. The suite reads its settings from process.env when a file's first case
 * starts; a worker runs one file at a time, and each worker thread has an environment of
 * its own, so no other file sees this one's.
 */
export function useTarget(env: Record<string, string>): void {
  beforeAll(() => {
    for (const key of Object.keys(process.env)) if (!(key in base)) delete process.env[key];
    Object.assign(process.env, base, env);
  });
}
