/**
 * The operation table is the one place each operation is written; these hold it to the
 * spec it answers for.
 */
import { describe, expect, it } from 'vitest';
import { loadSpec } from '../../src/spec/loader.ts';
import { createEngine } from '../engine/index.ts';
import { createManualClock } from '../engine/manual-clock.ts';
import { createSimulator } from '../simulator.ts';
import {
  API_OPERATIONS,
  API_PATHS_NAMED,
  envelope,
  envelopeTime,
  findApiOperation,
} from './api-operations.ts';

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

  it('answers with the data of its view', () => {
    const sim = createSimulator({ clock: 'manual' });
    const account = sim.engine.authenticate('demo-key')!;
    const price = API_OPERATIONS.getPrice.run(sim.engine, account, { rentalCount: 65_000, period: '1h' });
    expect(price).toMatchObject({ code: 0, msg: 'Get price successfully' });
    expect(price.data).toMatchObject({ sun: '65', trxPrice: '4.23', period: '1h', rentalCount: 65_000 });
    expect(API_OPERATIONS.getAccount.run(sim.engine, account, {}).data).toMatchObject({
      walletAddress: account.walletAddress,
    });
  });
});

describe('the envelope', () => {
  const engine = createEngine({ clock: createManualClock(Date.UTC(2025, 2, 12, 17, 50, 9, 999)) });

  it('holds the code, the message, the time and the data, in that order', () => {
    expect(JSON.stringify(envelope(engine, 1, 'Get user information successfully', { name: 'User-T' }))).toBe(
      '{"code":1,"msg":"Get user information successfully","time":"1741801809","data":{"name":"User-T"}}',
    );
  });

  it('stamps the time from the engine clock in Unix seconds, or in ms when the settings say so', () => {
    expect(envelopeTime(engine)).toBe('1741801809');
    engine.updateSettings({ envelopeTimeUnit: 'ms' });
    expect(envelopeTime(engine)).toBe('1741801809999');
  });
});
