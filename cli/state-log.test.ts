/**
 * The log of effects beside a state file: appended, read back past a snapshot, a torn last
 * line dropped, cut after a snapshot and compacted early when it outgrows its cap.
 */
import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine, type EngineEffect, type EngineSnapshot } from '../mock/engine/index.ts';
import { createManualClock } from '../mock/engine/manual-clock.ts';
import { DEFAULT_FILE_LIMIT } from '../src/bounded-file.ts';
import { CliError } from '../src/cli-error.ts';
import { loadState, removeLeftovers, replaceFile, startSaver } from './state-file.ts';
import { logFileOf, openStateLog, readStateLog, type StateLogOptions } from './state-log.ts';
import { addressOf } from './test-support.ts';

const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function stateFile(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'erk-log-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return join(dir, 'sim.json');
}

const scenario = {
  settings: { timing: 'fast' as const },
  accounts: [{ apiKey: 'demo-key', trx: 9_000_000_000 }],
};

/** An engine whose every effect goes to the log of `file`. */
function loggedEngine(file: string, options: Partial<StateLogOptions> = {}) {
  const clock = createManualClock(1_700_000_000_000);
  const engine = createEngine({ clock, seed: 9, scenario });
  const errors: Error[] = [];
  const log = openStateLog(logFileOf(file), {
    stateFile: file,
    limit: DEFAULT_FILE_LIMIT,
    fsync: 'no',
    maxBytes: 1 << 30,
    onFull: () => undefined,
    onError: (error) => errors.push(error),
    ...options,
  });
  cleanups.push(() => log.close());
  engine.writeAhead(log);
  const account = engine.authenticate('demo-key')!;
  let n = 0;
  const order = (): void =>
    void engine.createOrder(account, {
      pledgeAddress: addressOf(1 + (n++ % 9)),
      rentalCount: 65_000,
      period: '1h',
    });
  return { engine, clock, log, errors, order };
}

const read = (file: string, after = 0, warnings: string[] = []): EngineEffect[] =>
  readStateLog(logFileOf(file), { limit: DEFAULT_FILE_LIMIT, after, warn: (line) => warnings.push(line) });

const restoredFrom = (file: string, now: number) => {
  const saved = loadState(file);
  const effects = read(file, saved?.logSeq ?? 0);
  return createEngine({
    clock: createManualClock(now),
    seed: 9,
    scenario,
    ...(saved ? { restore: saved } : {}),
    replay: effects,
  });
};

describe('the log of effects', () => {
  it('gives back every appended change, and only those after the snapshot it is read past', async () => {
    const file = await stateFile();
    const { engine, order, clock } = loggedEngine(file);
    order();
    clock.advance(200);
    const middle = engine.seq;
    order();
    engine.deposit(engine.authenticate('demo-key')!, { trx: 5 });
    const all = read(file);
    expect(all.map((e) => e.seq)).toEqual(Array.from({ length: engine.seq }, (_, i) => i + 1));
    expect(all[0]).toMatchObject({ type: 'order', change: 'created', order: { status: 'PENDING' } });
    expect(read(file, middle).map((e) => e.seq)).toEqual(all.filter((e) => e.seq > middle).map((e) => e.seq));
  });

  it('put on the snapshot it follows restores the state a kill -9 left, without the final save', async () => {
    const file = await stateFile();
    const { engine, order, clock } = loggedEngine(file);
    for (let i = 0; i < 5; i++) order();
    replaceFile(file, JSON.stringify(engine.snapshot()));
    for (let i = 0; i < 5; i++) order();
    clock.advance(1500);
    engine.setSupply(99_000_000);
    // No save since: only the log holds these.
    expect(restoredFrom(file, clock.now()).snapshot()).toEqual(engine.snapshot());
  });

  it('keeps a manual clock move that changed nothing else, so a restart resumes at the time it was moved to', async () => {
    const file = await stateFile();
    const { engine, clock } = loggedEngine(file);
    replaceFile(file, JSON.stringify(engine.snapshot()));
    clock.advance(3_600_000);
    const effects = read(file, loadState(file)?.logSeq ?? 0);
    expect(effects).toEqual([{ seq: engine.seq, at: 1_700_003_600_000, type: 'clock' }]);
    // The simulator starts a restored manual clock at the last effect's time.
    expect(effects.at(-1)?.at).toBe(clock.now());
    expect(restoredFrom(file, clock.now()).seq).toBe(engine.seq);
  });

  it('drops a torn last line, says where, and cuts the file there', async () => {
    const file = await stateFile();
    const { engine, order } = loggedEngine(file);
    order();
    const log = logFileOf(file);
    const whole = statSync(log).size;
    appendFileSync(log, '{"seq":99,"at":1,"type":"ord');
    const warnings: string[] = [];
    expect(read(file, 0, warnings)).toHaveLength(engine.seq);
    expect(warnings).toEqual([
      expect.stringContaining(`'${log}' ends in an entry cut off by a crash at byte ${whole}`),
    ]);
    expect(statSync(log).size).toBe(whole);
    expect(read(file, 0, warnings)).toHaveLength(engine.seq);
    expect(warnings).toHaveLength(1);
  });

  it('refuses a damaged line before the last, naming the byte, and leaves the file untouched', async () => {
    const file = await stateFile();
    const { order } = loggedEngine(file);
    order();
    const log = logFileOf(file);
    const text = readFileSync(log, 'utf8');
    const damaged = `${text}not json\n${text}`;
    writeFileSync(log, damaged);
    expect(() => read(file)).toThrow(CliError);
    expect(() => read(file)).toThrow(new RegExp(`damaged entry at byte ${Buffer.byteLength(text)}`));
    expect(readFileSync(log, 'utf8')).toBe(damaged);
  });

  it('keeps, when cut after a snapshot, the changes appended while that snapshot was written', async () => {
    const file = await stateFile();
    const { engine, order, log } = loggedEngine(file);
    for (let i = 0; i < 3; i++) order();
    log.beginSnapshot();
    const seq = engine.seq;
    order();
    order();
    log.compact(seq);
    expect(read(file).map((e) => e.seq)).toEqual(
      Array.from({ length: engine.seq - seq }, (_, i) => seq + i + 1),
    );
    expect(log.bytes).toBe(statSync(logFileOf(file)).size);
    // Appends go on to the new file.
    order();
    expect(read(file).at(-1)!.seq).toBe(engine.seq);
  });

  it('has a snapshot written at once when it outgrows its cap, and is cut after it', async () => {
    const file = await stateFile();
    let full = 0;
    const late: { soon?: () => void } = {};
    const { engine, order, log, clock } = loggedEngine(file, {
      maxBytes: 20_000,
      onFull: () => {
        full++;
        late.soon?.();
      },
    });
    // An hour between snapshots: only the cap can bring one.
    const saver = startSaver(engine, file, 3_600_000, (error) => expect.fail(error.message), log);
    late.soon = saver.soon;
    cleanups.push(() => saver.stop());
    expect(log.bytes).toBe(0);
    while (!log.full) order();
    expect(full).toBe(1);
    const deadline = Date.now() + 5000;
    while (log.full && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(log.full).toBe(false);
    const saved = JSON.parse(readFileSync(file, 'utf8')) as EngineSnapshot;
    expect(saved.logSeq).toBeGreaterThan(0);
    expect(read(file).every((e) => e.seq > saved.logSeq)).toBe(true);
    expect(restoredFrom(file, clock.now()).snapshot()).toEqual(engine.snapshot());
  });

  it('removes the temporary files of saves that did not finish, and nothing else', async () => {
    const file = await stateFile();
    const dir = join(file, '..');
    for (const name of [
      '.sim.json.123.0.tmp',
      '.sim.json.log.77.4.tmp',
      '.other.json.1.1.tmp',
      'sim.json.log',
    ])
      writeFileSync(join(dir, name), 'x');
    expect(removeLeftovers(file).sort()).toEqual([
      join(dir, '.sim.json.123.0.tmp'),
      join(dir, '.sim.json.log.77.4.tmp'),
    ]);
    expect((await readdir(dir)).sort()).toEqual(['.other.json.1.1.tmp', 'sim.json.log']);
  });

  it('reads a state file saved before the log existed as one holding no logged change', async () => {
    const file = await stateFile();
    const { engine, order } = loggedEngine(file);
    order();
    const { logSeq: _logSeq, ...rest } = engine.snapshot();
    writeFileSync(file, JSON.stringify({ ...rest, format: 'energy-rental-kit/state@1' }));
    const saved = loadState(file)!;
    expect(saved.logSeq).toBe(0);
    expect(saved.orders).toHaveLength(1);
  });
});
