/**
 * record's exit codes, with the contract suite stood in for by a function that records
 * what a run would (or nothing): 0 passed, 1 cases failed with the recording written,
 * 2 nothing recorded.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSimulator } from '../mock/simulator.ts';
import { createRecorder } from '../recording/recorder.ts';
import { CliError } from '../src/cli-error.ts';
import { RECORD_EXIT, runRecord } from './record-command.ts';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'record-command-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A suite that reads the account once through the recorder, then ends with `code`. */
function recordingSuite(code: number) {
  return async (env: NodeJS.ProcessEnv): Promise<number> => {
    const sim = createSimulator({ clock: 'manual' });
    const baseUrl = 'http://simulator.in-process';
    const recorder = createRecorder({ dir: env.CONTRACT_RECORD!, mainKey: 'demo-key', baseUrl });
    recorder.noteTarget({ kind: 'in-process', baseUrl, simulator: true, capabilities: [] });
    const transport = recorder.wrap(sim.fetch);
    await transport(
      new Request(`${baseUrl}/v1/account`, { headers: { 'API-KEY': 'demo-key' } }),
      'reads',
      'a.contract.test.ts',
    );
    return code;
  };
}

async function record(name: string, suite: (env: NodeJS.ProcessEnv) => Promise<number>) {
  const out = path.join(scratch, `${name}.json`);
  let output = '';
  const code = await runRecord(
    ['--out', out, '--report', path.join(scratch, `${name}-report.json`)],
    {},
    {
      write: (text) => void (output += text),
      suite,
    },
  );
  return { code, written: existsSync(out), output };
}

describe('record exit codes', () => {
  it('answers 0 when every case passed', async () => {
    expect(await record('passed', recordingSuite(0))).toMatchObject({
      code: RECORD_EXIT.passed,
      written: true,
    });
  });

  it('answers 1 when cases failed, with the recording written', async () => {
    const { code, written, output } = await record('failed', recordingSuite(1));
    expect({ code, written }).toEqual({ code: 1, written: true });
    expect(output).toMatch(/contract suite failed against this target/);
  });

  it('answers 1 for any other failing code of the suite too, so CI can tolerate 1 alone', async () => {
    expect((await record('crashed', recordingSuite(3))).code).toBe(1);
  });

  it('answers 2 when nothing was recorded', async () => {
    const { code, written, output } = await record('nothing', async () => 1);
    expect({ code, written }).toEqual({ code: RECORD_EXIT.nothingRecorded, written: false });
    expect(output).toMatch(/^No recording written/m);
  });

  it('records nothing and stops with a CliError when the URL refuses the key', async () => {
    const sim = createSimulator({ clock: 'manual' });
    let ran = false;
    const error = await runRecord(
      ['--out', path.join(scratch, 'refused.json'), '--base-url', 'http://sim.test', '--api-key', 'nope'],
      {},
      { write: () => {}, fetch: sim.fetch, suite: async () => ((ran = true), 0) },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect((error as Error).message).toMatch(/^key rejected/);
    expect(ran).toBe(false);
  });
});
