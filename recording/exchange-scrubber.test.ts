/**
 * The scrub of a text given in pieces replaces a known key wherever the pieces are cut,
 * and joins into what the scrub of the whole text gives; a key used as a field's name is
 * replaced as well as one used as a value.
 */
import { describe, expect, it } from 'vitest';
import { createExchangeScrubber } from './exchange-scrubber.ts';

const KEY = 'sk_live_0123456789abcdef';
const DOTTED = 'eyJhbGciOi.J9.eyJzdWIiOi';

function scrubber() {
  return createExchangeScrubber({
    baseUrl: 'http://upstream.test',
    known: [
      [KEY, 'key-1'],
      [DOTTED, 'key-2'],
    ],
    newAlias: () => 'key-3',
  });
}

describe('textScrub', () => {
  it('replaces a key cut between two pieces at any of its characters, raw or percent-encoded', () => {
    for (const spelled of [KEY, DOTTED, 'sk%5Flive%5F0123456789abcdef']) {
      const before = `${'a '.repeat(40_000)}`;
      const text = `${before}${spelled} and after`;
      const whole = scrubber().scrubText(text);
      expect(whole).not.toContain(spelled);
      for (let k = 1; k < spelled.length; k++) {
        const scrub = scrubber().textScrub();
        const out =
          scrub.push(text.slice(0, before.length + k)) +
          scrub.push(text.slice(before.length + k)) +
          scrub.end();
        expect(out, `cut ${k} characters into ${spelled}`).toBe(whole);
      }
    }
  });

  it('gives back the text unchanged, in order, when it holds no key', () => {
    const scrub = scrubber().textScrub();
    const pieces = Array.from({ length: 50 }, (_, i) => `${i} ${'x'.repeat(5_000)} `);
    expect(pieces.map((p) => scrub.push(p)).join('') + scrub.end()).toBe(pieces.join(''));
  });
});

describe('describeResponse', () => {
  it('replaces a known key used as a field name, and hides a secret-named field by its alias', () => {
    const response = scrubber().describeResponse(
      200,
      new Headers(),
      JSON.stringify({ [KEY]: 1, data: { apiKey: 'sk_other_key_value' } }),
      false,
    );
    expect(response.body).toEqual({ 'key-1': 1, data: { apiKey: 'key-3' } });
  });
});

describe('textScrub, cutting a long piece', () => {
  it('moves its cut before a key that stands across it, wherever in the key the cut would fall', () => {
    // The held-back tail is the longest a known key can be, percent-encoded: 12 characters a character.
    const reach = KEY.length * 12;
    const before = 'a '.repeat(40_000);
    for (let k = 1; k < KEY.length; k++) {
      // One piece, so long that it is cut at its length less the reach: k characters into the key.
      const text = `${before}${KEY}${' '.repeat(reach + k - KEY.length)}`;
      const scrub = scrubber().textScrub();
      const out = scrub.push(text) + scrub.end();
      expect(out, `cut ${k} characters into the key`).not.toContain(KEY);
      expect(out).toBe(scrubber().scrubText(text));
    }
  });
});

describe('a key the scrubber meets for the first time', () => {
  const NEW = 'sk_live_FIRSTSEEN_0123456789';
  let n = 0;
  const fresh = () =>
    createExchangeScrubber({ baseUrl: 'http://upstream.test', known: [], newAlias: () => `key-${++n + 1}` });

  it('is hidden in the query and body of the request whose header carries it', async () => {
    const request = new Request(`http://upstream.test/v1/account?ref=${NEW}`, {
      method: 'POST',
      headers: { 'API-KEY': NEW, 'content-type': 'application/json' },
      body: JSON.stringify({ note: `key ${NEW}` }),
    });
    const recorded = await fresh().describeRequest(request);
    expect(JSON.stringify(recorded)).not.toContain(NEW);
    expect(recorded.apiKeyAlias).toMatch(/^key-/);
  });

  it('is hidden in an answer that is no JSON, broken JSON or JSON too deep to walk', () => {
    for (const text of [
      `{"apiKey":"${NEW}","x":[1,2`,
      `api_key=${NEW}&ok=1`,
      `${'['.repeat(5000)}{"apiKey":"${NEW}"}${']'.repeat(5000)}`,
    ]) {
      const recorded = fresh().describeResponse(200, new Headers(), text, false);
      expect(JSON.stringify(recorded), text.slice(0, 40)).not.toContain(NEW);
    }
  });

  it('is hidden in a JSON answer where it is echoed before the field that names it, at any depth', () => {
    for (const answer of [
      { note: `your key is ${NEW}`, apiKey: NEW },
      { data: [{ echo: NEW }, { token: NEW }] },
      { first: NEW, auth: { inner: { password: NEW } } },
    ]) {
      const recorded = fresh().describeResponse(200, new Headers(), JSON.stringify(answer), true);
      expect(JSON.stringify(recorded), JSON.stringify(answer)).not.toContain(NEW);
    }
    // A name given twice (JSON.parse keeps the last value), and a pair inside a string.
    for (const text of [
      `{"note":"${NEW}","apiKey":"${NEW}","apiKey":"sk_live_another_0123456789"}`,
      `{"note":"${NEW}","log":["sent token=${NEW} upstream"]}`,
      // A pair inside a field's string, and a name whose letters separators keep apart.
      `{"data":{"reference":"${NEW}"},"msg":"created; api_key=${NEW}"}`,
      `{"note":"${NEW}","API_K-E-Y":"${NEW}"}`,
    ]) {
      const recorded = fresh().describeResponse(200, new Headers(), text, false);
      expect(JSON.stringify(recorded), text).not.toContain(NEW);
    }
  });
});
