import { describe, expect, it } from 'vitest';
import { API_OPERATION_IDS } from '../../src/generated/lists.ts';
import { createSimulator } from '../simulator.ts';
import { engineSource } from './engine-source.ts';

describe('engineSource', () => {
  it("takes a request validator for every operation of spec/openapi.yaml, the account's included", () => {
    const sim = createSimulator({ clock: 'manual' });
    const asked: string[] = [];
    const validators = {
      ...sim.apiValidators,
      request: (id: string) => (asked.push(id), sim.apiValidators.request(id)),
    };
    engineSource(sim.engine, validators);
    expect(asked).toEqual([...API_OPERATION_IDS]);
  });

  it('answers a price read after the prices change with the new price', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const price = async () => {
      const answer = await sim.fetch(
        new Request('http://sim.test/v1/tron/price?rentalCount=65000&period=1h', {
          headers: { 'api-key': 'demo-key' },
        }),
      );
      return ((await answer.json()) as { data: { trxPrice: string } }).data.trxPrice;
    };
    expect([await price(), await price()]).toEqual(['4.23', '4.23']);
    sim.engine.updateSettings({ prices: { '1h': 130 } });
    expect(await price()).toBe('8.45');
  });

  it('refuses an unknown path naming every API path the spec lists', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const answer = await sim.fetch(
      new Request('http://sim.test/v1/tron/nothing', { headers: { 'api-key': 'demo-key' } }),
    );
    const body = (await answer.json()) as { msg: string };
    expect(answer.status).toBe(404);
    const { API_PATHS } = await import('../../src/generated/lists.ts');
    for (const path of API_PATHS) expect(body.msg).toContain(path);
  });
});
