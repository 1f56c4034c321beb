/** Helpers shared by the tests that call a simulator's app in-process (no socket). */
import { expect } from 'vitest';
import { NODE_OPERATIONS } from '../../src/generated/lists.ts';
import { createValidators, loadSpec, type ValidateFunction } from '../../src/spec/loader.ts';
import type { Simulator } from '../simulator.ts';

export interface Reply {
  status: number;
  headers: Headers;
  // Envelopes are read field by field and checked against the spec where it matters.
  body: any;
  text: string;
}

const control = createValidators(loadSpec('control'));
const node = createValidators(loadSpec('node'));
const JSON_TYPE = { 'content-type': 'application/json' };

/** Sends a request to the app and reads its JSON body: `await send(sim, '/v1/account', { headers })`. */
export async function send(sim: Simulator, path: string, init: RequestInit = {}): Promise<Reply> {
  const res = await sim.app.request(path, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined, text };
}

/** A GET with an API key (the demo key unless told). */
export const get = (sim: Simulator, path: string, apiKey = 'demo-key'): Promise<Reply> =>
  send(sim, path, { headers: { 'API-KEY': apiKey } });

/** Fails with ajv's errors unless `body` passes the spec's validator (which must exist). */
export function expectValid(validate: ValidateFunction | undefined, body: unknown): void {
  expect(validate, 'the spec defines a JSON body for this response').toBeDefined();
  expect(validate!(body), JSON.stringify(validate!.errors)).toBe(true);
}

/** Sends `method` with the API key and a JSON body when given: `await call(sim, 'POST', path, { body })`. */
export const call = (
  sim: Simulator,
  method: string,
  path: string,
  { body, apiKey }: { body?: unknown; apiKey?: string } = {},
): Promise<Reply> =>
  send(sim, path, {
    method,
    headers: { ...(apiKey ? { 'API-KEY': apiKey } : {}), ...(body === undefined ? {} : JSON_TYPE) },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });

/** A GET, with an API key only when one is given (the control plane reads none). */
export const callGet = (sim: Simulator, path: string, apiKey?: string): Promise<Reply> =>
  call(sim, 'GET', path, apiKey ? { apiKey } : {});

/** Checks a control-plane answer against control.yaml's response for the operation and status. */
export function expectControlResponse(operationId: string, reply: Reply): void {
  expectValid(control.response(operationId, reply.status), reply.body);
}

/** Checks a list answer's items against their component schema (the loader cannot compile inline ones). */
export function expectItems(reply: Reply, key: string, schema: string): void {
  expect(Object.keys(reply.body)).toEqual([key]);
  expect(Array.isArray(reply.body[key])).toBe(true);
  const validate: ValidateFunction = control.schema(schema);
  for (const item of reply.body[key]) expect(validate(item), JSON.stringify(validate.errors)).toBe(true);
}

/** Calls the simulated TRON node (a string body is a GET query), checked against spec/tron-node.yaml. */
export async function nodeCall(
  sim: Simulator,
  path: string,
  body: Record<string, unknown> | string = {},
  headers: Record<string, string> = {},
): Promise<Reply> {
  const get = typeof body === 'string';
  const reply = await send(sim, get ? `${path}?${body}` : path, {
    method: get ? 'GET' : 'POST',
    headers: get ? headers : { ...JSON_TYPE, ...headers },
    ...(get ? {} : { body: JSON.stringify(body) }),
  });
  expect(reply.status).toBe(200);
  const operation = Object.entries(NODE_OPERATIONS).find(
    ([, op]) => op.path === path && op.method === (get ? 'GET' : 'POST'),
  )?.[0];
  expectValid(node.response(operation!, 200), reply.body);
  return reply;
}

/**
 * Checks every TRON node answer from now on against spec/tron-node.yaml, however asked; the function
 * returned tells how many were checked and which failed (a listener's throw would not reach the test).
 */
export function checkNodeAnswers(sim: Simulator): () => { checked: number; invalid: string[] } {
  let checked = 0;
  const invalid: string[] = [];
  sim.exchanges.subscribe((exchange) => {
    const operation = exchange.operation;
    if (operation === undefined || !(operation in NODE_OPERATIONS)) return;
    const validate = node.response(operation, 200)!;
    if (!validate(exchange.response))
      invalid.push(
        `${operation}: ${JSON.stringify(validate.errors)} in ${JSON.stringify(exchange.response)}`,
      );
    checked++;
  });
  return () => ({ checked, invalid });
}
