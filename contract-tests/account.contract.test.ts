import { describe } from 'vitest';
import { isTronAddress } from '../src/tron-address.ts';
import { contractTest as test } from './contract-test.ts';

describe('getAccount', () => {
  test('names the account after its wallet address and shows balances as decimal strings', async ({
    api,
    expectFact,
  }) => {
    const account = await api.getAccount();
    expectFact(
      'tron-address',
      isTronAddress(account.walletAddress),
      `walletAddress ${account.walletAddress} is a TRON address`,
    ).toBe(true);
    expectFact('account-name', account.name).toBe(`User-${account.walletAddress.slice(0, 6)}`);
    expectFact('usdt-decimals', account.balance.available.usdt, 'USDT shows six decimals').toMatch(
      /^\d+\.\d{6}$/,
    );
  });

  test('shows a fresh account exactly the balance it was given', async ({
    expect,
    target,
    clientFor,
    requireCapability,
  }) => {
    requireCapability('accounts');
    const created = await target.control.createAccount({ trx: '12.5', usdt: '3.25' });
    const account = await clientFor(created.apiKey).getAccount();
    expect(account.walletAddress).toBe(created.walletAddress);
    expect(account.balance.available).toEqual({ trx: '12.5', usdt: '3.250000' });
    expect(account.balance.frozen.trx).toBe('0');
  });
});
