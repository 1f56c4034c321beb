/**
 * The simulated TRON node under java-tron's paths: its answers follow the engine's orders
 * and clock, keep java-tron's conventions (visible, hex, zero fields left out, errors with
 * HTTP 200) and validate against spec/tron-node.yaml.
 */
import { describe, expect, it } from 'vitest';
import { tronAddressToHex } from '../../src/tron-address.ts';
import { PERIOD_MS } from '../engine/index.ts';
import { createSimulator, type Simulator } from '../simulator.ts';
import { call, callGet, expectControlResponse, send, nodeCall } from '../test-support/http-test-support.ts';
import { ADDRESS, HOLDER, POOL, USDT, order } from '../test-support/fixtures.ts';

const SECRET = 'tron-pro-7f3a9c1e-secret';

function simulator(chain: Record<string, unknown> = {}, rules: unknown[] = []): Simulator {
  return createSimulator({
    clock: 'manual',
    timing: 'instant',
    scenario: {
      accounts: [{ apiKey: 'demo-key', balance: { trx: '100000' } }],
      settings: { chain: { confirmationMs: 30_000, usdtBalances: { [HOLDER]: '25' }, ...chain } },
      rules: rules as never,
    },
  });
}

const account = (sim: Simulator, path = '/wallet/getaccount', address = ADDRESS) =>
  nodeCall(sim, path, { address, visible: true });
const resource = (sim: Simulator, address = ADDRESS) =>
  nodeCall(sim, '/wallet/getaccountresource', { address, visible: true });
const word = (hexAddress: string) => hexAddress.slice(2).padStart(64, '0');

describe('the simulated TRON node', () => {
  it('answers {} for an address until an order activates it, the confirmed view a confirmation later', async () => {
    const sim = simulator();
    expect((await account(sim)).body).toEqual({});
    expect((await resource(sim)).body).toEqual({});
    await order(sim);
    expect((await account(sim)).body).toMatchObject({ address: ADDRESS, create_time: sim.clock.now() });
    expect((await account(sim, '/walletsolidity/getaccount')).body).toEqual({});
    sim.advance(30_000);
    expect((await account(sim, '/walletsolidity/getaccount')).body.address).toBe(ADDRESS);
  });

  it('shows the delivered energy and its stake, then takes it back when the period ends', async () => {
    const sim = simulator();
    await order(sim);
    expect((await resource(sim)).body).toEqual({
      freeNetLimit: 600,
      EnergyLimit: 65_000,
      TotalNetLimit: 43_200_000_000,
      TotalNetWeight: 26_000_000_000,
      TotalEnergyLimit: 180_000_000_000,
      TotalEnergyWeight: 18_000_000_000,
    });
    expect((await account(sim)).body.account_resource).toEqual({
      energy_window_size: 28_800_000,
      acquired_delegated_frozenV2_balance_for_energy: 6_500_000_000,
    });
    const delegated = await nodeCall(sim, '/wallet/getdelegatedresourcev2', {
      fromAddress: POOL,
      toAddress: ADDRESS,
      visible: true,
    });
    expect(delegated.body.delegatedResource).toEqual([
      {
        from: POOL,
        to: ADDRESS,
        frozen_balance_for_energy: 6_500_000_000,
        expire_time_for_energy: sim.clock.now() + PERIOD_MS['1h'],
      },
    ]);
    sim.advance(PERIOD_MS['1h']);
    expect((await resource(sim)).body.EnergyLimit).toBeUndefined();
    expect(
      (
        await nodeCall(sim, '/wallet/getdelegatedresourcev2', {
          fromAddress: POOL,
          toAddress: ADDRESS,
          visible: true,
        })
      ).body,
    ).toEqual({});
  });

  it('sums two rentals of one address into one record that ends with the later', async () => {
    const sim = simulator();
    await order(sim);
    sim.advance(1000);
    await order(sim);
    const { body } = await nodeCall(sim, '/wallet/getdelegatedresourcev2', {
      fromAddress: POOL,
      toAddress: ADDRESS,
      visible: true,
    });
    expect(body.delegatedResource).toHaveLength(1);
    expect(body.delegatedResource[0]).toMatchObject({
      frozen_balance_for_energy: 13_000_000_000,
      expire_time_for_energy: sim.clock.now() + PERIOD_MS['1h'],
    });
    expect((await resource(sim)).body.EnergyLimit).toBe(130_000);
  });

  it('delivers nothing for a failed order, and honours a rule whose delivery never shows', async () => {
    const sim = simulator({}, [
      { outcome: 'FAILED', times: 1 },
      { outcome: 'COMPLETED', delegationMs: 0, times: 1 },
    ]);
    await order(sim);
    await order(sim);
    expect((await resource(sim)).body.EnergyLimit).toBeUndefined();
    expect((await callGet(sim, `/_sim/addresses/${ADDRESS}`)).body.chain.delegations).toEqual([
      expect.objectContaining({ energy: 65_000, state: 'expired' }),
    ]);
  });

  it('takes and gives hex addresses when visible is absent, and reads a GET query', async () => {
    const sim = simulator();
    await order(sim);
    const hex = tronAddressToHex(ADDRESS);
    expect((await nodeCall(sim, '/wallet/getaccount', { address: hex })).body.address).toBe(hex);
    expect((await nodeCall(sim, '/wallet/getaccountresource', `address=${hex}`)).body.EnergyLimit).toBe(
      65_000,
    );
    const index = await nodeCall(sim, '/wallet/getdelegatedresourceaccountindexv2', `value=${hex}`);
    expect(index.body).toEqual({ account: hex, fromAccounts: [tronAddressToHex(POOL)] });
    const pool = await nodeCall(sim, '/wallet/getdelegatedresourceaccountindexv2', {
      value: POOL,
      visible: true,
    });
    expect(pool.body).toEqual({ account: POOL, toAccounts: [ADDRESS] });
  });

  it('answers a malformed address or body with java-tron Error and HTTP 200', async () => {
    const sim = simulator();
    expect((await nodeCall(sim, '/wallet/getaccount', { address: 'T-not-hex' })).body.Error).toMatch(
      /^class org\.bouncycastle\.util\.encoders\.DecoderException : .*'address'/,
    );
    expect(
      (
        await nodeCall(sim, '/wallet/getaccountresource', {
          address: `${ADDRESS.slice(0, -1)}4`,
          visible: true,
        })
      ).body.Error,
    ).toMatch(/^class java\.lang\.IllegalArgumentException : 'address' must be a Base58Check TRON address/);
    const broken = await sim.app.request('/wallet/getaccount', { method: 'POST', body: '{"address":' });
    expect(broken.status).toBe(200);
    expect((await broken.json()).Error).toMatch(/^class org\.tron\.json\.JSONException : /);
    // A hex payload that is no TRON address names no account.
    expect((await nodeCall(sim, '/wallet/getaccount', { address: '4142' })).body).toEqual({});
  });

  it('lists the chain parameters with a zero value left out, and a block every 3 s', async () => {
    const sim = simulator({ chainParameters: { getEnergyFee: 420, getAllowTvmBlob: 0 } });
    const { body } = await nodeCall(sim, '/wallet/getchainparameters', {});
    expect(body.chainParameter).toContainEqual({ key: 'getEnergyFee', value: 420 });
    expect(body.chainParameter).toContainEqual({ key: 'getAllowTvmBlob' });
    const first = (await nodeCall(sim, '/wallet/getnowblock', '')).body;
    sim.advance(3000);
    const next = (await nodeCall(sim, '/wallet/getnowblock', '')).body;
    expect(next.block_header.raw_data.number).toBe(first.block_header.raw_data.number + 1);
    expect(next.block_header.raw_data.parentHash).toBe(first.blockID);
    const confirmed = (await nodeCall(sim, '/walletsolidity/getnowblock', '')).body;
    expect(confirmed.block_header.raw_data.number).toBe(next.block_header.raw_data.number - 10);
  });

  it('prices a USDT transfer by what its receiver holds, and reverts one its owner cannot pay', async () => {
    const sim = simulator();
    const transfer = (owner: string, to: string, amount: number) => ({
      owner_address: owner,
      contract_address: USDT,
      function_selector: 'transfer(address, uint256)',
      parameter: word(tronAddressToHex(to)) + amount.toString(16).padStart(64, '0'),
      visible: true,
    });
    const toHolder = await nodeCall(sim, '/wallet/triggerconstantcontract', transfer(HOLDER, HOLDER, 1));
    expect(toHolder.body).toMatchObject({ result: { result: true }, energy_used: 64_285 });
    const toEmpty = await nodeCall(sim, '/wallet/estimateenergy', transfer(HOLDER, ADDRESS, 25_000_000));
    expect(toEmpty.body).toEqual({ result: { result: true }, energy_required: 130_285 });
    const unpaid = await nodeCall(sim, '/wallet/triggerconstantcontract', transfer(ADDRESS, HOLDER, 1));
    expect(unpaid.body.result).toEqual({ result: true, message: 'REVERT opcode executed' });
    expect(unpaid.body.transaction.ret).toEqual([{ ret: 'FAILED' }]);
    const balance = await nodeCall(sim, '/wallet/triggerconstantcontract', {
      owner_address: tronAddressToHex(ADDRESS),
      contract_address: tronAddressToHex(USDT),
      data: `70a08231${word(tronAddressToHex(HOLDER))}`,
    });
    expect(BigInt(`0x${balance.body.constant_result[0]}`)).toBe(25_000_000n);
    const other = await nodeCall(sim, '/wallet/triggerconstantcontract', {
      ...transfer(HOLDER, HOLDER, 1),
      contract_address: POOL,
    });
    expect(other.body.result).toEqual({
      code: 'CONTRACT_VALIDATE_ERROR',
      message: 'Smart contract is not exist.',
    });
  });

  it('asks no API-KEY, and keeps a TRON-PRO-API-KEY out of the journal', async () => {
    const sim = simulator();
    await nodeCall(
      sim,
      '/wallet/getaccount',
      { address: ADDRESS, visible: true },
      { 'TRON-PRO-API-KEY': SECRET },
    );
    const journal = await callGet(sim, '/_sim/journal');
    expect(journal.body.entries[0]).toMatchObject({
      path: '/wallet/getaccount',
      operation: 'wallet_getaccount_post',
    });
    expect(journal.text).not.toContain(SECRET);
  });

  it('counts the reads as calls, and coverage chain:delivered and chain:expired from what they showed', async () => {
    const sim = simulator();
    await order(sim);
    await resource(sim);
    sim.advance(PERIOD_MS['1h']);
    await resource(sim);
    const coverage = (await callGet(sim, '/_sim/coverage')).body;
    expect(coverage.exercised).toMatchObject({ 'chain:delivered': 1, 'chain:expired': 1 });
    expect(coverage.never).not.toContain('chain:delivered');
    expect(coverage.unclassified).toBe(0);
    expect(sim.calls.count({ operation: 'wallet_getaccountresource_post' })).toEqual({ count: 2 });
  });

  it('shows the address on chain in the control plane, and each order delegation', async () => {
    const sim = simulator();
    const id = await order(sim);
    const reply = await callGet(sim, `/_sim/addresses/${ADDRESS}`);
    expectControlResponse('getAddress', reply);
    expect(reply.body.chain).toEqual({
      exists: true,
      confirmed: false,
      createTime: sim.clock.now(),
      energyLimit: 65_000,
      stakeSun: 6_500_000_000,
      usdt: '0',
      delegations: [
        {
          orderId: id,
          from: POOL,
          to: ADDRESS,
          energy: 65_000,
          stakeSun: 6_500_000_000,
          deliveredAt: sim.clock.now(),
          expiresAt: sim.clock.now() + PERIOD_MS['1h'],
          state: 'delegated',
        },
      ],
    });
    const orderView = await callGet(sim, `/_sim/orders/${id}`, 'demo-key');
    expectControlResponse('getOrderTimeline', orderView);
    expect(orderView.body.delegation).toEqual(reply.body.chain.delegations[0]);
    const config = await callGet(sim, '/_sim/config');
    expect(config.body.chain).toMatchObject({ poolAddress: POOL, confirmationMs: 30_000 });
  });

  it('answers an injected tronNode fault on its reads, and a fault on every API operation leaves them alone', async () => {
    const sim = simulator();
    const inject = (fault: Record<string, unknown>) => call(sim, 'POST', '/_sim/faults', { body: fault });
    expect((await inject({ operation: '*', response: 'status', status: 500 })).status).toBe(201);
    expect((await resource(sim)).status).toBe(200);
    await call(sim, 'DELETE', '/_sim/faults');
    await inject({ operation: 'tronNode', response: 'status', status: 503, times: 1 });
    const broken = await send(sim, '/wallet/getaccountresource', {
      method: 'POST',
      body: JSON.stringify({ address: ADDRESS, visible: true }),
    });
    expect(broken.status).toBe(503);
    expect(broken.body.msg).toMatch(/Injected fault/);
    expect((await callGet(sim, '/v1/tron/price?rentalCount=65000&period=1h', 'demo-key')).status).toBe(200);
    expect((await resource(sim)).status).toBe(200);
    const journal = (await callGet(sim, '/_sim/journal')).body.entries;
    expect(journal.find((x: { status: number }) => x.status === 503)?.operation).toBe(
      'wallet_getaccountresource_post',
    );
  });

  it('is not served in front of an upstream, whose chain the engine does not know', async () => {
    const sim = createSimulator({ proxy: { upstream: 'http://127.0.0.1:9' } as never });
    expect((await sim.app.request('/wallet/getnowblock')).status).toBe(404);
  });
});
