/**
 * `serve --record` on hostile answers: JSON nested deeper than the proxy checks is kept as
 * text, never parsed and walked, and the event loop turns between two recorded exchanges.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { countingTurns } from '../mock/test-support/event-loop-turns.ts';
import { createLiveRecording } from './live-recording.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'live-recording-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const nested = (levels: number): string => '['.repeat(levels) + ']'.repeat(levels);

describe('a live recording of deeply nested answers', () => {
  it('keeps each as text, and lets the event loop turn between them', async () => {
    const file = path.join(dir, 'deep.jsonl');
    const recording = createLiveRecording(file, { upstream: 'http://127.0.0.1:9', allowSpend: false });
    // Six 400 KB answers nesting 200 000 levels, and one of 1 000 a recursive walk could take.
    const answers = [...Array.from({ length: 6 }, () => nested(200_000)), nested(1_000)];
    const fetch = recording.wrap(async (input) => {
      const n = Number(new URL((input as Request).url).searchParams.get('n'));
      return new Response(answers[n], { headers: { 'content-type': 'application/json' } });
    });
    const { turns } = await countingTurns(async () => {
      await Promise.all(
        answers.map((_, n) => fetch(`http://127.0.0.1:9/v1/account?n=${n}`).then((r) => r.text())),
      );
      await recording.flush();
    });
    await recording.close();
    expect(turns).toBeGreaterThanOrEqual(answers.length);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n').slice(1);
    const responses = lines.map(
      (line) => (JSON.parse(line) as { response: { body?: unknown; text?: string } }).response,
    );
    expect(responses.map((r) => [r.body, r.text?.length])).toEqual(answers.map((a) => [undefined, a.length]));
  });
});
