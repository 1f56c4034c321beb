/**
 * The control plane under /_sim: every endpoint of spec/control.yaml, its answers
 * checked against that document.
 */
import { describe, expect, it } from 'vitest';
import { createValidators, loadSpec } from '../../src/spec/loader.ts';
import { createSimulator } from '../simulator.ts';
import { call, callGet, expectControlResponse, expectItems } from '../test-support/http-test-support.ts';
import { ADDRESS, expectError, order, statusOf, trxOf } from '../test-support/fixtures.ts';

const START_MS = 1_741_801_809_000;

const api = createValidators(loadSpec('api'));

describe('GET /_sim/health', () => {
  it('reports a manual clock and every capability, as control.yaml describes', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await callGet(sim, '/_sim/health');
    expect(reply.status).toBe(200);
    expectControlResponse('getHealth', reply);
    expect(reply.body).toEqual({
      ok: true,
      simulator: 'energy-rental-kit',
      version: expect.any(String),
      clock: 'manual',
      now: START_MS,
      timing: 'realistic',
      capabilities: expect.arrayContaining(['clock', 'rules', 'accounts', 'activation', 'duplicates']),
      mode: 'simulator',
    });
  });

  it("leaves out 'clock' with a real clock", async () => {
    const sim = createSimulator({ clock: 'real' });
    const reply = await callGet(sim, '/_sim/health');
    expectControlResponse('getHealth', reply);
    expect(reply.body.clock).toBe('real');
    expect(reply.body.capabilities).not.toContain('clock');
    expect(reply.body.capabilities).toContain('rules');
  });

  it("leaves out 'duplicates' when duplicate outOrderNo are rejected", async () => {
    const sim = createSimulator({ clock: 'manual' });
    await call(sim, 'PATCH', '/_sim/config', { body: { duplicateOutOrderNo: 'reject' } });
    expect((await callGet(sim, '/_sim/health')).body.capabilities).not.toContain('duplicates');
  });

  it('follows the clock', async () => {
    const sim = createSimulator({ clock: 'manual' });
    sim.advance(1234);
    expect((await callGet(sim, '/_sim/health')).body.now).toBe(START_MS + 1234);
  });
});

describe('POST /_sim/reset', () => {
  it('returns every account, order, rule, setting and the manual clock to the starting scenario', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const walletBefore = (await callGet(sim, '/v1/account', 'demo-key')).body.data.walletAddress;
    const created = (await call(sim, 'POST', '/_sim/accounts', { body: { balance: { trx: '5' } } })).body;
    await order(sim);
    await call(sim, 'POST', '/_sim/rules', { body: { outcome: 'FAILED' } });
    await call(sim, 'PATCH', '/_sim/config', { body: { failureRate: 0.5 } });
    sim.advance(10_000);

    const reply = await call(sim, 'POST', '/_sim/reset');
    expect(reply.status).toBe(200);
    expectControlResponse('reset', reply);
    expect(reply.body).toEqual({ ok: true });

    expect((await callGet(sim, '/_sim/orders', 'demo-key')).body.orders).toEqual([]);
    expect(await trxOf(sim)).toEqual({ available: '1000', frozen: '0' });
    expect((await callGet(sim, '/v1/account', 'demo-key')).body.data.walletAddress).toBe(walletBefore);
    expect((await callGet(sim, '/v1/account', created.apiKey)).body.code).toBe(10002);
    expect((await callGet(sim, '/_sim/rules')).body.rules).toEqual([]);
    expect((await callGet(sim, '/_sim/config')).body.failureRate).toBe(0);
    expect((await callGet(sim, '/_sim/clock')).body.now).toBe(START_MS);
    expect((await callGet(sim, '/_sim/accounts')).body.accounts).toHaveLength(1);
  });

  it('cancels the lifecycle of orders open at the reset', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await order(sim);
    await call(sim, 'POST', '/_sim/reset');
    sim.advance(10_000);
    expect(await trxOf(sim)).toEqual({ available: '1000', frozen: '0' });
    expect(sim.engine.checkInvariants()).toEqual([]);
  });
});

describe('GET /_sim/scenario', () => {
  it('answers the embedded default scenario, with even the demo key redacted', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await callGet(sim, '/_sim/scenario');
    expect(reply.status).toBe(200);
    expectControlResponse('getScenario', reply);
    expect(reply.body).toEqual({
      accounts: [{ apiKey: '[redacted]', balance: { trx: '1000', usdt: '100' } }],
    });
  });

  it('redacts the API keys of a scenario of its own', async () => {
    const sim = createSimulator({
      clock: 'manual',
      scenario: { seed: 5, accounts: [{ apiKey: 'secret-key-1', balance: { trx: '7' } }], supply: 1000000 },
    });
    const reply = await callGet(sim, '/_sim/scenario');
    expectControlResponse('getScenario', reply);
    expect(reply.body).toEqual({
      seed: 5,
      accounts: [{ apiKey: '[redacted]', balance: { trx: '7' } }],
      supply: 1000000,
    });
    expect(reply.text).not.toContain('secret-key-1');
  });
});

describe('GET /_sim/clock and POST /_sim/clock/advance', () => {
  it('reads the manual clock at its starting time', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await callGet(sim, '/_sim/clock');
    expectControlResponse('getClock', reply);
    expect(reply.body).toEqual({ mode: 'manual', now: START_MS, iso: '2025-03-12T17:50:09.000Z' });
  });

  it('moves the manual clock forward and answers the clock after the move', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await call(sim, 'POST', '/_sim/clock/advance', { body: { ms: 6000 } });
    expect(reply.status).toBe(200);
    expectControlResponse('advanceClock', reply);
    expect(reply.body).toEqual({ mode: 'manual', now: START_MS + 6000, iso: '2025-03-12T17:50:15.000Z' });
    expect(sim.clock.now()).toBe(START_MS + 6000);
  });

  it('runs the lifecycle steps that fall due on the way', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const id = await order(sim);
    await call(sim, 'POST', '/_sim/clock/advance', { body: { ms: 7000 } });
    expect(await statusOf(sim, id)).toBe('COMPLETED');
  });

  it('refuses to advance a real clock with 409', async () => {
    const sim = createSimulator({ clock: 'real' });
    const reply = await call(sim, 'POST', '/_sim/clock/advance', { body: { ms: 1000 } });
    expectError(reply, 409, 30003, /--clock manual/);
    expectControlResponse('advanceClock', reply);
  });

  it.each([
    [{}, 20001, /'ms'/],
    [{ ms: -1 }, 20002, /'ms'.*at least 0/],
    [{ ms: 1.5 }, 20002, /'ms'.*integer/],
    [{ ms: 1, by: 2 }, 20002, /'by'/],
  ])('refuses the body %j with 400, naming the field', async (body, code, msg) => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await call(sim, 'POST', '/_sim/clock/advance', { body });
    expectError(reply, 400, code, msg);
    expectControlResponse('advanceClock', reply);
    expect(sim.clock.now()).toBe(START_MS);
  });
});

describe('POST /_sim/accounts', () => {
  it('creates an account with a fresh key that works on /v1/account, answering 201', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await call(sim, 'POST', '/_sim/accounts', { body: { balance: { trx: '100', usdt: '5' } } });
    expect(reply.status).toBe(201);
    expectControlResponse('createAccount', reply);
    const { apiKey, name, walletAddress } = reply.body;
    expect(apiKey).toMatch(/^sk_[A-Za-z0-9_-]{32}$/);
    expect(name).toBe(`User-${walletAddress.slice(0, 6)}`);
    const account = await callGet(sim, '/v1/account', apiKey);
    expect(account.status).toBe(200);
    expect(account.body.data).toMatchObject({
      name,
      walletAddress,
      balance: { available: { trx: '100', usdt: '5.000000' }, frozen: { trx: '0' } },
    });
    expect(api.response('getAccount', 200)!(account.body)).toBe(true);
  });

  it('creates an empty account when sent no body', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await call(sim, 'POST', '/_sim/accounts');
    expect(reply.status).toBe(201);
    expect((await callGet(sim, '/v1/account', reply.body.apiKey)).body.data.balance.available).toEqual({
      trx: '0',
      usdt: '0.000000',
    });
  });

  it('uses an apiKey of the caller’s choosing', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await call(sim, 'POST', '/_sim/accounts', {
      body: { apiKey: 'my-own-key.1', balance: { trx: '9' } },
    });
    expect(reply.status).toBe(201);
    expect(reply.body.apiKey).toBe('my-own-key.1');
    expect((await callGet(sim, '/v1/account', 'my-own-key.1')).body.data.balance.available.trx).toBe('9');
  });

  it('refuses an apiKey that is taken with 409', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await call(sim, 'POST', '/_sim/accounts', { body: { apiKey: 'my-own-key.1' } });
    const again = await call(sim, 'POST', '/_sim/accounts', { body: { apiKey: 'my-own-key.1' } });
    expectError(again, 409, 30003, /apiKey/);
    expectControlResponse('createAccount', again);
    expectError(await call(sim, 'POST', '/_sim/accounts', { body: { apiKey: 'demo-key' } }), 409, 30003);
    expect((await callGet(sim, '/_sim/accounts')).body.accounts).toHaveLength(2);
  });

  it.each([
    [{ apiKey: 'short' }, /'apiKey'.*at least 8/],
    [{ apiKey: 'has a space' }, /'apiKey'/],
    [{ balance: { trx: '-1' } }, /'balance.trx'/],
    [{ balance: { trx: '1.1234567' } }, /decimals/],
    [{ name: 'x' }, /'name'/],
  ])('refuses %j with 400, naming the field', async (body, msg) => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await call(sim, 'POST', '/_sim/accounts', { body });
    expectError(reply, 400, 20002, msg);
    expectControlResponse('createAccount', reply);
    expect((await callGet(sim, '/_sim/accounts')).body.accounts).toHaveLength(1);
  });
});

describe('GET /_sim/accounts', () => {
  it('lists every account with its ledger and never an API key', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const created = (
      await call(sim, 'POST', '/_sim/accounts', { body: { apiKey: 'custom-key-42', balance: { usdt: '3' } } })
    ).body;
    const generated = (await call(sim, 'POST', '/_sim/accounts', { body: {} })).body;
    await order(sim);
    const reply = await callGet(sim, '/_sim/accounts');
    expect(reply.status).toBe(200);
    expectItems(reply, 'accounts', 'AccountView');
    expect(reply.body.accounts.map((a: { walletAddress: string }) => a.walletAddress)).toEqual([
      (await callGet(sim, '/v1/account', 'demo-key')).body.data.walletAddress,
      created.walletAddress,
      generated.walletAddress,
    ]);
    expect(reply.body.accounts[0]).toMatchObject({
      orders: 1,
      ledger: { trx: { deposited: '1000', available: '995.77', frozen: '4.23', spent: '0' } },
    });
    for (const secret of ['demo-key', 'custom-key-42', generated.apiKey, 'apiKey'])
      expect(reply.text).not.toContain(secret);
  });
});

describe('GET /_sim/accounts/me', () => {
  it("reads the ledger of the key's account", async () => {
    const sim = createSimulator({ clock: 'manual' });
    await order(sim);
    sim.advance(7000);
    await order(sim);
    const reply = await callGet(sim, '/_sim/accounts/me', 'demo-key');
    expect(reply.status).toBe(200);
    expectControlResponse('getOwnAccount', reply);
    expect(reply.body).toMatchObject({
      orders: 2,
      referralCount: 0,
      ledger: {
        trx: { deposited: '1000', available: '991.54', frozen: '4.23', spent: '4.23' },
        usdt: { deposited: '100', available: '100', frozen: '0', spent: '0' },
      },
    });
  });

  it('needs an API key', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await callGet(sim, '/_sim/accounts/me');
    expectError(reply, 401, 10001);
    expectControlResponse('getOwnAccount', reply);
  });
});

describe('POST /_sim/accounts/me/deposit', () => {
  it('adds TRX and USDT to the account of the key', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await call(sim, 'POST', '/_sim/accounts/me/deposit', {
      apiKey: 'demo-key',
      body: { trx: '50', usdt: '0.5' },
    });
    expect(reply.status).toBe(200);
    expectControlResponse('deposit', reply);
    expect(reply.body.ledger.trx).toMatchObject({ deposited: '1050', available: '1050' });
    expect(reply.body.ledger.usdt).toMatchObject({ deposited: '100.5', available: '100.5' });
    expect((await callGet(sim, '/v1/account', 'demo-key')).body.data.balance.available).toEqual({
      trx: '1050',
      usdt: '100.500000',
    });
  });

  it('lets a poor account pay an order after a deposit', async () => {
    const sim = createSimulator({
      clock: 'manual',
      scenario: { accounts: [{ apiKey: 'poor-key-1', balance: { trx: '1' } }] },
    });
    const refused = await call(
      sim,
      'POST',
      `/v1/tron/order?pledgeAddress=${ADDRESS}&rentalCount=65000&period=1h`,
      { apiKey: 'poor-key-1' },
    );
    expect(refused.status).toBe(402);
    await call(sim, 'POST', '/_sim/accounts/me/deposit', { apiKey: 'poor-key-1', body: { trx: '3.23' } });
    await order(sim, ADDRESS, '', 'poor-key-1');
    expect(await trxOf(sim, 'poor-key-1')).toEqual({ available: '0', frozen: '4.23' });
  });

  it.each([
    [{}, /trx.*usdt/],
    [{ trx: '0' }, /trx/],
    [{ trx: '1.1234567' }, /'trx'.*6 decimals/],
    [{ trx: 'ten' }, /'trx'/],
    [{ trx: 5 }, /'trx'.*string/],
    [{ eur: '5' }, /'eur'/],
  ])('refuses %j with 400 and changes nothing', async (body, msg) => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await call(sim, 'POST', '/_sim/accounts/me/deposit', { apiKey: 'demo-key', body });
    expectError(reply, 400, 20002, msg);
    expectControlResponse('deposit', reply);
    expect(await trxOf(sim)).toEqual({ available: '1000', frozen: '0' });
  });

  it('refuses a deposit that would pass the largest balance and books neither currency', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await call(sim, 'POST', '/_sim/accounts/me/deposit', {
      apiKey: 'demo-key',
      body: { usdt: '1', trx: '9007199254' },
    });
    expectError(reply, 400, 20002, /TRX/);
    expect((await callGet(sim, '/v1/account', 'demo-key')).body.data.balance.available).toEqual({
      trx: '1000',
      usdt: '100.000000',
    });
  });

  it('needs an API key', async () => {
    const sim = createSimulator({ clock: 'manual' });
    expectError(await call(sim, 'POST', '/_sim/accounts/me/deposit', { body: { trx: '1' } }), 401, 10001);
  });
});
