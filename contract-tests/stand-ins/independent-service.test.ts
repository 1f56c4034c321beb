import { describe, expect, it } from 'vitest';
import { PLAIN_CHOICES, memberChoices } from './family.ts';
import { createIndependentService, type ServiceChoices } from './independent-service.ts';
import { ADDRESS } from '../../mock/test-support/fixtures.ts';

/** A service on a clock the test moves, and a call helper that reads status, type and body. */
function service(changes: Partial<ServiceChoices> = {}) {
  let now = Date.UTC(2025, 2, 12, 17, 50, 9);
  const { fetch } = createIndependentService({
    choices: { ...PLAIN_CHOICES, ...changes },
    now: () => now,
  });
  const call = async (method: string, path: string, key: string | null = 'demo-key') => {
    const response = await fetch(
      new Request(`http://service.test/api${path}`, { method, headers: key ? { 'API-KEY': key } : {} }),
    );
    const text = await response.text();
    let body: { code?: number; msg?: string; time?: string; data?: Record<string, unknown> } | undefined;
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      body = undefined;
    }
    return { status: response.status, type: response.headers.get('content-type'), text, body };
  };
  const order = (outOrderNo = 'shop-1') =>
    call(
      'POST',
      `/v1/tron/order?pledgeAddress=${ADDRESS}&rentalCount=64000&period=10min&outOrderNo=${outOrderNo}`,
    );
  return { call, order, advance: (ms: number) => void (now += ms) };
}

describe('the independent service keeps every documented fact', () => {
  it('prices in integer sun rounded half up, as the provider shows "4.23" for 65000 at 65 sun', async () => {
    const { body } = await service().call('GET', '/v1/tron/price?rentalCount=65000&period=1h');
    expect(body).toMatchObject({
      code: 0,
      msg: 'Get price successfully',
      time: '1741801809',
      data: { sun: '65', trxPrice: '4.23', period: '1h', resourceType: 'ENERGY', rentalCount: 65000 },
    });
  });

  it('names orders OR + the UTC time + 8 upper-case letters and digits, and refuses less than 64000', async () => {
    const s = service();
    expect((await s.order()).body?.data?.id).toMatch(/^OR20250312175009[A-Z0-9]{8}$/);
    const below = await s.call('POST', `/v1/tron/order?pledgeAddress=${ADDRESS}&rentalCount=63999&period=1h`);
    expect(below.body?.code).not.toBe(0);
  });

  it('names the account after its wallet, with six USDT decimals', async () => {
    const { data } = (await service().call('GET', '/v1/account')).body!;
    expect(data).toMatchObject({ name: `User-${String(data!.walletAddress).slice(0, 6)}`, referralCount: 0 });
    expect(data!.balance).toEqual({ available: { trx: '795.38', usdt: '0.031748' }, frozen: { trx: '0' } });
  });
});

describe('the independent service makes each open choice as it is told', () => {
  it('sends time in ms, createdAt in seconds and fixed decimals', async () => {
    const s = service({ timeUnit: 'ms', createdAtUnit: 's', fixedDecimals: 6 });
    const id = (await s.order()).body!.data!.id as string;
    const { body } = await s.call('GET', `/v1/tron/history?orderId=${id}`);
    expect(body).toMatchObject({
      time: '1741801809000',
      data: { createdAt: 1741801809, amount: '3.840000' },
    });
    expect((await s.call('GET', '/v1/account')).body!.data!.balance).toMatchObject({
      available: { trx: '791.540000' },
      frozen: { trx: '3.840000' },
    });
  });

  it('shows PENDING then the outcome without PROCESSING, and lingers in FAILED before REFUNDED', async () => {
    const s = service({
      showsProcessing: false,
      failEveryOrder: true,
      deliveryMs: [3000, 3000],
      failedLingersMs: 2000,
    });
    const id = (await s.order()).body!.data!.id as string;
    const statuses: unknown[] = [];
    for (let i = 0; i < 6; i++) {
      statuses.push((await s.call('GET', `/v1/tron/history?orderId=${id}`)).body!.data!.status);
      s.advance(1000);
    }
    expect(statuses).toEqual(['PENDING', 'PENDING', 'PENDING', 'FAILED', 'FAILED', 'REFUNDED']);
  });

  it('prefers outOrderNo in history when told to, and orderId otherwise', async () => {
    for (const historyPrefers of ['orderId', 'outOrderNo'] as const) {
      const s = service({ historyPrefers });
      const first = (await s.order('a')).body!.data!.id as string;
      const second = (await s.order('b')).body!.data!.id as string;
      const found = (await s.call('GET', `/v1/tron/history?orderId=${first}&outOrderNo=b`)).body!.data!
        .orderId;
      expect(found).toBe(historyPrefers === 'orderId' ? first : second);
    }
  });

  it('pays in USDT when TRX is short, and refuses when told not to', async () => {
    const balance = { trxSun: 1_000_000n, usdtMicro: 50_000_000n };
    expect((await service({ balance, usdtWhenTrxShort: true }).order()).body!.data).toMatchObject({
      currency: 'USDT',
      amount: 0.96,
    });
    expect((await service({ balance }).order()).status).toBe(402);
  });

  it('returns the existing order for a duplicate outOrderNo, or refuses it', async () => {
    const same = service();
    expect((await same.order()).body!.data!.id).toBe((await same.order()).body!.data!.id);
    const refusing = service({ duplicateOutOrderNo: 'reject' });
    await refusing.order();
    expect((await refusing.order()).status).toBe(409);
  });

  it("answers rejections with the member's own status, type and body", async () => {
    const s = service(memberChoices('own-rejections'));
    expect(await s.call('DELETE', '/v1/account')).toMatchObject({ status: 405, text: '' });
    expect(await s.call('GET', '/v1/tron/nothing')).toMatchObject({
      status: 404,
      type: 'text/html',
      body: undefined,
    });
    expect(await s.call('GET', '/v1/account', null)).toMatchObject({
      status: 403,
      type: 'text/plain; charset=utf-8',
      body: { code: 4031 },
    });
    expect((await service(memberChoices('lifecycle-choices')).call('GET', '/v1/account')).body!.code).toBe(1);
  });

  it('adds the undocumented fields it is given', async () => {
    const s = service(memberChoices('answer-shapes'));
    expect((await s.call('GET', '/v1/tron/price?rentalCount=65000&period=1h')).body!.data).toMatchObject({
      minRentalCount: 64000,
    });
    expect((await s.order()).body!.data).toMatchObject({ status: 'PENDING', pledgeAddress: ADDRESS });
  });
});
