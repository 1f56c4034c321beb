/**
 * A large answer scrubbed a slice at a time records what a small one parsed whole would:
 * the same JSON value with the same secrets hidden, or the same text; a key split between
 * two chunks of the body is hidden all the same; and the work gives the event loop turns.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countingTurns } from '../mock/test-support/event-loop-turns.ts';
import { createExchangeScrubber, type ExchangeScrubber } from './exchange-scrubber.ts';
import { scrubLargeResponse } from './large-response.ts';

const KEY = 'sk_live_0123456789abcdef';
const OTHER_KEY = 'k.e.y/with+odd=chars';
const HEADERS = new Headers({ 'content-type': 'application/json' });

/** A scrubber that has seen KEY and OTHER_KEY (as the proxy's has, from the requests). */
function scrubber(): ExchangeScrubber {
  let n = 1;
  return createExchangeScrubber({
    baseUrl: 'http://upstream.test',
    known: [
      [KEY, 'key-1'],
      [OTHER_KEY, 'key-9'],
    ],
    newAlias: () => `key-${++n}`,
  });
}

/** `text` as UTF-8 bytes cut at `cuts` (fractions of its length), as chunks off a socket. */
function chunked(text: string, cuts: number[] = []): Uint8Array[] {
  const bytes = new TextEncoder().encode(text);
  const at = [...new Set(cuts.map((c) => Math.floor(c * bytes.byteLength)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const to of [...at, bytes.byteLength]) {
    chunks.push(bytes.subarray(from, to));
    from = to;
  }
  return chunks;
}

/** Pieces of UTF-8 as one text. */
function joined(pieces: Buffer[]): string {
  return Buffer.concat(pieces).toString();
}

/** What the small path records for `text`: its body, or its text. */
function recordedWhole(text: string, issuing = false): unknown {
  const response = scrubber().describeResponse(200, HEADERS, text, issuing);
  return response.body !== undefined ? { json: response.body } : { text: response.text };
}

async function recordedInSlices(text: string, cuts: number[] = [], issuing = false): Promise<unknown> {
  const answer = await scrubLargeResponse(chunked(text, cuts), scrubber(), issuing);
  return 'json' in answer
    ? { json: JSON.parse(joined(answer.json)) as unknown }
    : { text: JSON.parse(`"${joined(answer.text)}"`) as unknown };
}

// JSON values where secret-named fields and known keys turn up anywhere.
const secretName = fc.constantFrom('apiKey', 'api_key', 'API-KEY', 'token', 'password', 'Authorization');
const leaf = fc.oneof(
  fc.jsonValue({ maxDepth: 0 }),
  fc.constantFrom(KEY, `echo ${KEY} back`, `${OTHER_KEY}`, 'é😀\u0000"\\', 'plain'),
);
const value = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('node'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.string({ maxLength: 6 }), secretName, fc.constant(KEY)), tie('node'), {
      maxKeys: 4,
    }),
  ),
})).node;

describe('scrubLargeResponse', () => {
  it('records any JSON, cut anywhere, as the value the whole answer parsed and scrubbed gives', async () => {
    await fc.assert(
      fc.asyncProperty(
        value,
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 6 }),
        fc.boolean(),
        fc.boolean(),
        async (json, cuts, issuing, spaced) => {
          const text = JSON.stringify(json, null, spaced ? 2 : undefined);
          expect(await recordedInSlices(text, cuts, issuing)).toEqual(recordedWhole(text, issuing));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('hides what a secret-named field holds at any depth, a string by its alias and anything else as [redacted]', async () => {
    const text = JSON.stringify({
      data: [
        { apiKey: 'sk_new_issued_key_1' },
        { token: { nested: KEY } },
        { password: 12 },
        { secret: null },
      ],
      note: `the key ${KEY} again`,
    });
    const answer = await scrubLargeResponse(chunked(text, [0.1, 0.5, 0.52]), scrubber(), true);
    const json = 'json' in answer ? joined(answer.json) : '';
    expect(JSON.parse(json)).toEqual({
      data: [
        { apiKey: 'key-2' },
        { token: '[redacted]' },
        { password: '[redacted]' },
        { secret: '[redacted]' },
      ],
      note: 'the key key-1 again',
    });
    expect(json).not.toContain('sk_');
  });

  it('hides a known key inside a string of megabytes wherever the chunks and its pieces are cut', async () => {
    const filler = 'x '.repeat(300_000);
    const text = JSON.stringify({ a: `${filler}${KEY} ${filler}${OTHER_KEY} ${filler}` });
    for (const cuts of [[0.5], [0.1, 0.333333, 0.666666], [0.49999, 0.50001]]) {
      const answer = await scrubLargeResponse(chunked(text, cuts), scrubber(), false);
      const json = 'json' in answer ? joined(answer.json) : '';
      expect(json.length).toBeGreaterThan(1_000_000);
      expect(json).not.toContain(KEY);
      expect(json).not.toContain(OTHER_KEY);
      expect(json.split('key-1')).toHaveLength(2);
      expect(json.split('key-9')).toHaveLength(2);
    }
  });

  it('keeps a text that is no JSON as its text, every known key replaced, even with no white space in it', async () => {
    const text = `${'y'.repeat(700_000)},${KEY},${'z'.repeat(700_000)}`;
    expect(await recordedInSlices(text, [0.5])).toEqual(recordedWhole(text));
    const broken = `{"a":"${KEY}","b":[1,2`;
    expect(await recordedInSlices(broken, [0.3])).toEqual(recordedWhole(broken));
    const spaces = ' '.repeat(2_000_000);
    expect(await recordedInSlices(spaces, [0.25, 0.75])).toEqual({ text: spaces });
  });

  it('hides a key met for the first time where it is echoed before the field that names it', async () => {
    const NEW = 'sk_live_FIRSTSEEN_0123456789';
    const filler = 'x '.repeat(200_000);
    // Each with whether it records what the small path records (a name given twice keeps
    // both values here, the last in JSON.parse's; their aliases are numbered in another order).
    const texts: Array<[string, boolean]> = [
      [JSON.stringify({ note: `${filler}${NEW} ${filler}`, data: { apiKey: NEW } }), true],
      // No JSON: the pair stands far past the echo, across the cuts of the chunks.
      [`echo ${NEW} ${filler} api_key=${NEW}&more=${filler}`, true],
      // A name given twice: the first value is none the less a key.
      [`{"note":"${filler}${NEW} ${filler}","apiKey":"${NEW}","apiKey":"sk_live_another_0123456789"}`, false],
      // A pair inside a long string, far past the echo.
      [JSON.stringify({ note: `${NEW} ${filler}`, log: `${filler} sent token=${NEW} upstream` }), false],
    ];
    for (const [text, sameAsWhole] of texts) {
      for (const cuts of [[0.5], [0.2, 0.9999]]) {
        const answer = await scrubLargeResponse(chunked(text, cuts), scrubber(), false);
        const out = joined('json' in answer ? answer.json : answer.text);
        expect(out.length).toBeGreaterThan(400_000);
        expect(out.includes(NEW), `${text.slice(0, 20)} cut at ${cuts.join()}`).toBe(false);
        if (sameAsWhole) expect(await recordedInSlices(text, cuts)).toEqual(recordedWhole(text));
      }
    }
  });

  it('gives the event loop turns while it works through a large answer', async () => {
    const text = JSON.stringify({ data: Array.from({ length: 200_000 }, (_, id) => ({ id, apiKey: KEY })) });
    const { result: answer, turns } = await countingTurns(() =>
      scrubLargeResponse(chunked(text), scrubber(), false),
    );
    expect('json' in answer).toBe(true);
    // Worked through in slices, the loop turning between them.
    expect(turns).toBeGreaterThan(3);
  });
});
