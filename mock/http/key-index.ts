/**
 * The keys a long-lived copy must not hold by value (a recorder's, a proxy's), indexed so
 * that replacing them in a text costs one pass over the text, however many keys were seen.
 * `replaceKeys` (journal-redaction.ts) tries each key in turn, fine for the one or two keys
 * of a request; a recorder fed thousands of distinct keys would spend a pattern per key
 * on every text it keeps.
 *
 * A key made of token characters only (letters, digits, `_`, `-`: every API key seen so
 * far) stands in a text as a "segment": a run of token characters, any of them possibly
 * percent-encoded (`%5F`). As `replaceKeys`' pattern wants, a key starts only where no
 * token character precedes it in the raw text, so at a segment's start (after an escape
 * the raw character before is a hex digit), and ends where none follows: at the segment's
 * end or before an escape (whose `%` is no token character). So each segment is looked up
 * a few times in a map, the longest key first. Any other key (with a `.`, `/`, `+` …) goes
 * through `replaceKeys`' pattern, as before.
 *
 * Written here rather than taken from a library: the matching rule (whole tokens, each
 * character raw or percent-encoded) is this project's own; Aho-Corasick packages match raw
 * substrings.
 */
import { keyAcross, MIN_SCRUBBED_KEY_LENGTH, replaceKeys } from './journal-redaction.ts';

const TOKEN_CHAR = /^[A-Za-z0-9_-]+$/;

export interface KeyIndex {
  /** Adds a key with its alias (a key shorter than MIN_SCRUBBED_KEY_LENGTH is kept but never looked for). */
  add(key: string, alias: string): void;
  /** The text with every key replaced by its alias where it stands as a whole token, raw or percent-encoded. */
  replace(text: string): string;
  /**
   * Where a key might stand across `at` in `text` (a segment that holds `at`, starting
   * within reach of it), or -1: a text scrubbed in pieces is cut only where this says -1.
   */
  across(text: string, at: number): number;
  /** The longest a key can stand in a text, percent-encoded. */
  readonly reach: number;
}

/** 0–9, A–F, a–f as their value; -1 for any other character code. */
function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 65 && code <= 70) return code - 55;
  if (code >= 97 && code <= 102) return code - 87;
  return -1;
}

function isTokenCode(code: number): boolean {
  return (
    (code >= 48 && code <= 57) ||
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    code === 95 ||
    code === 45
  );
}

/** The token character a `%XX` at `i` encodes, or -1 when there is none. */
function escapedToken(text: string, i: number): number {
  if (text.charCodeAt(i) !== 37 /* % */) return -1;
  const high = hexValue(text.charCodeAt(i + 1));
  const low = hexValue(text.charCodeAt(i + 2));
  if (high === -1 || low === -1) return -1;
  const code = high * 16 + low;
  return isTokenCode(code) ? code : -1;
}

/**
 * Creates an empty index.
 *
 * @example
 *   const keys = createKeyIndex();
 *   keys.add('sk_live_0123456789', 'key-2');
 *   keys.replace('echo sk_live%5F0123456789!'); // 'echo key-2!'
 */
export function createKeyIndex(): KeyIndex {
  /** Keys of token characters only, by their text. */
  const tokens = new Map<string, string>();
  /** Every other key, for replaceKeys. */
  const others: Array<[string, string]> = [];
  let longest = 0;

  /**
   * The segment starting at `start`: its end, and its decoded prefixes that may be a key
   * (ending at its end or before an escape), longest first, with where each ends raw.
   */
  function segmentAt(
    text: string,
    start: number,
  ): { end: number; cuts: Array<[decoded: string, rawEnd: number]> } {
    let decoded = '';
    const cuts: Array<[string, number]> = [];
    let i = start;
    for (;;) {
      const code = text.charCodeAt(i);
      if (isTokenCode(code)) {
        decoded += text[i];
        i++;
        continue;
      }
      const escaped = escapedToken(text, i);
      if (escaped === -1) break;
      if (decoded.length >= MIN_SCRUBBED_KEY_LENGTH) cuts.push([decoded, i]);
      decoded += String.fromCharCode(escaped);
      i += 3;
    }
    if (decoded.length >= MIN_SCRUBBED_KEY_LENGTH) cuts.push([decoded, i]);
    cuts.reverse();
    return { end: i, cuts };
  }

  function replaceTokens(text: string): string {
    if (tokens.size === 0) return text;
    let out = '';
    let copied = 0;
    let i = 0;
    const length = text.length;
    while (i < length) {
      const code = text.charCodeAt(i);
      if (!isTokenCode(code) && escapedToken(text, i) === -1) {
        i++;
        continue;
      }
      const { end, cuts } = segmentAt(text, i);
      for (const [decoded, rawEnd] of cuts) {
        const alias = tokens.get(decoded);
        if (alias === undefined) continue;
        out += text.slice(copied, i) + alias;
        copied = rawEnd;
        break;
      }
      i = end;
    }
    return copied === 0 ? text : out + text.slice(copied);
  }

  return {
    add(key, alias) {
      if (key.length < MIN_SCRUBBED_KEY_LENGTH) return;
      if (TOKEN_CHAR.test(key)) {
        if (tokens.has(key)) return;
        tokens.set(key, alias);
      } else {
        if (others.some(([known]) => known === key)) return;
        others.push([key, alias]);
      }
      longest = Math.max(longest, key.length);
    },
    replace(text) {
      const replaced = replaceTokens(text);
      return others.length === 0 ? replaced : replaceKeys(replaced, others);
    },
    across(text, at) {
      let first = -1;
      if (tokens.size > 0) {
        // Inside an escape (`%|41`, `%4|1`), or between two units of one segment.
        const inEscape = escapedToken(text, at - 1) !== -1 || escapedToken(text, at - 2) !== -1;
        const joined =
          isTokenCode(text.charCodeAt(at - 1)) &&
          (isTokenCode(text.charCodeAt(at)) || escapedToken(text, at) !== -1);
        if (inEscape || joined) {
          // Back to the segment's start, where alone a key can start; past `reach`, none can
          // stand across `at`.
          const floor = Math.max(0, at - this.reach);
          let start = at;
          const unitBefore = (i: number): boolean =>
            isTokenCode(text.charCodeAt(i - 1)) || escapedToken(text, i - 1) !== -1;
          while (start > floor && unitBefore(start)) start--;
          if (start === 0 || !unitBefore(start)) first = start;
        }
      }
      if (others.length > 0) {
        const other = keyAcross(text, at, others);
        if (other !== -1 && (first === -1 || other < first)) first = other;
      }
      return first;
    },
    get reach() {
      // A token character percent-encoded is 3 characters; another key's may be 4 bytes, 12.
      return longest * 12;
    },
  };
}
