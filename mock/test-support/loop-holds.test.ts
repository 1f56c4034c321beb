/**
 * The preload that records a child's event-loop holds: a hold is seen, and what filled it is
 * told apart (the main thread running, against the thread asleep), so a failed bound that
 * quotes it points at the right culprit.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeHolds, loopHolds, loopHoldsEnv } from './loop-holds.ts';

const dir = mkdtempSync(join(tmpdir(), 'erk-holds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `script` in a child with the preload; the holds it recorded. */
async function holdsOf(
  name: string,
  script: string,
  nodeFlags: string[] = [],
): Promise<ReturnType<typeof loopHolds>> {
  const file = join(dir, `${name}.jsonl`);
  const child = spawn(process.execPath, [...nodeFlags, '-e', script], {
    env: { ...process.env, ...loopHoldsEnv(file) },
    stdio: 'inherit',
  });
  const code = await new Promise((resolve) => child.once('exit', resolve));
  expect(code).toBe(0);
  const holds = loopHolds(file);
  expect(holds.length, 'holds recorded').toBeGreaterThan(0);
  return holds;
}

// After 100 ms of an idle loop (so the preload has looked at it), one piece of work of
// 150 ms, then another 100 ms idle so the hold is recorded.
const around = (work: string): string => `setTimeout(() => { ${work}; setTimeout(() => {}, 100); }, 100);`;

describe.skipIf(!process.platform.startsWith('linux'))('the event-loop hold preload', () => {
  it('records a hold of the loop by code that runs as time on a core or waiting for one, never asleep', async () => {
    const holds = await holdsOf(
      'busy',
      around('const until = Date.now() + 150; while (Date.now() < until) {}'),
    );
    const longest = holds[0]!;
    expect(longest.ms).toBeGreaterThanOrEqual(140);
    // Runnable all along: on a core or waiting for one, never asleep.
    expect(longest.runMs + longest.waitMs).toBeGreaterThan(longest.ms - 20);
    expect(longest.runMs).toBeGreaterThan(0);
  });

  it('records a hold of the loop by a thread asleep, as neither running nor waiting for a core', async () => {
    const holds = await holdsOf(
      'asleep',
      around('Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 150)'),
    );
    const longest = holds[0]!;
    expect(longest.ms).toBeGreaterThanOrEqual(140);
    expect(longest.runMs + longest.waitMs).toBeLessThan(longest.ms / 2);
  });

  it('counts the collector pauses within a hold, though Node reports them only a turn later', async () => {
    // In a setImmediate, as the recorder's slices run: the GC entries of a pause in the check
    // phase reach observers after the next timers phase, where the preload measures the hold.
    const holds = await holdsOf(
      'collecting',
      'setTimeout(() => setImmediate(() => { const until = Date.now() + 150; while (Date.now() < until) gc(); setTimeout(() => {}, 100); }), 100);',
      ['--expose-gc'],
    );
    const longest = holds[0]!;
    expect(longest.ms).toBeGreaterThanOrEqual(140);
    expect(longest.gcMs).toBeGreaterThan(longest.ms / 2);
  });

  it('tells the holds since a moment, the longest first, each with what filled it', () => {
    const file = join(dir, 'three.jsonl');
    const holds = [
      { end: 1000, ms: 40, runMs: 30, waitMs: 10, gcMs: 0 },
      { end: 2000, ms: 149.4, runMs: 147.1, waitMs: 2.3, gcMs: 0 },
      { end: 500, ms: 300, runMs: 300, waitMs: 0, gcMs: 0 },
    ];
    writeFileSync(file, holds.map((hold) => `${JSON.stringify(hold)}\n`).join(''));
    expect(describeHolds(loopHolds(file, 1000))).toBe(
      "the server's event loop was held 149.4 ms (147.1 running, 2.3 waiting for a core, 0 in GC); 40 ms (30 running, 10 waiting for a core, 0 in GC)",
    );
    expect(describeHolds(loopHolds(join(dir, 'none.jsonl')))).toBe(
      "no hold of the server's event loop was recorded",
    );
  });
});
