import { createServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type TestSimulator } from './index.ts';

let sim: TestSimulator | undefined;
afterEach(async () => {
  await sim?.stop();
  sim = undefined;
});

describe('startSimulator().createAccount', () => {
  it('takes the balance alone', async () => {
    sim = await startSimulator({ listen: false });
    const account = await sim.createAccount({ trx: '50' });
    expect((await sim.client(account.apiKey).getAccount()).balance.available.trx).toBe('50');
  });

  it("takes the control plane's request shape too, as a user guessed it", async () => {
    sim = await startSimulator({ listen: false });
    const account = await sim.createAccount({
      balance: { trx: '50', usdt: '2' },
      apiKey: 'guessed-key-01',
      referralCount: 3,
    });
    expect(account.apiKey).toBe('guessed-key-01');
    const seen = await sim.client('guessed-key-01').getAccount();
    expect(seen.balance.available).toEqual({ trx: '50', usdt: '2.000000' });
    expect(seen.referralCount).toBe(3);
  });

  it('takes a balance and the other fields apart', async () => {
    sim = await startSimulator({ listen: false });
    const account = await sim.createAccount({ usdt: '1' }, { apiKey: 'second-key-01' });
    expect(account.apiKey).toBe('second-key-01');
    expect((await sim.client('second-key-01').getAccount()).balance.available.usdt).toBe('1.000000');
  });
});

describe('startSimulator({ port })', () => {
  it('listens on the port it is given, and says so when the port is taken', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await expect(startSimulator({ port })).rejects.toThrow(
      `startSimulator: port ${port} on 127.0.0.1 is in use; pass another port, or 0 for a free one.`,
    );
    await new Promise((resolve) => probe.close(resolve));
    sim = await startSimulator({ port });
    expect(sim.url).toBe(`http://127.0.0.1:${port}`);
    const price = await fetch(`${sim.url}/v1/tron/price?rentalCount=65000&period=1h`, {
      headers: { 'API-KEY': 'demo-key' },
    });
    expect(((await price.json()) as { data: { trxPrice: string } }).data.trxPrice).toBe('4.23');
  });

  it.each([[-1], [65536], [1.5]])('refuses the port %s', async (port) => {
    await expect(startSimulator({ port })).rejects.toThrow(/port must be a whole number from 0 to 65535/);
  });

  it('refuses a port with listen: false, which would listen on none', async () => {
    await expect(startSimulator({ port: 8787, listen: false })).rejects.toThrow(/with listen left on/);
  });
});
