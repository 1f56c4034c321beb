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
