/**
 * Helpers shared by the tests that call a simulator's app in-process (no socket).
 */
import { expect } from 'vitest';
import type { ValidateFunction } from '../../src/spec/loader.ts';
import type { Simulator } from '../simulator.ts';

export interface Reply {
  status: number;
  headers: Headers;
  // Envelopes are read field by field and checked against the spec where it matters.
  body: any;
}

/**
 * Sends a request to the app and reads its JSON body (undefined when empty).
 *
 * @example
 *   const reply = await send(sim, '/v1/account', { headers: { 'API-KEY': 'demo-key' } });
 */
export async function send(sim: Simulator, path: string, init: RequestInit = {}): Promise<Reply> {
  const res = await sim.app.request(path, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

/** A GET with an API key (the demo key unless told). */
export const get = (sim: Simulator, path: string, apiKey = 'demo-key'): Promise<Reply> =>
  send(sim, path, { headers: { 'API-KEY': apiKey } });

/** Fails with ajv's errors unless `body` passes the spec's validator (which must exist). */
export function expectValid(validate: ValidateFunction | undefined, body: unknown): void {
  expect(validate, 'the spec defines a JSON body for this response').toBeDefined();
  expect(validate!(body), JSON.stringify(validate!.errors)).toBe(true);
}
