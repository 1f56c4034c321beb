// An example of testing your own code against the simulator: one simulator per test,
// a manual clock, so waiting for delivery takes no real time.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectCalls, startSimulator, type TestSimulator } from 'energy-rental-kit/testing';
import { buyEnergy } from './buy-energy.ts';

const ADDRESS = 'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3';
let sim: TestSimulator;

beforeEach(async () => {
  sim = await startSimulator({ seed: 42 });
});
afterEach(async () => sim.stop());

describe('buyEnergy', () => {
  it('resolves with the delivery transaction once the energy arrived', async () => {
    const statuses: string[] = [];
    const purchase = await buyEnergy(
      sim.client(),
      { address: ADDRESS, energy: 65_000, period: '1h', reference: 'invoice-1' },
      (s) => statuses.push(s),
    );
    expect(purchase).toMatchObject({ paid: '4.23', currency: 'TRX' });
    expect(purchase.txId).toMatch(/^[0-9a-f]{64}$/);
    expect(statuses.at(-1)).toBe('COMPLETED');
  });

  it('reports a failed delivery, and the money comes back', async () => {
    await sim.addRule({ match: { pledgeAddress: ADDRESS }, outcome: 'FAILED', times: 1 });
    await expect(
      buyEnergy(sim.client(), { address: ADDRESS, energy: 65_000, period: '1h', reference: 'invoice-2' }),
    ).rejects.toThrow(/ended FAILED/);
    await sim.advance(10_000);
    expect((await sim.client().getAccount()).balance.available.trx).toBe('1000');
  });

  it('sees the refund of a failed delivery in the order history', async () => {
    await sim.addRule({ match: { pledgeAddress: ADDRESS }, outcome: 'FAILED', times: 1 });
    const client = sim.client();
    await expect(
      buyEnergy(client, { address: ADDRESS, energy: 65_000, period: '1h', reference: 'invoice-5' }),
    ).rejects.toThrow(/ended FAILED/);
    // waitForOrder stops at FAILED; the refund follows it.
    await sim.advance(10_000);
    const refunded = await client.getOrderHistory({ outOrderNo: 'invoice-5' });
    expect(refunded.status).toBe('REFUNDED');
    // Verification: one order was created for this reference, however often it was polled.
    await expectCalls(sim, { operation: 'createOrder', params: { outOrderNo: 'invoice-5' } }, 1);
  });

  it('does not pay twice when retried with the same reference', async () => {
    const client = sim.client();
    const first = await buyEnergy(client, {
      address: ADDRESS,
      energy: 65_000,
      period: '1h',
      reference: 'invoice-3',
    });
    const again = await buyEnergy(client, {
      address: ADDRESS,
      energy: 65_000,
      period: '1h',
      reference: 'invoice-3',
    });
    expect(again.orderId).toBe(first.orderId);
    expect((await client.getAccount()).balance.available.trx).toBe('995.77');
  });

  it('surfaces an outage of the service as an EnergyRentalError', async () => {
    await sim.injectFault({ operation: 'createOrder', response: 'status', status: 503, times: 1 });
    await expect(
      buyEnergy(sim.client(), { address: ADDRESS, energy: 65_000, period: '1h', reference: 'invoice-4' }),
    ).rejects.toMatchObject({
      name: 'EnergyRentalError',
      status: 503,
    });
    expect(await sim.journal({ operation: 'createOrder' })).toHaveLength(1);
  });

  it('works over a real socket too, for code that takes a URL', async () => {
    const response = await fetch(`${sim.url}/v1/tron/price?rentalCount=65000&period=1h`, {
      headers: { 'API-KEY': 'demo-key' },
    });
    expect((await response.json()).data.trxPrice).toBe('4.23');
  });
});
