/**
 * A change the log of effects could not keep is not acknowledged: on a full disk the change
 * that failed is answered 507, later changes are refused before they are made, reads go on,
 * and once a write succeeds again what failed is written in order.
 */
import { readFileSync, symlinkSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSimulator } from '../mock/simulator.ts';
import { logFileOf, openStateLog, type StateLog } from './state-log.ts';
import { addressOf } from './test-support.ts';

const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A simulator whose log of effects is written to /dev/full, where every write fails with ENOSPC. */
async function onFullDisk() {
  const dir = await mkdtemp(join(tmpdir(), 'erk-full-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'sim.json');
  symlinkSync('/dev/full', logFileOf(file));
  const errors: string[] = [];
  const log: StateLog = openStateLog(logFileOf(file), {
    fsync: 'no',
    maxBytes: 1 << 30,
    onFull: () => undefined,
    onError: (error) => errors.push(error.message),
  });
  cleanups.push(() => log.close());
  const sim = createSimulator({ clock: 'manual', timing: 'instant', changeLog: log });
  sim.engine.subscribeEffects(log.append);
  return { sim, log, file, errors };
}

const order = (sim: ReturnType<typeof createSimulator>, n: number) =>
  sim.fetch('http://sim/v1/tron/order', {
    method: 'POST',
    headers: { 'API-KEY': 'demo-key', 'content-type': 'application/x-www-form-urlencoded' },
    body: `pledgeAddress=${addressOf(n)}&rentalCount=65000&period=1h&outOrderNo=full-${n}`,
  });

describe('a change the state log cannot keep', () => {
  it('is answered 507 and not as made, and later changes are refused before anything changes', async () => {
    const { sim, errors } = await onFullDisk();
    const first = await order(sim, 1);
    expect(first.status).toBe(507);
    expect(await first.json()).toMatchObject({
      code: 50700,
      msg: expect.stringContaining('not acknowledged'),
    });
    expect(errors).toEqual([expect.stringContaining('ENOSPC')]);
    const made = sim.engine.snapshot().orders.length;
    const balance = JSON.stringify(sim.engine.accounts()[0]!.ledger);

    const second = await order(sim, 2);
    expect(second.status).toBe(507);
    expect(await second.json()).toMatchObject({ msg: expect.stringContaining('Nothing was changed') });
    const account = await sim.fetch('http://sim/_sim/accounts', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(account.status).toBe(507);
    expect(sim.engine.snapshot().orders.length).toBe(made);
    expect(sim.engine.accounts()).toHaveLength(1);
    expect(JSON.stringify(sim.engine.accounts()[0]!.ledger)).toBe(balance);

    const price = await sim.fetch('http://sim/v1/tron/price?rentalCount=65000&period=1h', {
      headers: { 'API-KEY': 'demo-key' },
    });
    expect(price.status).toBe(200);
  });

  it('takes changes again once a snapshot replaces the log, and the new log holds what follows', async () => {
    const { sim, log, file } = await onFullDisk();
    expect((await order(sim, 1)).status).toBe(507);
    // A snapshot holds the change that failed; compaction puts a writable file in place of /dev/full.
    log.beginSnapshot();
    log.compact(sim.engine.seq);
    expect(log.check()).toBeUndefined();
    expect((await order(sim, 3)).status).toBe(200);
    const lines = readFileSync(logFileOf(file), 'utf8').trim().split('\n');
    expect(lines.map((line) => (JSON.parse(line) as { seq: number }).seq).at(-1)).toBe(sim.engine.seq);
    expect(lines.some((line) => line.includes('full-3'))).toBe(true);
  });
});
