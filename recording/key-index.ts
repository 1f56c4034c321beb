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
 * end or before an escape (whose `%` is no token character). So the segments of 8 units
 * or more are found by one regular expression, and each is looked up in a map a few times,
 * the longest key first. Any other key (with a `.`, `/`, `+` …) goes through `replaceKeys`'
 * pattern, as before. While the keys are few (FEW_KEYS), `replaceKeys` takes them all: its
 * substring test per key is native and faster than any walk of the text.
 *
 * Written here rather than taken from a library: the matching rule (whole tokens, each
 * character raw or percent-encoded) is this project's own; Aho-Corasick packages match raw
 * substrings.
 */
import {
  keyPattern,
  MIN_SCRUBBED_KEY_LENGTH,
  replaceKeys,
  TOKEN_EDGE,
} from '../mock/http/journal-redaction.ts';

/** Which ASCII codes are token characters, read once off replaceKeys' own TOKEN_EDGE. */
const TOKEN_CODES = Uint8Array.from({ length: 128 }, (_, code) =>
  new RegExp(`^[${TOKEN_EDGE}]$`).test(String.fromCharCode(code)) ? 1 : 0,
);
const TOKEN_CHAR = new RegExp(`^[${TOKEN_EDGE}]+$`);
/** A percent-escape of a token character, hex in either case (`%5F`, `%2d`, …). */
const TOKEN_ESCAPE = (() => {
  const lows = new Map<string, string>();
  TOKEN_CODES.forEach((token, code) => {
    if (!token) return;
    const [high, low] = code.toString(16).padStart(2, '0').split('') as [string, string];
    lows.set(high, (lows.get(high) ?? '') + (/[a-f]/.test(low) ? `${low}${low.toUpperCase()}` : low));
  });
  return `%(?:${[...lows].map(([high, low]) => `${high}[${low}]`).join('|')})`;
})();
/** A segment long enough to be a key: token characters and escapes of them, at least 8 in all. */
const SEGMENT = new RegExp(`(?:[${TOKEN_EDGE}]|${TOKEN_ESCAPE}){${MIN_SCRUBBED_KEY_LENGTH},}`, 'g');
/** How many keys replaceKeys takes one after another before the index walks the text instead. */
const FEW_KEYS = 8;

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
  return code < 128 && TOKEN_CODES[code] === 1;
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
export function createKeyIndex(options: { fewKeys?: number } = {}): KeyIndex {
  // Up to this many keys, replaceKeys' native substring test per key beats any walk of the
  // text in JavaScript (a 7 MB JSON text: 3–8 ms against 60–80); past it, the walk wins.
  const fewKeys = options.fewKeys ?? FEW_KEYS;
  /** Keys of token characters only, by their text. */
  const tokens = new Map<string, string>();
  /** Every other key, for replaceKeys. */
  const others: Array<[string, string]> = [];
  /** Every key, in the order added, while they are few. */
  const all: Array<[string, string]> = [];
  let longest = 0;
  // A token character percent-encoded is 3 characters; another key's may be 4 bytes, 12.
  const reach = (): number => longest * 12;

  /**
   * The alias of the key that stands at the start of `segment` (a match of SEGMENT), and
   * where it ends in it: the longest of its decoded prefixes that end at its end or before
   * an escape.
   */
  function keyAtStart(segment: string): [alias: string, rawEnd: number] | undefined {
    if (!segment.includes('%')) {
      const alias = segment.length <= longest ? tokens.get(segment) : undefined;
      return alias === undefined ? undefined : [alias, segment.length];
    }
    let decoded = '';
    let found: [string, number] | undefined;
    let i = 0;
    while (i < segment.length && decoded.length <= longest) {
      if (segment.charCodeAt(i) === 37 /* % */) {
        const alias = tokens.get(decoded);
        if (alias !== undefined) found = [alias, i];
        decoded += String.fromCharCode(escapedToken(segment, i));
        i += 3;
      } else {
        decoded += segment[i];
        i++;
      }
    }
    if (i === segment.length) {
      const alias = tokens.get(decoded);
      if (alias !== undefined) found = [alias, i];
    }
    return found;
  }

  function replaceTokens(text: string): string {
    if (tokens.size === 0) return text;
    let out = '';
    let copied = 0;
    for (const match of text.matchAll(SEGMENT)) {
      const hit = keyAtStart(match[0]);
      if (hit === undefined) continue;
      out += text.slice(copied, match.index) + hit[0];
      copied = match.index + hit[1];
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
      if (all.length <= fewKeys) all.push([key, alias]);
    },
    replace(text) {
      if (all.length <= fewKeys) return replaceKeys(text, all);
      const replaced = replaceTokens(text);
      return others.length === 0 ? replaced : replaceKeys(replaced, others);
    },
    across(text, at) {
      if (all.length <= fewKeys) return keyAcross(text, at, all);
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
          const floor = Math.max(0, at - reach());
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
      return reach();
    },
  };
}

/**
 * Where the first occurrence of a key that `replaceKeys` would replace, standing across
 * `at` (starting before it and ending after it), starts in `text`; -1 when none does. A
 * text scrubbed in pieces is cut only where this says -1, so that no key is split between
 * two pieces and missed by both.
 *
 * @example
 *   keyAcross('a sk_live_12345 b', 5, [['sk_live_12345', 'key-2']]); // 2
 *   keyAcross('a sk_live_12345 b', 1, [['sk_live_12345', 'key-2']]); // -1
 */
function keyAcross(text: string, at: number, keys: Iterable<readonly [key: string, alias: string]>): number {
  let start = -1;
  for (const [key] of keys) {
    if (key.length < MIN_SCRUBBED_KEY_LENGTH) continue;
    // A percent-encoded character is at most 12 characters (four bytes, each `%XX`) long.
    const reach = key.length * 12;
    const from = Math.max(0, at - reach);
    const window = text.slice(from, at + reach);
    if (!window.includes(key) && !window.includes('%')) continue;
    for (const match of window.matchAll(keyPattern(key))) {
      const matchStart = from + match.index;
      if (matchStart >= at) break;
      if (matchStart + match[0].length > at && (start === -1 || matchStart < start)) start = matchStart;
    }
  }
  return start;
}
