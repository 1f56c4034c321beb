/**
 * A TronWeb user's whole rental flow against a simulator over a socket: the real `tronweb`
 * package, pointed at the simulator with `fullHost`, reads the rented energy arrive and
 * go on the simulator's clock, and every answer it gets validates against
 * spec/tron-node.yaml.
 */
import { TronWeb } from 'tronweb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERIOD_MS } from '../engine/index.ts';
import { checkNodeAnswers } from '../test-support/http-test-support.ts';
import { startSimulator, type TestSimulator } from '../testing/start-simulator.ts';
import { ADDRESS, HOLDER, POOL, USDT } from '../test-support/fixtures.ts';

const SECRET = 'tron-pro-5b2e8d41-secret';
/** The realistic profile's confirmation lag: 19 blocks of 3 s. */
const CONFIRMATION_MS = 57_000;

let sim: TestSimulator;
let tronWeb: TronWeb;
let answers: ReturnType<typeof checkNodeAnswers>;

beforeAll(async () => {
  sim = await startSimulator({
    timing: 'realistic',
    scenario: {
      accounts: [{ apiKey: 'demo-key', balance: { trx: '1000' } }],
      settings: { chain: { usdtBalances: { [HOLDER]: '100', [POOL]: '5' } } },
    },
  });
  answers = checkNodeAnswers(sim.simulator);
  tronWeb = new TronWeb({ fullHost: sim.url, headers: { 'TRON-PRO-API-KEY': SECRET } });
});

afterAll(async () => {
  await sim.stop();
});

describe('TronWeb against the simulator', () => {
  it('connects: both node checks read a block', async () => {
    const connected = await tronWeb.isConnected();
    expect(connected).toMatchObject({ fullNode: true, solidityNode: true });
    const block = await tronWeb.trx.getCurrentBlock();
    expect(block.blockID).toMatch(/^[0-9a-f]{64}$/);
    expect(block.block_header.raw_data.timestamp).toBeLessThanOrEqual(sim.clock.now());
  });

  it('follows a rental: {} before activation, the energy once COMPLETED, its expiry, and none after', async () => {
    const client = sim.client();
    expect(await tronWeb.trx.getAccount(ADDRESS)).toEqual({});

    await client.getPrice({ rentalCount: 65_000, period: '1h' });
    const { id } = await client.createOrder({
      pledgeAddress: ADDRESS,
      rentalCount: 65_000,
      period: '1h',
    });
    const order = await client.waitForOrder({ orderId: id }, { intervalMs: 500 });
    expect(order.status).toBe('COMPLETED');
    const completedAt = sim.clock.now();

    const resources = await tronWeb.trx.getAccountResources(ADDRESS);
    expect(resources.EnergyLimit).toBeGreaterThanOrEqual(65_000);
    expect(await client.waitForEnergy(ADDRESS, 65_000)).toBe(resources.EnergyLimit);

    // TronWeb reads accounts and delegations from the confirmed view, a confirmation behind.
    expect(await tronWeb.trx.getAccount(ADDRESS)).toEqual({});
    await sim.advance(CONFIRMATION_MS);
    const account = await tronWeb.trx.getAccount(ADDRESS);
    expect(account.address).toBe(tronWeb.address.toHex(ADDRESS));
    expect(account.account_resource?.acquired_delegated_frozenV2_balance_for_energy).toBe(6_500_000_000);

    const delegated = await tronWeb.trx.getDelegatedResourceV2(POOL, ADDRESS);
    const [resource] = delegated.delegatedResource ?? [];
    const timeline = (await sim.simulator
      .fetch(`http://sim/_sim/orders/${id}`, { headers: { 'API-KEY': 'demo-key' } })
      .then((r) => r.json())) as {
      delegation: { deliveredAt: number };
    };
    expect(timeline.delegation.deliveredAt).toBeLessThanOrEqual(completedAt);
    expect(resource?.expire_time_for_energy).toBe(timeline.delegation.deliveredAt + PERIOD_MS['1h']);
    expect(await tronWeb.trx.getDelegatedResourceAccountIndexV2(ADDRESS)).toMatchObject({
      fromAccounts: [tronWeb.address.toHex(POOL)],
    });

    await sim.advance(PERIOD_MS['1h']);
    expect((await tronWeb.trx.getAccountResources(ADDRESS)).EnergyLimit).toBeUndefined();
    expect(await tronWeb.trx.getDelegatedResourceV2(POOL, ADDRESS)).toEqual({});
  });

  it('prices a USDT transfer at the documented energy, to a holder and to an empty address', async () => {
    const transfer = (to: string) => [
      { type: 'address', value: to },
      { type: 'uint256', value: 1_000_000 },
    ];
    const selector = 'transfer(address,uint256)';
    const toHolder = await tronWeb.transactionBuilder.triggerConstantContract(
      USDT,
      selector,
      {},
      transfer(POOL),
      HOLDER,
    );
    expect(toHolder.energy_used).toBe(64_285);
    const toEmpty = await tronWeb.transactionBuilder.triggerConstantContract(
      USDT,
      selector,
      {},
      transfer(ADDRESS),
      HOLDER,
    );
    expect(toEmpty.energy_used).toBe(130_285);
    const estimate = await tronWeb.transactionBuilder.estimateEnergy(
      USDT,
      selector,
      {},
      transfer(ADDRESS),
      HOLDER,
    );
    expect(estimate.energy_required).toBe(130_285);
    const balance = await tronWeb.transactionBuilder.triggerConstantContract(
      USDT,
      'balanceOf(address)',
      {},
      [{ type: 'address', value: HOLDER }],
      HOLDER,
    );
    expect(BigInt(`0x${balance.constant_result[0]}`)).toBe(100_000_000n);
  });

  it('reads the chain parameters', async () => {
    const parameters = await tronWeb.trx.getChainParameters();
    expect(parameters).toContainEqual({ key: 'getEnergyFee', value: 100 });
  });

  it('got answers that all validate against spec/tron-node.yaml, and journaled no TRON-PRO-API-KEY', async () => {
    const { checked, invalid } = answers();
    expect(invalid).toEqual([]);
    expect(checked).toBeGreaterThanOrEqual(15);
    expect(JSON.stringify(await sim.journal({ limit: 1000 }))).not.toContain(SECRET);
  });
});
