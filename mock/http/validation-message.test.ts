/**
 * The message of a request with several bad parameters: each named once, by its most
 * telling rule, and none left out.
 */
import { describe, expect, it } from 'vitest';
import { createSimulator } from '../simulator.ts';

const sim = createSimulator({ clock: 'manual' });
const KEY = { 'API-KEY': 'demo-key' };

async function msgOf(path: string, init: RequestInit = {}): Promise<string> {
  const response = await sim.app.request(path, { ...init, headers: { ...KEY, ...(init.headers ?? {}) } });
  expect(response.status).toBe(400);
  return ((await response.json()) as { msg: string }).msg;
}

describe('the message of a request with several bad parameters', () => {
  it('names each bad parameter once, the bad period included', async () => {
    const msg = await msgOf('/v1/tron/order', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'pledgeAddress=Tbad&rentalCount=1&period=2h',
    });
    expect(msg.match(/'pledgeAddress'/g)).toHaveLength(1);
    expect(msg).toContain("Parameter 'pledgeAddress' must be a TRON address");
    expect(msg).toContain("Parameter 'rentalCount' must be at least 64000 (got '1').");
    expect(msg).toContain("Parameter 'period' must be one of 10min, 1h, 1d, 3d, 7d, 14d, 30d (got '2h').");
  });

  it('bounds the message of a body with many unknown fields, saying how many more there are', async () => {
    const body = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`field${i}`, i]));
    const response = await sim.app.request('/_sim/config', {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const msg = ((await response.json()) as { msg: string }).msg;
    expect(response.status).toBe(400);
    expect(msg.match(/is not allowed here/g)).toHaveLength(8);
    expect(msg).toMatch(/And 12 more\.$/);
  });
});
