/**
 * A state with something in every part (two accounts, orders COMPLETED and holding supply,
 * REFUNDED and PENDING, rules, activated and claimed addresses), for the tests that
 * tamper with state files.
 */
import { encodeTronAddress } from '../../src/tron-address.ts';
import type { EngineSnapshot } from '../engine/index.ts';
import { createSimulator } from '../simulator.ts';

/** A valid TRON address per small number. */
export const addressOf = (n: number): string => encodeTronAddress(new Uint8Array(20).fill(n));

/**
 * A fresh snapshot: orders[0] COMPLETED (holding supply), orders[1] REFUNDED, orders[2]
 * PENDING, of accounts[0] (demo-key); accounts[1] has none.
 *
 * @example
 *   const saved = richSnapshot();
 *   saved.orders[1]!.status; // 'REFUNDED'
 */
export function richSnapshot(): EngineSnapshot {
  const sim = createSimulator({ clock: 'manual', timing: 'realistic' });
  const { engine } = sim;
  engine.createAccount({ apiKey: 'second-key-1', trx: 50_000_000, usdt: 7_000_000 });
  engine.setSupply(10_000_000);
  engine.setAddress(addressOf(3), true);
  engine.rules.add({ match: { outOrderNo: 'fail-me' }, outcome: 'FAILED' });
  engine.rules.add({ match: { pledgeAddress: addressOf(4) }, outcome: 'COMPLETED', times: 5 });
  const demo = engine.authenticate('demo-key')!;
  engine.createOrder(demo, { pledgeAddress: addressOf(1), rentalCount: 65_000, period: '1h', outOrderNo: 'done' });
  engine.createOrder(demo, { pledgeAddress: addressOf(2), rentalCount: 70_000, period: '1d', outOrderNo: 'fail-me' });
  sim.advance(60_000);
  engine.createOrder(demo, { pledgeAddress: addressOf(5), rentalCount: 80_000, period: '10min', outOrderNo: 'open' });
  const saved = engine.snapshot();
  const statuses = saved.orders.map((o) => `${o.status}${o.reserved ? '+reserved' : ''}`);
  if (statuses.join() !== 'COMPLETED+reserved,REFUNDED,PENDING') throw new Error(`richSnapshot drifted: ${statuses.join()}`);
  return saved;
}
