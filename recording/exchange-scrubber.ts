/** An exchange as recorded, every key replaced by its alias: one scrubber for every recorder. */
import {
  keyPattern,
  MIN_SCRUBBED_KEY_LENGTH,
  redactWith,
  replaceKeys,
  secretPairValues,
  secretValuesIn,
  secretValuesOfJson,
} from '../mock/http/journal-redaction.ts';
import { nestsTooDeep } from '../mock/http/request-body.ts';
import type { RecordedRequest, RecordedResponse } from './recording.ts';

/** How much of a text given in pieces TextScrub gathers before it scrubs any. */
const TEXT_SCRUB_CHARS = 64 * 1024;

/** Names and hides the keys of one recorder. */
export interface ExchangeScrubber {
  /** The request as recorded: path relative to the base URL (or `baseUrl`), keys as aliases. */
  describeRequest(request: Request, baseUrl?: string): Promise<RecordedRequest>;
  /** The response as recorded from its body's text; `issuing` for an answer that hands out keys. */
  describeResponse(status: number, headers: Headers, text: string, issuing: boolean): RecordedResponse;
  /** Replaces every key seen so far in a text (an error message, say). */
  scrubText(text: string): string;
  /** What a secret-named field holding `value` is recorded as: a string's alias, '[redacted]' for anything else. */
  secretValue(value: unknown, issuing: boolean): string;
  /** `scrubText` over a text that comes in pieces, never all at once (see TextScrub). */
  textScrub(): TextScrub;
  /** Learns the values of a text's secret-named pairs as keys; `openEnd` for a window on a longer text. */
  learnPairs(text: string, issuing: boolean, openEnd?: boolean): void;
}

/** `scrubText` over a text in pieces: `push` holds back a tail a key may stand across, `end` the rest. */
export interface TextScrub {
  push(text: string): string;
  end(): string;
}

/**
 * A scrubber giving `known` keys their aliases, any other the one `newAlias` makes at its first appearance.
 *
 * @example
 *   const scrubber = createExchangeScrubber({ baseUrl, known: [['demo-key', 'key-1']], newAlias: (role) => `key-local-${++n}-${role}` });
 */
export function createExchangeScrubber(options: {
  baseUrl: string;
  known: ReadonlyArray<readonly [key: string, alias: string]>;
  newAlias: (role: 'issued' | 'foreign') => string;
}): ExchangeScrubber {
  const pathOf = (url: string): string => new URL(url).pathname.replace(/\/+$/, '');
  const basePath = pathOf(options.baseUrl);
  const aliases = new Map<string, string>(options.known);
  let longest = Math.max(0, ...options.known.map(([key]) => key.length));
  const aliasOf = (key: string, role: 'issued' | 'foreign'): string => {
    let alias = aliases.get(key);
    if (!alias) {
      alias = options.newAlias(role);
      aliases.set(key, alias);
      longest = Math.max(longest, key.length);
    }
    return alias;
  };
  const roleOf = (issuing: boolean): 'issued' | 'foreign' => (issuing ? 'issued' : 'foreign');
  /** Learns a text's secret-named pairs before it is scrubbed: a key echoed before its field is replaced too. */
  const learnSecrets = (text: string, issuing: boolean, openEnd = false): void => {
    for (const value of secretPairValues(text, { openEnd })) aliasOf(value, roleOf(issuing));
  };
  const scrubText = (text: string): string => replaceKeys(text, aliases);
  const secretValue = (value: unknown, issuing: boolean): string =>
    typeof value === 'string' ? aliasOf(value, roleOf(issuing)) : '[redacted]';
  const textScrub = (): TextScrub => {
    let pending = '';
    return {
      push(text) {
        pending += text;
        if (pending.length < TEXT_SCRUB_CHARS) return '';
        // Hold back the longest a key can stand percent-encoded (12 characters a character).
        let cut = pending.length - longest * 12;
        for (let across = keyAcross(pending, cut, aliases); cut > 0 && across !== -1;)
          across = keyAcross(pending, (cut = across), aliases);
        if (cut <= 0) return '';
        const done = pending.slice(0, cut);
        pending = pending.slice(cut);
        return scrubText(done);
      },
      end() {
        const rest = pending;
        pending = '';
        return scrubText(rest);
      },
    };
  };
  // A secret-named field holds a key, recorded as its alias ('issued' when the target hands it out).
  const scrub = (value: unknown, issuing: boolean): unknown => {
    const scrubbed = redactWith(value, { text: scrubText, secret: (v) => secretValue(v, issuing) });
    if (scrubbed === undefined) throw new Error('nested too deep to walk');
    return scrubbed;
  };

  return {
    scrubText,
    secretValue,
    textScrub,
    learnPairs: learnSecrets,
    async describeRequest(request, baseUrl) {
      const url = new URL(request.url);
      let pathname = url.pathname;
      const prefix = baseUrl === undefined ? basePath : pathOf(baseUrl);
      if (prefix && (pathname === prefix || pathname.startsWith(`${prefix}/`)))
        pathname = pathname.slice(prefix.length) || '/';
      // A TRON node's key is a key too: known, so that an echo of it is replaced; never recorded.
      const nodeKey = request.headers.get('tron-pro-api-key');
      if (nodeKey !== null) aliasOf(nodeKey, 'foreign');
      const key = request.headers.get('api-key');
      const text = request.body === null ? '' : await request.clone().text();
      // Every key the request carries is learnt before any part of it is scrubbed.
      const apiKeyAlias = key === null ? undefined : aliasOf(key, 'foreign');
      learnSecrets(url.search, false);
      learnSecrets(text, false);
      const keep = (value: unknown): unknown => {
        for (const held of secretValuesIn(value)) aliasOf(held, 'foreign');
        return scrub(value, false);
      };
      const out = recordedRequest(request, pathname, text, keep, scrubText);
      if (apiKeyAlias !== undefined) out.apiKeyAlias = apiKeyAlias;
      return out;
    },
    describeResponse(status, headers, text, issuing) {
      const kept: Record<string, string> = {};
      for (const name of ['content-type', 'retry-after']) {
        const value = headers.get(name);
        if (value !== null) kept[name] = value;
      }
      // Headers are redacted as a body's fields are, by the same walk: an upstream echoes keys there too.
      const recorded: RecordedResponse = { status, headers: scrub(kept, issuing) as Record<string, string> };
      try {
        // Deeper than the proxy checks, an answer is kept as text (walking it could overflow the stack).
        if (nestsTooDeep(text)) throw new Error('too deep');
        const value: unknown = JSON.parse(text);
        for (const held of secretValuesOfJson(value, text)) aliasOf(held, roleOf(issuing));
        recorded.body = scrub(value, issuing);
      } catch {
        // Not JSON, or JSON too deep to walk: its secret-named pairs are found by a scan.
        learnSecrets(text, issuing);
        recorded.text = scrubText(text);
      }
      return recorded;
    },
  };
}

/**
 * A request described as a recording holds it, its values and text as `keep` and `keepText` make them.
 *
 * @example
 *   recordedRequest(request, '/v1/tron/price', '', (v) => v, (t) => t); // { method: 'GET', path: '/v1/tron/price', query: {…} }
 */
export function recordedRequest(
  request: Request,
  path: string,
  text: string,
  keep: (value: unknown) => unknown,
  keepText: (text: string) => string,
): RecordedRequest {
  const query = keep(paramsOf(new URL(request.url).searchParams)) as RecordedRequest['query'];
  const out: RecordedRequest = { method: request.method.toUpperCase(), path, query };
  if (text === '') return out;
  if ((request.headers.get('content-type') ?? '').includes('application/x-www-form-urlencoded'))
    out.form = keep(paramsOf(new URLSearchParams(text))) as RecordedRequest['form'];
  else {
    try {
      out.json = keep(JSON.parse(text));
    } catch {
      out.text = keepText(text);
    }
  }
  return out;
}

/** Parameters as a sorted object; a repeated name keeps every value: `b=1&a=2&a=3` is `{ a: ['2', '3'], b: '1' }`. */
function paramsOf(params: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const name of [...new Set(params.keys())].sort()) {
    const values = params.getAll(name);
    out[name] = values.length === 1 ? values[0]! : values;
  }
  return out;
}

/**
 * Where the first key `replaceKeys` would replace standing across `at` starts in `text`, or -1.
 */
function keyAcross(text: string, at: number, keys: Iterable<readonly [key: string, alias: string]>): number {
  let start = -1;
  for (const [key] of keys) {
    if (key.length < MIN_SCRUBBED_KEY_LENGTH) continue;
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
