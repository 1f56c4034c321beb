/**
 * The control plane by mode: in proxy and replay mode the engine's controls are refused
 * with a 409 naming the mode, as spec/control.yaml's x-modes lists them, while health,
 * reset, the journal, the faults and the rate limit work as in the simulator.
 */
import { describe, expect, it } from 'vitest';
import { CONTROL_OPERATIONS, SETTING_MODES, type Mode } from '../../src/generated/lists.ts';
import { createSimulator, type Simulator } from '../simulator.ts';
import { offeredIn } from './control-modes.ts';

const KEY = { 'API-KEY': 'demo-key' };
const JSON_BODY = { 'content-type': 'application/json' };

function simulatorIn(mode: Mode): Simulator {
  const upstream = createSimulator({ clock: 'manual', timing: 'instant', seed: 5 });
  if (mode === 'proxy')
    return createSimulator({
      clock: 'manual',
      proxy: { upstream: 'http://upstream.test', fetch: upstream.fetch },
    });
  if (mode === 'replay')
    return createSimulator({ clock: 'manual', replay: { fetch: upstream.fetch, source: 'r.json' } });
  return createSimulator({ clock: 'manual' });
}

/** The operation's path with its parameters filled in. */
const concrete = (path: string): string =>
  path
    .replace('{orderId}', 'OR20250312175009BJ1QRQH7')
    .replace('{id}', 'rule-1')
    .replace('{address}', 'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3');

async function call(sim: Simulator, method: string, path: string, body?: unknown) {
  const response = await sim.app.request(path, {
    method,
    headers: { ...KEY, ...JSON_BODY },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as { code?: number; msg?: string }) : {} };
}

const refusedIn = (mode: string) =>
  Object.entries(CONTROL_OPERATIONS).filter(([, op]) => !(op.modes as readonly string[]).includes(mode));

describe.each(['proxy', 'replay'] as const)('the control plane in %s mode', (mode) => {
  it('refuses every control the spec does not list for the mode with 409, code 30003 and the mode named', async () => {
    const refused = refusedIn(mode);
    expect(refused.map(([id]) => id)).toEqual(
      expect.arrayContaining([
        'addRule',
        'createAccount',
        'listOrders',
        'advanceClock',
        'setSupply',
        'setAddress',
        'getScenario',
      ]),
    );
    const sim = simulatorIn(mode);
    for (const [id, op] of refused) {
      const answer = await call(
        sim,
        op.method,
        concrete(op.path),
        op.method === 'GET' || op.method === 'DELETE' ? undefined : {},
      );
      expect(answer.status, id).toBe(409);
      expect(answer.body.code, id).toBe(30003);
      expect(answer.body.msg, id).toContain(`refused in ${mode} mode`);
      expect(answer.body.msg, id).toContain(offeredIn(mode));
    }
  });

  it('leaves the engine untouched by a refused control', async () => {
    const sim = simulatorIn(mode);
    await call(sim, 'POST', '/_sim/rules', { match: { outOrderNo: 'x' }, outcome: 'FAILED' });
    expect(sim.engine.rules.list()).toEqual([]);
  });

  it('serves health, reset, the journal, the faults and the settings read as in the simulator', async () => {
    const sim = simulatorIn(mode);
    expect((await call(sim, 'GET', '/_sim/health')).status).toBe(200);
    expect((await call(sim, 'GET', '/_sim/journal')).status).toBe(200);
    expect((await call(sim, 'GET', '/_sim/config')).status).toBe(200);
    expect(
      (await call(sim, 'POST', '/_sim/faults', { operation: 'getPrice', response: 'drop' })).status,
    ).toBe(201);
    expect((await call(sim, 'GET', '/_sim/faults')).status).toBe(200);
    expect((await call(sim, 'DELETE', '/_sim/faults')).status).toBe(200);
    expect((await call(sim, 'DELETE', '/_sim/journal')).status).toBe(200);
    expect((await call(sim, 'POST', '/_sim/reset')).status).toBe(200);
  });

  it('takes a rate limit alone, and refuses a patch that mixes it with an engine setting whole, naming that setting', async () => {
    const sim = simulatorIn(mode);
    const mixed = await call(sim, 'PATCH', '/_sim/config', {
      rateLimit: { requests: 5, windowMs: 1000 },
      prices: { '1h': '70' },
      failureRate: 0.5,
    });
    expect(mixed.status).toBe(409);
    expect(mixed.body.msg).toMatch(
      new RegExp(
        `^PATCH /_sim/config is refused whole in ${mode} mode .*: prices, failureRate set the simulator's engine`,
      ),
    );
    expect(mixed.body.msg).toContain('only rateLimit can be changed');
    expect(sim.engine.settings().rateLimit).toBeNull();
    const alone = await call(sim, 'PATCH', '/_sim/config', { rateLimit: { requests: 5, windowMs: 1000 } });
    expect(alone.status).toBe(200);
    expect(sim.engine.settings().rateLimit).toEqual({ requests: 5, windowMs: 1000 });
  });

  it('shows no local accounts or orders on the dashboard, and names the mode', async () => {
    const sim = simulatorIn(mode);
    const snapshot = (await (await sim.app.request('/_sim/dashboard')).json()) as {
      mode: string;
      accounts: unknown[];
      orders: unknown[];
      totals: { accounts: number; orders: number };
    };
    expect(snapshot).toMatchObject({ mode, accounts: [], orders: [], totals: { accounts: 0, orders: 0 } });
  });
});

describe('the control plane in simulator mode', () => {
  it('takes every control, engine settings included', async () => {
    expect(refusedIn('simulator')).toEqual([]);
    const sim = simulatorIn('simulator');
    expect(
      (await call(sim, 'POST', '/_sim/rules', { match: { outOrderNo: 'x' }, outcome: 'FAILED' })).status,
    ).toBe(201);
    expect((await call(sim, 'PATCH', '/_sim/config', { failureRate: 0.5, rateLimit: null })).status).toBe(
      200,
    );
  });

  it('lists the rate limit alone among the settings of the other modes', () => {
    const shared = Object.entries(SETTING_MODES).filter(([, modes]) => modes.includes('proxy'));
    expect(shared.map(([name]) => name)).toEqual(['rateLimit']);
    expect(offeredIn('proxy')).toBe(
      'health, reset, config (rateLimit), faults, journal, calls, coverage, dashboard, events, ui',
    );
  });
});
