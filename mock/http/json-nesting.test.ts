/**
 * Bad input is a 4xx however it nests: a JSON body nested thousands of levels deep once
 * overflowed the stack in the validation message and answered 500.
 */
import { describe, expect, it } from 'vitest';
import { loadSpec } from '../../src/spec/loader.ts';
import { createSimulator } from '../simulator.ts';
import { MAX_JSON_DEPTH, nestsTooDeep } from './request-body.ts';
import { send } from '../test-support/http-test-support.ts';
import { ADDRESS } from '../test-support/fixtures.ts';

const nested = (depth: number, leaf = ''): string => '['.repeat(depth) + leaf + ']'.repeat(depth);

/** Every control-plane operation that takes a JSON body, as the spec lists them. */
const JSON_ENDPOINTS = loadSpec('control')
  .operations.filter((op) => op.jsonBodySchema !== undefined)
  .map((op) => ({ id: op.operationId, method: op.method, path: op.path.replace('{address}', ADDRESS) }));

describe('deeply nested JSON bodies', () => {
  it('finds the eight JSON-body endpoints of the control plane in the spec', () => {
    expect(JSON_ENDPOINTS.map((e) => e.id).sort()).toEqual(
      [
        'addRule',
        'advanceClock',
        'createAccount',
        'deposit',
        'injectFault',
        'setAddress',
        'setSupply',
        'updateConfig',
      ].sort(),
    );
  });

  for (const endpoint of JSON_ENDPOINTS) {
    for (const [shape, body] of [
      ['a value nested 5000 deep', `{"ms":${nested(5000)}}`],
      ['a nested value beside an apiKey', `{"apiKey":"deep-key-1","trx":${nested(5000, '1')}}`],
      ['a top-level array nested 5000 deep', nested(5000)],
      ['objects nested 5000 deep', `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`],
    ] as const) {
      it(`refuses ${shape} on ${endpoint.method} ${endpoint.path} with 400 and a message naming the depth rule`, async () => {
        const sim = createSimulator({ clock: 'manual' });
        const reply = await send(sim, endpoint.path, {
          method: endpoint.method,
          headers: { 'content-type': 'application/json', 'API-KEY': 'demo-key' },
          body,
        });
        expect(reply.status).toBe(400);
        expect(reply.body).toMatchObject({
          code: 20003,
          msg: expect.stringContaining(`deeper than ${MAX_JSON_DEPTH} levels`),
          data: null,
        });
        expect(sim.journal.list().at(-1)).toMatchObject({ status: 400 });
      });
    }
  }

  it('still names the value of a shallow wrong-typed field in the message', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await send(sim, '/_sim/clock/advance', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"ms":[[1]]}',
    });
    expect(reply).toMatchObject({ status: 400, body: { code: 20002, msg: expect.stringContaining("'ms'") } });
  });

  it('measures depth outside strings only', () => {
    expect(nestsTooDeep(`{"a":[1,{"b":"${'['.repeat(MAX_JSON_DEPTH + 1)}"}]}`)).toBe(false);
    expect(nestsTooDeep(`"\\"${'['.repeat(MAX_JSON_DEPTH + 1)}"`)).toBe(false);
    expect(nestsTooDeep(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(nestsTooDeep(nested(MAX_JSON_DEPTH + 1))).toBe(true);
  });
});
