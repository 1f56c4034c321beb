import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineSnapshot } from '../mock/engine/index.ts';
import { CliError } from '../src/cli-error.ts';
import { serve } from './serve.ts';
import { addressOf, richSnapshot, runCli, type Cleanups } from './test-support.ts';

const cleanups: Cleanups = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function stateFile(content: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'erk-tamper-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'sim.json');
  await writeFile(file, content);
  return file;
}

type Tamper = (s: EngineSnapshot & Record<string, unknown>) => void;
const any = (value: unknown): never => value as never;

// Each: what an attacker or a careless hand did, and what the refusal must name.
const TAMPERED: [string, Tamper, RegExp][] = [
  [
    'a negative balance',
    (s) => void (s.accounts[0]!.ledger.TRX.available = -209_360_000),
    /\/accounts\/0\/ledger\/TRX\/available: must be >= 0/,
  ],
  [
    'a negative deposit',
    (s) => void (s.accounts[1]!.ledger.USDT.deposited = -1_000_005),
    /\/accounts\/1\/ledger\/USDT\/deposited: must be >= 0/,
  ],
  [
    'available above deposited',
    (s) => void (s.accounts[1]!.ledger.TRX.available += 1_000_000),
    /\/accounts\/1\/ledger\/TRX: available .* must equal deposited/,
  ],
  [
    'a balance in a string',
    (s) => void (s.accounts[0]!.ledger.USDT.available = any('100000000')),
    /\/accounts\/0\/ledger\/USDT\/available: must be integer/,
  ],
  [
    'a null balance',
    (s) => void (s.accounts[0]!.ledger.TRX.spent = any(null)),
    /\/accounts\/0\/ledger\/TRX\/spent: must be integer/,
  ],
  [
    'a balance of 1e308',
    (s) => void (s.accounts[1]!.ledger.TRX.available = 1e308),
    /\/accounts\/1\/ledger\/TRX\/available: must be <= 9007199254740991/,
  ],
  [
    'a balance of 1e30',
    (s) => void (s.accounts[1]!.ledger.TRX.deposited = 1e30),
    /\/accounts\/1\/ledger\/TRX\/deposited: must be <= /,
  ],
  [
    'a fractional balance',
    (s) => void (s.accounts[1]!.ledger.TRX.available = 0.5),
    /\/accounts\/1\/ledger\/TRX\/available: must be integer/,
  ],
  [
    'a negative evictedSpent',
    (s) => void (s.accounts[0]!.evictedSpent.TRX = -1),
    /\/accounts\/0\/evictedSpent\/TRX: must be >= 0/,
  ],
  [
    'two orders with one id',
    (s) => void (s.orders[2]!.id = s.orders[0]!.id),
    /\/orders\/2\/id: duplicate order id .*also at \/orders\/0\/id/,
  ],
  [
    'one account twice',
    (s) => void s.accounts.push(structuredClone(s.accounts[0]!)),
    /\/accounts\/2\/id: .* must be 3 .*duplicate key digest/,
  ],
  [
    'two accounts with one key digest',
    (s) => void (s.accounts[1]!.keyDigest = s.accounts[0]!.keyDigest),
    /\/accounts\/1\/keyDigest: duplicate key digest/,
  ],
  [
    'two accounts with one wallet address',
    (s) => void (s.accounts[1]!.walletAddress = s.accounts[0]!.walletAddress),
    /\/accounts\/1\/walletAddress: duplicate wallet address/,
  ],
  [
    'an account numbered out of turn',
    (s) => void (s.accounts[1]!.id = 7),
    /\/accounts\/1\/id: .*must be 2 \(got 7\)/,
  ],
  [
    'the API key itself instead of its digest',
    (s) => void (s.accounts[0]!.keyDigest = 'demo-key'),
    /\/accounts\/0\/keyDigest: must match pattern/,
  ],
  ['refunds: 5', (s) => void (s.orders[1]!.refunds = 5), /\/orders\/1\/refunds: must be <= 1/],
  [
    'a refund on a COMPLETED order',
    (s) => void (s.orders[0]!.refunds = 1),
    /\/orders\/0\/refunds: must be 0 for status COMPLETED/,
  ],
  [
    'a rule with outcome EXPLODE',
    (s) => void (s.rules[0]!.outcome = any('EXPLODE')),
    /\/rules\/0\/outcome: must be one of COMPLETED, FAILED \(got "EXPLODE"\)/,
  ],
  [
    'an order status not in the enum',
    (s) => void (s.orders[2]!.status = any('LOST')),
    /\/orders\/2\/status: must be one of COMPLETED, PENDING, FAILED, PROCESSING, REFUNDED/,
  ],
  [
    'an unknown currency',
    (s) => void (s.orders[0]!.currency = any('BTC')),
    /\/orders\/0\/currency: must be one of TRX, USDT/,
  ],
  ['an unknown period', (s) => void (s.orders[0]!.period = any('2h')), /\/orders\/0\/period: must be one of/],
  [
    'an unknown timing profile',
    (s) => void (s.settings.timing = any('warp')),
    /\/settings\/timing: must be one of realistic, fast, instant/,
  ],
  [
    'a failure rate above 1',
    (s) => void (s.settings.failureRate = 2),
    /\/settings\/failureRate: must be <= 1/,
  ],
  ['a price of 0', (s) => void (s.settings.prices['1h'] = 0), /\/settings\/prices\/1h: must be >= 1/],
  [
    'an unknown setting',
    (s) => void Object.assign(s.settings, { turbo: true }),
    /\/settings: unknown field 'turbo'/,
  ],
  ['an unknown top-level field', (s) => void (s.extra = 1), /\/: unknown field 'extra'/],
  [
    'no settings',
    (s) => void delete (s as Partial<EngineSnapshot>).settings,
    /\/: must have required property 'settings'/,
  ],
  ['a negative seed', (s) => void (s.seed = -1), /\/seed: must be >= 0/],
  ['a savedAt that was NaN', (s) => void (s.savedAt = any(null)), /\/savedAt: must be integer/],
  [
    'an order of an account not in the file',
    (s) => void (s.orders[0]!.accountId = 99),
    /\/orders\/0\/accountId: names account 99, which is not in the file/,
  ],
  [
    'frozen that open orders do not hold',
    (s) =>
      void ((s.accounts[0]!.ledger.TRX.frozen += 10_000), (s.accounts[0]!.ledger.TRX.available -= 10_000)),
    /\/accounts\/0\/ledger\/TRX\/frozen: must equal what its open orders hold/,
  ],
  [
    'spent that completed orders did not cost',
    (s) =>
      void ((s.accounts[0]!.ledger.TRX.spent += 10_000), (s.accounts[0]!.ledger.TRX.available -= 10_000)),
    /\/accounts\/0\/ledger\/TRX\/spent: must equal/,
  ],
  [
    'a status rolled back from COMPLETED to PROCESSING',
    (s) => void (s.orders[0]!.status = 'PROCESSING'),
    /\/accounts\/0\/ledger\/TRX\/frozen: must equal .*\/accounts\/0\/ledger\/TRX\/spent: must equal/,
  ],
  [
    'a REFUNDED order rolled back to FAILED',
    (s) => void ((s.orders[1]!.status = 'FAILED'), (s.orders[1]!.refunds = 0)),
    /\/accounts\/0\/ledger\/TRX\/frozen: must equal/,
  ],
  [
    'an outcome that contradicts the status',
    (s) => void (s.orders[1]!.outcome = 'COMPLETED'),
    /\/orders\/1\/outcome: must be FAILED for status REFUNDED/,
  ],
  [
    'supply held by a REFUNDED order',
    (s) => void ((s.orders[1]!.reserved = true), (s.supply.delegated += s.orders[1]!.rentalCount)),
    /\/orders\/1\/reserved: only a PROCESSING or COMPLETED order/,
  ],
  [
    'delegated energy no order holds',
    (s) => void (s.supply.delegated = 1),
    /\/supply\/delegated: must equal the rentalCount of the orders holding supply, 65000 \(got 1\)/,
  ],
  ['negative supply', (s) => void (s.supply.energy = -5), /\/supply\/energy: must be >= 0/],
  [
    'an amount of 1234567 units',
    (s) => void (s.orders[2]!.amount = 1_234_567),
    /\/orders\/2\/amount: must be a whole multiple of 10000/,
  ],
  ['a negative amount', (s) => void (s.orders[2]!.amount = -4_840_000), /\/orders\/2\/amount: must be >= 0/],
  [
    'a creation time past the date range',
    (s) => void (s.orders[2]!.createdAt = 1e20),
    /\/orders\/2\/createdAt: must be <= 8640000000000000/,
  ],
  [
    'a txId that is not hex',
    (s) => void (s.orders[0]!.plannedTxId = 'not-hex'),
    /\/orders\/0\/plannedTxId: must match pattern/,
  ],
  [
    'a pledge address that is no address',
    (s) => void (s.orders[0]!.pledgeAddress = 'nowhere'),
    /\/orders\/0\/pledgeAddress: must match pattern/,
  ],
  [
    'a 60 KB outOrderNo',
    (s) => void (s.orders[0]!.outOrderNo = 'x'.repeat(60_000)),
    /\/orders\/0\/outOrderNo: must NOT have more than 64 characters/,
  ],
  [
    'one outOrderNo on two orders of an account',
    (s) => void (s.orders[2]!.outOrderNo = 'done'),
    /\/orders\/2\/outOrderNo: duplicate outOrderNo/,
  ],
  ['a rule used up', (s) => void (s.rules[1]!.used = 5), /\/rules\/1\/used: must be below times 5/],
  ['two rules with one id', (s) => void (s.rules[1]!.id = 'rule-1'), /\/rules\/1\/id: duplicate rule id/],
  [
    'one address twice',
    (s) => void s.addresses.push({ address: addressOf(3), activated: false }),
    /\/addresses\/4\/address: duplicate address/,
  ],
  [
    'a claim on an activated address',
    (s) => void (s.addresses[0]!.claimedByOrderId = s.orders[2]!.id),
    /\/addresses\/0\/claimedByOrderId: an activated address has no pending claim/,
  ],
  [
    'a timeline that goes back in time',
    (s) => void (s.orders[0]!.outcomeAt = s.orders[0]!.createdAt - 1),
    /timeline goes back in time/,
  ],
];

describe('serve --state refuses a tampered state file', () => {
  it('starts from the untampered file, with its orders and accounts', async () => {
    const saved = richSnapshot();
    const file = await stateFile(JSON.stringify(saved));
    const running = await serve({ port: 0, host: '127.0.0.1', state: file, quiet: true }, () => undefined);
    try {
      const listed = (await (
        await fetch(`${running.url}/_sim/orders`, { headers: { 'API-KEY': 'demo-key' } })
      ).json()) as { orders: Array<{ orderId: string }> };
      expect(listed.orders.map((o) => o.orderId).sort()).toEqual(saved.orders.map((o) => o.id).sort());
      const second = await fetch(`${running.url}/v1/account`, { headers: { 'API-KEY': 'second-key-1' } });
      expect(second.status).toBe(200);
    } finally {
      await running.close();
    }
  });

  it.each(TAMPERED)(
    'refuses %s, naming the path and the rule, and leaves the file untouched',
    async (_name, tamper, names) => {
      const saved = richSnapshot() as EngineSnapshot & Record<string, unknown>;
      tamper(saved);
      const content = JSON.stringify(saved);
      const file = await stateFile(content);
      const before = await stat(file);
      const refusal = await serve(
        { port: 0, host: '127.0.0.1', state: file, quiet: true },
        () => undefined,
      ).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refusal).toBeInstanceOf(CliError);
      expect((refusal as Error).message).toMatch(
        new RegExp(`^--state: '${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}' is refused`),
      );
      expect((refusal as Error).message).toMatch(names);
      expect((refusal as Error).message).toMatch(/it is left untouched/);
      expect(await readFile(file, 'utf8')).toBe(content);
      expect((await stat(file)).mtimeMs).toBe(before.mtimeMs);
      // The lock of the refused start is gone: the file can be mended and used at once.
      expect(existsSync(`${file}.lock`)).toBe(false);
    },
  );

  it('exits 2 with the message and no stack trace from the real CLI', async () => {
    const saved = richSnapshot();
    saved.accounts[0]!.ledger.TRX.available = -209_360_000;
    const file = await stateFile(JSON.stringify(saved));
    const { code, stdout, stderr } = await runCli(['serve', '--port', '0', '--state', file], cleanups);
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /^energy-rental-kit: --state: .* is refused.*\/accounts\/0\/ledger\/TRX\/available: must be >= 0 \(got -209360000\)/,
    );
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(stdout).not.toMatch(/listening/);
  });
});
