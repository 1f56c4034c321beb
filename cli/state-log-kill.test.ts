/**
 * `serve --state FILE` under load, killed with SIGKILL while requests are in flight, three
 * times over: every order answered with code 0 is there after each restart, and the books
 * still add up. A torn last line of the log is reported and dropped.
 */
import { appendFileSync, readFileSync, realpathSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { addressOf, exitOf, startCli } from './test-support.ts';

const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

const CLIENTS = 12;
/** What an order of 65 000 energy for 1h costs at the default price, in sun. */
const ORDER_SUN = 4_230_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const units = (decimal: string) => Math.round(Number(decimal) * 1_000_000);

/** Starts `serve` on a free port; resolves once the whole banner is out. */
const startServe = (flags: string[]) =>
  startCli(['serve', '--port', '0', ...flags], cleanups, /listening on (http:\/\/\S+)[^]*control plane:/);

// The bodies are read field by field.
async function call(url: string, path: string, init: RequestInit = {}): Promise<any> {
  const res = await fetch(`${url}${path}`, init);
  return res.json();
}
const demo = (init: RequestInit = {}): RequestInit => ({
  ...init,
  headers: { 'API-KEY': 'demo-key', 'content-type': 'application/json' },
});

/** Clients creating orders as fast as they are answered, until the server is gone; those answered with code 0 go into `acknowledged`. */
async function load(url: string, cycle: number, acknowledged: Map<string, string>): Promise<void> {
  const client = async (c: number): Promise<void> => {
    for (let i = 0; ; i++) {
      const out = `k${cycle}-${c}-${i}`;
      let reply;
      try {
        reply = await call(
          url,
          `/v1/tron/order?pledgeAddress=${addressOf(1 + (i % 40))}&rentalCount=65000&period=1h&outOrderNo=${out}`,
          demo({ method: 'POST' }),
        );
      } catch {
        return; // killed: this answer never came
      }
      if (reply.code !== 0) throw new Error(`order ${out} answered ${JSON.stringify(reply)}`);
      acknowledged.set(reply.data.id as string, out);
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));
}

/** Every acknowledged order is there, with its price; the demo account's books add up. */
async function expectEverythingThere(url: string, acknowledged: Map<string, string>): Promise<void> {
  const ids = [...acknowledged.keys()];
  const missing: string[] = [];
  for (let i = 0; i < ids.length; i += 32) {
    await Promise.all(
      ids.slice(i, i + 32).map(async (id) => {
        const reply = await call(url, `/v1/tron/history?orderId=${id}`, demo());
        if (reply.code !== 0 || reply.data.orderId !== id || reply.data.amount !== '4.23')
          missing.push(`${id}: ${JSON.stringify(reply)}`);
      }),
    );
  }
  expect(missing, `${missing.length} of ${ids.length} acknowledged orders are missing`).toEqual([]);
  const { trx } = (await call(url, '/_sim/accounts/me', demo())).ledger;
  const [deposited, available, frozen, spent] = [trx.deposited, trx.available, trx.frozen, trx.spent].map(
    units,
  );
  expect(available! + frozen! + spent!).toBe(deposited);
  expect(deposited).toBe(units('101000'));
  // Every order made (an order whose answer the kill cut off is there too) holds its price.
  expect((frozen! + spent!) % ORDER_SUN).toBe(0);
  expect(frozen! + spent!).toBeGreaterThanOrEqual(ids.length * ORDER_SUN);
}

describe('serve --state with its log of effects', () => {
  it('keeps every order answered with code 0 across three kill -9 under load, and drops a torn last line', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'erk-kill-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'sim.json');
    const log = `${realpathSync(dir)}/sim.json.log`;
    // A long interval: what the kills interrupt is held by the log, not by a recent snapshot.
    const flags = ['--state', file, '--save-interval', '5000', '--timing', 'fast'];
    const acknowledged = new Map<string, string>();
    let server = await startServe(flags);
    await call(
      server.url,
      '/_sim/accounts/me/deposit',
      demo({ method: 'POST', body: JSON.stringify({ trx: '100000' }) }),
    );
    for (let cycle = 1; cycle <= 3; cycle++) {
      const answered = new Map<string, string>();
      let over = false;
      const running = load(server.url, cycle, answered).finally(() => (over = true));
      // The kill comes after a count of answers, not a time: a loaded machine answers fewer a second.
      while (!over && answered.size < 20 + cycle * 10) await sleep(10);
      server.child.kill('SIGKILL');
      expect(await exitOf(server.child)).toEqual({ code: null, signal: 'SIGKILL' });
      await running;
      // Fails if the clients stopped early (a refusal, a server gone before its kill).
      expect(answered.size, `cycle ${cycle} acknowledged orders`).toBeGreaterThanOrEqual(20 + cycle * 10);
      for (const [id, out] of answered) acknowledged.set(id, out);
      // The kill itself may tear the last line: Linux ends a write to a file at a page boundary
      // once a fatal signal is pending, so an entry that crosses one can be left half written
      // (and was never acknowledged, as its write had not returned).
      const text = readFileSync(log);
      let torn = text.length === 0 || text[text.length - 1] === 0x0a ? -1 : text.lastIndexOf(0x0a) + 1;
      if (cycle === 2) {
        if (torn < 0) torn = text.length;
        appendFileSync(log, '{"seq":999999999,"at":1,"type":"order","change":"crea');
      }
      server = await startServe(flags);
      if (torn >= 0)
        expect(server.output()).toContain(`'${log}' ends in an entry cut off by a crash at byte ${torn}`);
      else expect(server.output()).not.toMatch(/cut off by a crash/);
      await expectEverythingThere(server.url, acknowledged);
    }
    server.child.kill('SIGTERM');
    expect(await exitOf(server.child)).toEqual({ code: 0, signal: null });
  }, 60_000);
});
