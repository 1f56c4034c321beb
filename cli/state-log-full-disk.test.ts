/**
 * A change the log of effects could not take leaves no trace: the engine writes each change
 * before it takes effect and puts it back when the write fails, so a 507 means nothing
 * changed, live and after a restart; reads go on, and once the disk takes writes again so
 * do changes.
 */
import { spawn } from 'node:child_process';
import { readFileSync, symlinkSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine, DEMO_SCENARIO, type EngineEffect } from '../mock/engine/index.ts';
import { createManualClock } from '../mock/engine/manual-clock.ts';
import { DEFAULT_FILE_LIMIT } from '../src/bounded-file.ts';
import { logFileOf, openStateLog, type StateLog } from './state-log.ts';
import { addressOf, cleanEnv, exitOf, ROOT, startCli } from './test-support.ts';

const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function scratch(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'erk-full-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A log of effects written to /dev/full, where every write fails with ENOSPC. */
async function onFullDisk() {
  const file = join(await scratch(), 'sim.json');
  symlinkSync('/dev/full', logFileOf(file));
  const errors: string[] = [];
  const log: StateLog = openStateLog(logFileOf(file), {
    stateFile: file,
    limit: DEFAULT_FILE_LIMIT,
    fsync: 'no',
    maxBytes: 1 << 30,
    onFull: () => undefined,
    onError: (error) => errors.push(error.message),
  });
  cleanups.push(() => log.close());
  return { log, file, errors };
}

/** The effects of one order, as an engine writing ahead hands them over. */
function orderEffects(n: number): EngineEffect[] {
  const written: EngineEffect[][] = [];
  const engine = createEngine({ clock: createManualClock(), seed: n, scenario: DEMO_SCENARIO });
  engine.writeAhead({
    write: (effects) => void written.push([...effects]),
    append: () => undefined,
    readBack: () => ({ saved: undefined, effects: [] }),
  });
  engine.createOrder(engine.authenticate('demo-key')!, {
    pledgeAddress: addressOf(n),
    rentalCount: 65_000,
    period: '1h',
    outOrderNo: `full-${n}`,
  });
  return written.flat();
}

describe('a log of effects on a full disk', () => {
  it('refuses a change whole, keeps none of it, says so once, and refuses the next at once', async () => {
    const { log, errors } = await onFullDisk();
    expect(() => log.write(orderEffects(1))).toThrow(
      /^Nothing was changed: the state log cannot be written \(ENOSPC/,
    );
    expect(log.check()?.message).toMatch(/ENOSPC/);
    expect(() => log.write(orderEffects(2))).toThrow(/^Nothing was changed/);
    expect(errors).toEqual([expect.stringContaining('ENOSPC')]);
    expect(log.bytes).toBe(0);
    expect(log.failures).toBe(0);
  });

  it('takes changes again once a snapshot replaces the log, and the new log holds what follows', async () => {
    const { log, file } = await onFullDisk();
    expect(() => log.write(orderEffects(1))).toThrow(/^Nothing was changed/);
    // Compaction puts a writable file in place of /dev/full.
    log.beginSnapshot();
    log.compact(0);
    const effects = orderEffects(3);
    log.write(effects);
    expect(log.check()).toBeUndefined();
    const lines = readFileSync(logFileOf(file), 'utf8').trim().split('\n');
    expect(lines.map((line) => JSON.parse(line) as EngineEffect)).toEqual(effects);
    expect(log.readBack()).toEqual({ saved: undefined, effects });
  });
});

/** Units of the smallest denomination of a decimal string of TRX. */
const sun = (trx: string): number => Math.round(Number(trx) * 1_000_000);
/** What an order of 65 000 energy for 1h costs at the default price, in sun. */
const ORDER_SUN = 4_230_000;

async function charged(url: string): Promise<{ orders: number; sun: number }> {
  const headers = { 'API-KEY': 'demo-key' };
  const { orders } = (await (await fetch(`${url}/_sim/orders?limit=1000`, { headers })).json()) as {
    orders: unknown[];
  };
  const { ledger } = (await (await fetch(`${url}/_sim/accounts/me`, { headers })).json()) as {
    ledger: { trx: { deposited: string; available: string } };
  };
  return { orders: orders.length, sun: sun(ledger.trx.deposited) - sun(ledger.trx.available) };
}

describe('serve --state on a disk that fills up', () => {
  it('charges, acknowledges and keeps after a restart the same orders', { timeout: 120_000 }, async () => {
    const state = join(await scratch(), 'sim.json');
    // No snapshot within the test: one would cut the log and make room, however slow the machine.
    const flags = [
      '--port',
      '0',
      '--state',
      state,
      '--fsync',
      'no',
      '--timing',
      'instant',
      '--save-interval',
      '3600000',
    ];
    // The file size limit of the process stands for the disk: past 48 KiB every write of the
    // log, and of a snapshot, fails (EFBIG; Node ignores SIGXFSZ).
    const shell = `ulimit -f 96; exec "${process.execPath}" bin/energy-rental-kit.js serve ${flags.join(' ')}`;
    const child = spawn('sh', ['-c', shell], {
      cwd: ROOT,
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanups.push(() => void (child.exitCode === null && child.signalCode === null && child.kill('SIGKILL')));
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    const url = await new Promise<string>((resolve, reject) => {
      const look = (): void => {
        const match = /listening on (http:\/\/\S+)[^]*control plane:/.exec(out);
        if (match) resolve(match[1]!);
      };
      child.stdout.on('data', look);
      child.once('exit', () => reject(new Error(`serve exited: ${out}`)));
    });

    // Four clients at once, until the disk has refused a good many.
    let acknowledged = 0;
    let refused = 0;
    const client = async (c: number): Promise<void> => {
      for (let i = 0; refused < 40; i++) {
        const answer = await fetch(
          `${url}/v1/tron/order?pledgeAddress=${addressOf(1 + (i % 30))}&rentalCount=65000&period=1h&outOrderNo=f-${c}-${i}`,
          { method: 'POST', headers: { 'API-KEY': 'demo-key' } },
        );
        const { code, msg } = (await answer.json()) as { code: number; msg: string };
        if (code === 0) acknowledged++;
        else if (answer.status === 507 && msg.startsWith('Nothing was changed')) refused++;
        else throw new Error(`order answered ${answer.status}, code ${code}: ${msg}`);
      }
    };
    await Promise.all([0, 1, 2, 3].map(client));
    expect(acknowledged, out).toBeGreaterThan(3);
    expect(out).toMatch(/could not append to the log .*EFBIG/);
    // Every change is refused alike, and reads go on.
    const account = await fetch(`${url}/_sim/accounts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(account.status).toBe(507);
    const price = await fetch(`${url}/v1/tron/price?rentalCount=65000&period=1h`, {
      headers: { 'API-KEY': 'demo-key' },
    });
    expect(price.status).toBe(200);

    const live = await charged(url);
    expect(live).toEqual({ orders: acknowledged, sun: acknowledged * ORDER_SUN });
    child.kill('SIGKILL');
    await exitOf(child);

    const restarted = await startCli(
      ['serve', ...flags],
      cleanups,
      /listening on (http:\/\/\S+)[^]*control plane:/,
    );
    expect(await charged(restarted.url)).toEqual({ orders: acknowledged, sun: acknowledged * ORDER_SUN });
  });
});
