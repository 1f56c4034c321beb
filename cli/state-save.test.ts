/**
 * Saving a large state without holding the event loop.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../mock/engine/manual-clock.ts';
import { createEngine, type Engine } from '../mock/engine/index.ts';
import { addressOf } from './test-support.ts';
import { startSaver, writeStateInChunks } from './state-file.ts';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function fileIn(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'erk-save-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return join(dir, 'sim.json');
}

/** An engine with `count` open orders whose next steps are all due within a second. */
function busyEngine(count: number): { engine: Engine; advance(ms: number): void; order(): void } {
  const clock = createManualClock();
  const engine = createEngine({
    clock,
    seed: 3,
    scenario: { settings: { timing: 'fast' }, accounts: [{ apiKey: 'demo-key', trx: 9_000_000_000_000 }] },
  });
  const account = engine.authenticate('demo-key')!;
  let n = 0;
  const order = (): void =>
    void engine.createOrder(account, {
      pledgeAddress: addressOf(1 + (n++ % 50)),
      rentalCount: 65_000,
      period: '10min',
    });
  for (let i = 0; i < count; i++) order();
  return { engine, advance: (ms) => clock.advance(ms), order };
}

describe('writeStateInChunks', () => {
  it('lets the event loop run between chunks, and writes the state of the moment it was taken though orders change meanwhile', async () => {
    const { engine, advance, order } = busyEngine(3000);
    const file = await fileIn();
    const expected = engine.snapshot();
    let turns = 0;
    let changing = true;
    // Between chunks the loop runs this: it moves every order along and adds new ones.
    const meddle = (): void => {
      if (!changing) return;
      turns++;
      advance(50);
      order();
      setImmediate(meddle);
    };
    setImmediate(meddle);
    const written = await writeStateInChunks(file, engine.snapshotLater());
    changing = false;
    expect(written).toBe(true);
    // 3000 orders at 500 a chunk: the loop ran between them.
    expect(turns).toBeGreaterThanOrEqual(5);
    expect(engine.snapshot()).not.toEqual(expected);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(expected);
    expect(await readdir(join(file, '..'))).toEqual(['sim.json']);
  });

  it('leaves the old file and no temporary one when cancelled', async () => {
    const { engine } = busyEngine(2000);
    const file = await fileIn();
    let checks = 0;
    expect(await writeStateInChunks(file, engine.snapshotLater(), () => ++checks > 2)).toBe(false);
    expect(await readdir(join(file, '..'))).toEqual([]);
  });
});

describe('startSaver', () => {
  it('never lets a save under way rename an older state over what saveNow wrote', async () => {
    const { engine, order } = busyEngine(4000);
    const file = await fileIn();
    const errors: Error[] = [];
    const saver = startSaver(engine, file, 50, (error) => errors.push(error));
    order();
    // Let the periodic, chunked save start, then save synchronously mid-way.
    await new Promise((resolve) => setTimeout(resolve, 60));
    order();
    saver.stop();
    saver.saveNow();
    await saver.settled();
    expect(errors).toEqual([]);
    expect(JSON.parse(await readFile(file, 'utf8')).orders).toHaveLength(4002);
    expect(await readdir(join(file, '..'))).toEqual(['sim.json']);
  });
});
