/**
 * The control plane's bodies keep to the limits of the API's own parameters: no extra
 * fields, bounded integers, rule matches that can fire.
 */
import { describe, expect, it } from 'vitest';
import { loadSpec } from '../../src/spec/loader.ts';
import { createSimulator, type Simulator } from '../simulator.ts';
import { ADDRESS } from '../test-support/fixtures.ts';

async function send(
  sim: Simulator,
  method: string,
  path: string,
  body: unknown,
): Promise<{ status: number; body: any }> {
  const res = await sim.app.request(path, {
    method,
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

describe('control-plane bodies', () => {
  it.each([
    ['PUT', '/_sim/supply', { energy: 1000, extra: 1 }, /'extra' is not allowed/],
    ['PUT', '/_sim/supply', '{"energy":2000000000000000}', /'energy' must be at most 1000000000000000/],
    ['PUT', '/_sim/supply', '{"energy":1e308}', /'energy' is 1e308, beyond 9007199254740991/],
    ['POST', '/_sim/accounts', '{"referralCount":2000000000}', /'referralCount' must be at most 1000000000/],
    ['POST', '/_sim/accounts', '{"referralCount":1e308}', /'referralCount' is 1e308, beyond/],
    [
      'POST',
      '/_sim/rules',
      { match: { pledgeAddress: 'not-an-address' }, outcome: 'FAILED' },
      /'match.pledgeAddress' must be a TRON address/,
    ],
    [
      'POST',
      '/_sim/rules',
      { match: { outOrderNo: 'x'.repeat(60_000) }, outcome: 'FAILED' },
      /'match.outOrderNo' must have at most 64 characters/,
    ],
    [
      'POST',
      '/_sim/rules',
      { match: { outOrderNo: '' }, outcome: 'FAILED' },
      /'match.outOrderNo' must have at least 1 character/,
    ],
    [
      'POST',
      '/_sim/rules',
      { match: {}, outcome: 'FAILED' },
      /'match' must name at least 1 field; leave it out/,
    ],
    ['POST', '/_sim/rules', { outcome: 'FAILED', times: 2e9 }, /'times' must be at most 1000000000/],
    ['PUT', `/_sim/addresses/${ADDRESS}`, { activated: true, extra: 1 }, /'extra' is not allowed/],
  ])(
    'refuses %s %s with a body out of limits with 400 naming the field and the rule (case %#)',
    async (method, path, body, message) => {
      const sim = createSimulator({ clock: 'manual' });
      const reply = await send(sim, method, path, body);
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({ code: 20002, data: null, msg: expect.stringMatching(message) });
    },
  );

  it.each([
    ['PUT', '/_sim/supply', { energy: 1_000_000_000_000_000 }, 200],
    ['PUT', '/_sim/supply', { energy: null }, 200],
    ['POST', '/_sim/accounts', { referralCount: 1_000_000_000 }, 201],
    [
      'POST',
      '/_sim/rules',
      { match: { pledgeAddress: ADDRESS, outOrderNo: 'x'.repeat(64) }, outcome: 'FAILED' },
      201,
    ],
    ['POST', '/_sim/rules', { outcome: 'FAILED', times: 3 }, 201],
  ])('accepts %s %s with a body at the limits (case %#)', async (method, path, body, status) => {
    const sim = createSimulator({ clock: 'manual' });
    expect((await send(sim, method, path, body)).status).toBe(status);
  });

  it('refuses a scenario whose limits the control plane would refuse', () => {
    expect(() =>
      createSimulator({ scenario: { accounts: [{ apiKey: 'k', referralCount: 1e308 }] } }),
    ).toThrow(/referralCount' must be at most/);
    expect(() => createSimulator({ scenario: { supply: 1e308 } })).toThrow(/'supply' must be at most/);
    expect(() => createSimulator({ scenario: { rules: [{ match: {}, outcome: 'FAILED' }] } })).toThrow(
      /'rules.0.match' must name at least 1 field/,
    );
    expect(() => createSimulator({ scenario: { activatedAddresses: ['TNotAnAddress'] } })).toThrow(
      /activatedAddresses.0' must be a TRON address/,
    );
  });

  it('defines TronAddress and OutOrderNo exactly as the API document does', () => {
    const strip = ({ description: _d, example: _e, 'x-unverified': _u, ...rest }: Record<string, unknown>) =>
      rest;
    const api = loadSpec('api').schemas;
    const control = loadSpec('control').schemas;
    for (const name of ['TronAddress', 'OutOrderNo'])
      expect(strip(control[name] as Record<string, unknown>)).toEqual(
        strip(api[name] as Record<string, unknown>),
      );
  });
});
