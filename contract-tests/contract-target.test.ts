import { describe, expect, it } from 'vitest';
import { createSimulator } from '../mock/simulator.ts';
import { hideControlPlane } from './contract-target.ts';

const BASE = 'http://simulator.in-process';

async function answer(fetch: (request: Request) => Promise<Response>, path: string) {
  const response = await fetch(new Request(`${BASE}${path}`));
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    // The envelope's time is the only part that may differ between two answers.
    body: (await response.text()).replace(/"time":"\d+"/, '"time":"…"'),
  };
}

describe('a simulator recorded as the real service', () => {
  it('hides its control plane behind its own unknown-path answer, as calibrated', async () => {
    const sim = createSimulator({ clock: 'manual' });
    sim.engine.updateSettings({ unknownPath: 'html' });
    const hidden = hideControlPlane(sim.fetch, BASE);
    const control = await answer(hidden, '/_sim/health');
    expect(control).toEqual(await answer(hidden, '/v1/tron/no-such-operation'));
    expect(control).toMatchObject({ status: 404, type: 'text/html' });
  });

  it('answers its JSON unknown-path envelope for the control plane by default', async () => {
    const hidden = hideControlPlane(createSimulator({ clock: 'manual' }).fetch, BASE);
    const control = await answer(hidden, '/_sim/accounts/me');
    expect(control.status).toBe(404);
    expect(JSON.parse(control.body)).toMatchObject({ code: 40400 });
  });

  it('leaves the API alone', async () => {
    const hidden = hideControlPlane(createSimulator({ clock: 'manual' }).fetch, BASE);
    const response = await hidden(
      new Request(`${BASE}/v1/tron/price?rentalCount=65000&period=1h`, {
        headers: { 'API-KEY': 'demo-key' },
      }),
    );
    expect(((await response.json()) as { data: { trxPrice: string } }).data.trxPrice).toBe('4.23');
  });
});
