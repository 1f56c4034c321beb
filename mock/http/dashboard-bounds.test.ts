/**
 * The dashboard snapshot is capped: at most DASHBOARD_LIST_LIMIT of
 * each list, newest first, with `totals` so a view can say "showing N of M".
 */
import { describe, expect, it } from 'vitest';
import { createValidators, loadSpec } from '../../src/spec/loader.ts';
import { encodeTronAddress } from '../../src/tron-address.ts';
import { createSimulator } from '../simulator.ts';
import { DASHBOARD_LIST_LIMIT } from './dashboard-routes.ts';

const control = createValidators(loadSpec('control'));

function address(n: number): string {
  const id = new Uint8Array(20);
  new DataView(id.buffer).setUint32(16, n + 1);
  return encodeTronAddress(id);
}

describe('GET /_sim/dashboard with more than it shows', () => {
  it('answers at most DASHBOARD_LIST_LIMIT accounts and addresses, newest first, with totals', async () => {
    const sim = createSimulator({ clock: 'manual' });
    for (let n = 0; n < 300; n++) sim.engine.createAccount({ trx: 1 });
    for (let n = 0; n < 1000; n++) sim.engine.setAddress(address(n), true);
    const res = await sim.app.request('/_sim/dashboard');
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(control.response('getDashboard', 200)!(body)).toBe(true);
    expect(body.accounts).toHaveLength(DASHBOARD_LIST_LIMIT);
    expect(body.accounts[0].walletAddress).toBe(sim.engine.accounts().at(-1)!.walletAddress);
    expect(body.addresses).toHaveLength(DASHBOARD_LIST_LIMIT);
    expect(body.addresses[0].address).toBe(address(999));
    expect(body.totals).toEqual({
      accounts: 301,
      orders: 0,
      addresses: 1000,
      rules: 0,
      faults: 0,
      journal: 0,
    });
  });

  it('stays small after 300 000 distinct addresses, as the registry is bounded too', async () => {
    const sim = createSimulator({ clock: 'manual' });
    for (let n = 0; n < 300_000; n++) sim.engine.setAddress(address(n), true);
    const text = await (await sim.app.request('/_sim/dashboard')).text();
    expect(text.length).toBeLessThan(200_000);
    expect(JSON.parse(text).totals.addresses).toBe(100_000);
  }, 60_000);
});
