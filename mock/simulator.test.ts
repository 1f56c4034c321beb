/**
 * createSimulator: options, independence, the in-process fetch, advance() and the
 * determinism of everything derived from the seed.
 */
import { describe, expect, it } from 'vitest';
import { createManualClock } from './engine/manual-clock.ts';
import { SimulatorError } from './engine/index.ts';
import { createSimulator, type Simulator, type SimulatorOptions } from './simulator.ts';
import { ADDRESS, OTHER_ADDRESS } from './test-support/fixtures.ts';

const START_MS = 1_741_801_809_000;

async function json(sim: Simulator, path: string, init: RequestInit = {}): Promise<any> {
  const res = await sim.app.request(path, init);
  return res.json();
}

const demo = { 'API-KEY': 'demo-key' };

/** One fixed sequence of requests; answers every id, address and txId it produced. */
async function script(sim: Simulator): Promise<string[]> {
  const out: string[] = [];
  out.push((await json(sim, '/v1/account', { headers: demo })).data.walletAddress);
  for (let i = 0; i < 2; i++) {
    out.push(
      (await json(sim, '/_sim/accounts', { method: 'POST', body: '{"balance":{"trx":"10"}}' })).walletAddress,
    );
  }
  const ids: string[] = [];
  for (const [address, count] of [
    [ADDRESS, 65000],
    [OTHER_ADDRESS, 70000],
    [ADDRESS, 80000],
  ] as const) {
    sim.advance(1500);
    ids.push(
      (
        await json(sim, `/v1/tron/order?pledgeAddress=${address}&rentalCount=${count}&period=1h`, {
          method: 'POST',
          headers: demo,
        })
      ).data.id,
    );
  }
  sim.advance(10_000);
  for (const id of ids) {
    const { data } = await json(sim, `/v1/tron/history?orderId=${id}`, { headers: demo });
    out.push(data.orderId, data.txId, String(data.createdAt));
    const view = await json(sim, `/_sim/orders/${id}`, { headers: demo });
    out.push(...view.timeline.map((s: { status: string; at: number }) => `${s.status}@${s.at}`));
  }
  return out;
}

describe('determinism', () => {
  it('gives two simulators with the same seed the same order ids, wallet addresses and txIds', async () => {
    const options: SimulatorOptions = { clock: 'manual', seed: 7 };
    const first = await script(createSimulator(options));
    const second = await script(createSimulator(options));
    expect(second).toEqual(first);
    expect(first.filter((v) => /^[0-9a-f]{64}$/.test(v))).toHaveLength(3);
    expect(first.filter((v) => /^OR\d{14}[A-Z0-9]{8}$/.test(v))).toHaveLength(3);
  });

  it('gives another seed other ids, addresses and txIds', async () => {
    const seven = await script(createSimulator({ clock: 'manual', seed: 7 }));
    const eight = await script(createSimulator({ clock: 'manual', seed: 8 }));
    const generated = (values: string[]) => values.filter((v) => /^(T|OR|[0-9a-f]{64}$)/.test(v));
    for (const value of generated(eight)) expect(generated(seven)).not.toContain(value);
  });

  it('replays the same sequence after a reset', async () => {
    const sim = createSimulator({ clock: 'manual', seed: 3 });
    const before = await script(sim);
    await sim.app.request('/_sim/reset', { method: 'POST' });
    expect(await script(sim)).toEqual(before);
  });

  it("takes the scenario's seed when no seed option is given, and lets the option win", async () => {
    const fromScenario = await script(
      createSimulator({
        clock: 'manual',
        scenario: { seed: 7, accounts: [{ apiKey: 'demo-key', balance: { trx: '100' } }] },
      }),
    );
    const fromOption = await script(
      createSimulator({
        clock: 'manual',
        seed: 7,
        scenario: { seed: 99, accounts: [{ apiKey: 'demo-key', balance: { trx: '100' } }] },
      }),
    );
    const fromOtherSeed = await script(
      createSimulator({
        clock: 'manual',
        scenario: { seed: 99, accounts: [{ apiKey: 'demo-key', balance: { trx: '100' } }] },
      }),
    );
    expect(fromOption).toEqual(fromScenario);
    expect(fromOtherSeed).not.toEqual(fromScenario);
  });

  it('never derives generated API keys from the seed', async () => {
    const keys = await Promise.all(
      [1, 2].map(
        async () =>
          (
            await json(createSimulator({ clock: 'manual', seed: 7 }), '/_sim/accounts', {
              method: 'POST',
              body: '{}',
            })
          ).apiKey as string,
      ),
    );
    expect(keys[0]).not.toBe(keys[1]);
  });
});

describe('independence', () => {
  it('keeps the state of two simulators apart', async () => {
    const one = createSimulator({ clock: 'manual' });
    const two = createSimulator({ clock: 'manual' });
    await one.app.request(`/v1/tron/order?pledgeAddress=${ADDRESS}&rentalCount=65000&period=1h`, {
      method: 'POST',
      headers: demo,
    });
    one.advance(5000);
    expect((await json(one, '/_sim/orders', { headers: demo })).orders).toHaveLength(1);
    expect((await json(two, '/_sim/orders', { headers: demo })).orders).toEqual([]);
    expect(two.clock.now()).toBe(START_MS);
  });
});

describe('the in-process fetch', () => {
  it('calls the app with a full URL, as a client would', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const res = await sim.fetch('http://simulator.local/v1/tron/price?rentalCount=65000&period=1h', {
      headers: demo,
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: { trxPrice: string } }).data.trxPrice).toBe('4.23');
  });

  it('sends a body through', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const res = await sim.fetch(new URL('http://simulator.local/v1/tron/order'), {
      method: 'POST',
      headers: { ...demo, 'content-type': 'application/x-www-form-urlencoded' },
      body: `pledgeAddress=${ADDRESS}&rentalCount=65000&period=1h`,
    });
    expect(((await res.json()) as { code: number }).code).toBe(0);
  });
});

describe('advance()', () => {
  it('moves a manual clock and runs the lifecycle steps that fall due', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const { data } = await json(sim, `/v1/tron/order?pledgeAddress=${ADDRESS}&rentalCount=65000&period=1h`, {
      method: 'POST',
      headers: demo,
    });
    sim.advance(7000);
    expect(sim.clock.now()).toBe(START_MS + 7000);
    expect((await json(sim, `/v1/tron/history?orderId=${data.id}`, { headers: demo })).data.status).toBe(
      'COMPLETED',
    );
  });

  it('throws a SimulatorError with a real clock', () => {
    const sim = createSimulator({ clock: 'real' });
    let error: unknown;
    try {
      sim.advance(1000);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SimulatorError);
    expect(error).toMatchObject({ kind: 'conflict', message: expect.stringMatching(/manual/) });
  });

  it('works on a manual clock of the caller’s own', async () => {
    const clock = createManualClock(Date.UTC(2030, 0, 1));
    const sim = createSimulator({ clock });
    expect(sim.clock).toBe(clock);
    const { data } = await json(sim, `/v1/tron/order?pledgeAddress=${ADDRESS}&rentalCount=65000&period=1h`, {
      method: 'POST',
      headers: demo,
    });
    expect(data.id.slice(2, 16)).toBe('20300101000000');
    sim.advance(7000);
    expect((await json(sim, `/v1/tron/history?orderId=${data.id}`, { headers: demo })).data.status).toBe(
      'COMPLETED',
    );
  });
});

describe('options', () => {
  it('uses the clock of the scenario when no clock option is given', async () => {
    const sim = createSimulator({ scenario: { clock: 'manual' } });
    expect(sim.clock.mode).toBe('manual');
    expect((await json(sim, '/_sim/health')).clock).toBe('manual');
  });

  it("lets the timing option win over the scenario's", async () => {
    const sim = createSimulator({
      clock: 'manual',
      timing: 'instant',
      scenario: { timing: 'realistic', accounts: [{ apiKey: 'demo-key', balance: { trx: '10' } }] },
    });
    expect((await json(sim, '/_sim/config')).timing).toBe('instant');
  });

  it('starts from the accounts, settings, rules and activated addresses of the scenario', async () => {
    const sim = createSimulator({
      clock: 'manual',
      scenario: {
        accounts: [{ apiKey: 'scenario-key-1', balance: { trx: '20', usdt: '2.5' }, referralCount: 4 }],
        settings: { prices: { '1h': '100' }, accountSuccessCode: 1 },
        rules: [{ outcome: 'FAILED', times: 1 }],
        activatedAddresses: [ADDRESS],
      },
    });
    const account = await json(sim, '/v1/account', { headers: { 'API-KEY': 'scenario-key-1' } });
    expect(account).toMatchObject({
      code: 1,
      data: { referralCount: 4, balance: { available: { trx: '20', usdt: '2.500000' } } },
    });
    expect((await sim.app.request('/v1/account', { headers: demo })).status).toBe(401);
    expect(
      (
        await json(sim, '/v1/tron/price?rentalCount=65000&period=1h', {
          headers: { 'API-KEY': 'scenario-key-1' },
        })
      ).data.trxPrice,
    ).toBe('6.50');
    expect((await json(sim, '/_sim/rules')).rules).toHaveLength(1);
    expect((await json(sim, `/_sim/addresses/${ADDRESS}`)).activated).toBe(true);
  });

  it.each([
    [{ accounts: [{ balance: { trx: '1' } }] }, /accounts\.0\.apiKey/],
    [{ accounts: [{ apiKey: 'k', balance: { trx: 'lots' } }] }, /accounts\.0\.balance\.trx/],
    [{ clock: 'sundial' }, /'clock'/],
    [{ activatedAddresses: ['abc'] }, /activatedAddresses.*'abc'/],
    [{ unknown: true }, /'unknown'/],
  ])('refuses the scenario %j with a SimulatorError naming the field', (scenario, message) => {
    let error: unknown;
    try {
      createSimulator({ clock: 'manual', scenario: scenario as SimulatorOptions['scenario'] });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SimulatorError);
    expect((error as Error).message).toMatch(message);
  });

  it('refuses proxy and replay together, which only a caller without types can give', () => {
    const both = {
      proxy: { upstream: 'http://upstream.test' },
      replay: { fetch: async () => new Response('{}'), source: 'r.json' },
    } as unknown as SimulatorOptions;
    expect(() => createSimulator(both)).toThrow(/proxy and replay exclude each other/);
  });

  it('reports an unexpected error to onUnexpectedError and answers 500 with code 50000', async () => {
    const seen: unknown[] = [];
    const sim = createSimulator({ clock: 'manual', onUnexpectedError: (error) => seen.push(error) });
    // Sabotage the engine to provoke the one path no request should reach.
    sim.engine.quote = () => {
      throw new Error('sabotaged');
    };
    const res = await sim.app.request('/v1/tron/price?rentalCount=65000&period=1h', { headers: demo });
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({
      code: 50000,
      msg: expect.stringMatching(/sabotaged.*simulator bug/),
      data: null,
    });
    expect(seen).toHaveLength(1);
  });
});

describe('DEFAULT_SCENARIO', () => {
  it('is a valid Scenario of spec/control.yaml, since it is not validated at start', async () => {
    const { createValidators, loadSpec } = await import('../src/spec/loader.ts');
    const { DEFAULT_SCENARIO } = await import('./simulator.ts');
    const validate = createValidators(loadSpec('control')).schema('Scenario');
    expect(validate(DEFAULT_SCENARIO), JSON.stringify(validate.errors)).toBe(true);
  });
});

describe('a client over the simulator fetch', () => {
  it('waits for an order by moving a manual clock, taking no real time', async () => {
    const { createClient } = await import('../src/client/index.ts');
    const sim = createSimulator({ clock: 'manual', timing: 'realistic' });
    const client = createClient({ baseUrl: 'http://sim', apiKey: 'demo-key', fetch: sim.fetch });
    const { id } = await client.createOrder({
      pledgeAddress: 'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3',
      rentalCount: 65_000,
      period: '1h',
    });
    const started = sim.clock.now();
    // Before, this waited out its timeout on a clock nothing moved (and this test's 5 s).
    const done = await client.waitForOrder({ orderId: id }, { timeoutMs: 60_000 });
    expect(done.status).toBe('COMPLETED');
    expect(sim.clock.now() - started, 'the wait moved the simulator clock').toBeGreaterThanOrEqual(3_000);
  });

  it("keeps a caller's own sleep and now over the simulator's clock", async () => {
    const { createClient } = await import('../src/client/index.ts');
    const sim = createSimulator({ clock: 'manual', timing: 'realistic' });
    const slept: number[] = [];
    let now = 0;
    const client = createClient({
      baseUrl: 'http://sim',
      apiKey: 'demo-key',
      fetch: sim.fetch,
      now: () => now,
      sleep: async (ms) => void slept.push(ms, (now += ms)),
    });
    const { id } = await client.createOrder({
      pledgeAddress: 'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3',
      rentalCount: 65_000,
      period: '1h',
    });
    await expect(
      client.waitForOrder({ orderId: id }, { timeoutMs: 3_000, intervalMs: 1_000 }),
    ).rejects.toThrow(/within 3000 ms/);
    expect(slept.length).toBeGreaterThan(0);
    expect(sim.clock.now()).toBe(sim.engine.authenticate('demo-key')!.orders.at(0)!.createdAt);
  });
});
