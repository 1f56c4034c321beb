/**
 * The operation table is the one place each operation is written; these hold it to the
 * spec it answers for.
 */
import { describe, expect, it } from 'vitest';
import { loadSpec } from '../../src/spec/loader.ts';
import { createSimulator } from '../simulator.ts';
import { API_OPERATIONS, API_PATHS_NAMED, findApiOperation } from './api-operations.ts';
import { createReadDataCache } from './read-data-cache.ts';

describe('the API operation table', () => {
  it('names every operation of spec/openapi.yaml with its method and path, and no other', () => {
    const fromSpec = loadSpec('api').operations.map((op) => `${op.operationId} ${op.method} ${op.path}`);
    const fromTable = Object.values(API_OPERATIONS).map((op) => `${op.id} ${op.method} ${op.path}`);
    expect(fromTable.sort()).toEqual(fromSpec.sort());
  });

  it('names every path of spec/openapi.yaml in the list messages quote', () => {
    const paths = [...new Set(loadSpec('api').operations.map((op) => op.path))];
    expect(API_PATHS_NAMED.split(', ')).toEqual(paths);
  });

  it('finds an operation by method and path only', () => {
    expect(findApiOperation('GET', '/v1/tron/price')?.id).toBe('getPrice');
    expect(findApiOperation('POST', '/v1/tron/price')).toBeUndefined();
    expect(findApiOperation('GET', '/v1/tron/order')).toBeUndefined();
  });

  it('gives the same data from the read cache as built afresh', () => {
    const sim = createSimulator({ clock: 'manual' });
    const account = sim.engine.authenticate('demo-key')!;
    const cache = createReadDataCache(sim.engine);
    for (const answer of [
      API_OPERATIONS.getPrice.answer(sim.engine, account, { rentalCount: 65_000, period: '1h' }),
      API_OPERATIONS.getAccount.answer(sim.engine, account, {}),
    ]) {
      expect(JSON.parse(answer.text(cache))).toEqual(answer.data());
      expect(answer.text(cache)).toBe(answer.text(cache));
    }
  });
});
