import { beforeAll } from 'vitest';

// The worker's own environment, before any target changed it.
const base = { ...process.env };

/** Runs this file's cases with the environment `contract` would set for the target alone. */
export function useTarget(env: Record<string, string>): void {
  beforeAll(() => {
    for (const key of Object.keys(process.env)) if (!(key in base)) delete process.env[key];
    Object.assign(process.env, base, env);
  });
}
