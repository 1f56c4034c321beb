/**
 * The kit's one redaction of secrets for every copy it keeps: by name (a secret-named field or
 * pair), and by value (a key seen before, replaced by its alias wherever it reappears).
 */

const REDACTED = '[redacted]';

/** The words a secret's name is made of, as the rules a name (lower case, no separators) matches. */
const SECRET_WORDS = ['key$', 'token', 'secret', 'passw(or)?d', 'authori[sz]ation', 'bearer'];
const SECRET_NAME = new RegExp(SECRET_WORDS.join('|'));

/**
 * Whether a field name names a secret (apiKey, token, password…), in any case and with any separator.
 *
 * @example
 *   isSecretName('API_K-E-Y'); // true
 */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name.toLowerCase().replace(/[^a-z0-9]+/g, ''));
}

/** Deeper than this the walk stops: recursion would overflow. */
const MAX_DEPTH = 64;

/** How a walk hides secrets: what a text (a string, a field's name) and a secret-named field's value become. */
export interface RedactRule {
  text(text: string): string;
  secret(value: unknown): unknown;
}

/**
 * A JSON value with the rule applied to every string, name and secret-named field; the same
 * value when nothing changed; undefined past MAX_DEPTH.
 *
 * @example
 *   redactWith({ apiKey: 'sk_1', msg: 'sk_live_12345' }, { text: (t) => replaceKeys(t, keys), secret: () => '[redacted]' });
 */
export function redactWith(body: unknown, rule: RedactRule, depth = 0): unknown {
  if (typeof body === 'string') return rule.text(body);
  if (typeof body !== 'object' || body === null) return body;
  if (depth > MAX_DEPTH) return undefined;
  if (Array.isArray(body)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < body.length; i++) {
      const redacted = redactWith(body[i], rule, depth + 1);
      if (redacted === undefined && body[i] !== undefined) return undefined;
      if (redacted !== body[i]) (copy ??= [...body])[i] = redacted;
    }
    return copy ?? body;
  }
  const entries: Array<[string, unknown]> = [];
  let changed = false;
  for (const [name, value] of Object.entries(body)) {
    const shownName = rule.text(name);
    const redacted = isSecretName(name) ? rule.secret(value) : redactWith(value, rule, depth + 1);
    if (redacted === undefined && value !== undefined) return undefined;
    if (shownName !== name || redacted !== value) changed = true;
    entries.push([shownName, redacted]);
  }
  return changed ? Object.fromEntries(entries) : body;
}

type KeyPairs = ReadonlyArray<readonly [key: string, alias: string]>;

/**
 * A JSON value with every secret-named field replaced and each of `keys` by its alias.
 *
 * @example
 *   redactKeys({ apiKey: 'sk_1', walletAddress: 'T…' }); // { apiKey: '[redacted]', walletAddress: 'T…' }
 *   redactKeys({ msg: 'bad key sk_live_12345' }, [['sk_live_12345', 'key-2']]); // { msg: 'bad key key-2' }
 */
export function redactKeys(body: unknown, keys: KeyPairs = []): unknown {
  return redactWith(body, { text: (text) => replaceKeys(text, keys), secret: () => REDACTED }) ?? body;
}

// A name (quoted or not, escaped or not), `:` or `=`, and its value; no two branches match the same text.
const PAIR =
  /(?<![A-Za-z0-9_.+%\\-])(["']?)((?:[A-Za-z0-9_.+-]|\\.|%[0-9A-Fa-f]{2})+)\1(\s*[:=]\s*)("(?:[^"\\]|\\.)*(?:"|$)|'(?:[^'\\]|\\.)*(?:'|$)|[^,&;{}[\]\s"':=]*)/g;
// What any secret name contains (a word's letters up to its rule's first operator), or an escape:
// only a text matching this is scanned for pairs.
const MAY_HOLD_SECRET = new RegExp(
  [...SECRET_WORDS.map((word) => [...word.split(/[$([]/)[0]!].join('[^A-Za-z0-9]*')), '%', '\\\\'].join('|'),
  'i',
);

/** Decodes the escapes a name may carry (JSON \uXXXX, URL %XX and +), as a parser would. */
function decodeName(raw: string): string {
  const name = raw
    .replace(/\\u([0-9A-Fa-f]{4})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    .replace(/\\(.)/g, '$1');
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name; // A stray % is part of the name.
  }
}

/** A text that is not JSON with the values of its secret-named `name: value` and `name=value` pairs replaced. */
function redactPairs(text: string): string {
  if (!MAY_HOLD_SECRET.test(text)) return text;
  return text.replace(PAIR, (pair, quote: string, name: string, separator: string, value: string) => {
    if (!isSecretName(decodeName(name))) return pair;
    const open = value.startsWith('"') || value.startsWith("'") ? value[0]! : '';
    return `${quote}${name}${quote}${separator}${open}${REDACTED}${open}`;
  });
}

/**
 * A request body with its secret-named fields replaced: JSON parsed, anything else scanned for pairs.
 *
 * @example
 *   redactBody('{"apiKey":"sk_1"}');           // '{"apiKey":"[redacted]"}'
 *   redactBody('api_key=sk_1&rentalCount=1');  // 'api_key=[redacted]&rentalCount=1'
 */
export function redactBody(text: string): string {
  const first = text.trimStart().charCodeAt(0);
  if (first === 123 /* { */ || first === 91 /* [ */) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return redactPairs(text);
    }
    const redacted = redactWith(parsed, { text: (t) => t, secret: () => REDACTED });
    if (redacted === undefined) return redactPairs(text);
    return redacted === parsed ? text : JSON.stringify(redacted);
  }
  return redactPairs(text);
}

/** Keys shorter than this are not looked for by value: they would clobber ordinary text. */
export const MIN_SCRUBBED_KEY_LENGTH = 8;
/** Characters a key token is made of: a key is replaced only where none of these touch it. */
const TOKEN_EDGE = 'A-Za-z0-9_\\-';

/**
 * A pattern matching `key` as a whole token, each character raw or percent-encoded.
 *
 * @example
 *   keyPattern('sk_live_12345').test('k=sk_live%5F12345'); // true
 */
export function keyPattern(key: string): RegExp {
  const characters = [...key].map((ch) => {
    const raw = ch.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
    const encoded = [...new TextEncoder().encode(ch)]
      .map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`)
      .join('');
    return `(?:${raw}|${encoded.replace(/[A-F]/g, (d) => `[${d}${d.toLowerCase()}]`)})`;
  });
  return new RegExp(`(?<![${TOKEN_EDGE}])${characters.join('')}(?![${TOKEN_EDGE}])`, 'g');
}

/**
 * A text with each key (of MIN_SCRUBBED_KEY_LENGTH or more) replaced by its alias as a whole token.
 *
 * @example
 *   replaceKeys('invalid key sk_live_12345', [['sk_live_12345', 'key-2']]); // 'invalid key key-2'
 *   replaceKeys('k=sk_live%5F12345', [['sk_live_12345', 'key-2']]);       // 'k=key-2'
 */
export function replaceKeys(text: string, keys: Iterable<readonly [key: string, alias: string]>): string {
  let out = text;
  for (const [key, alias] of keys) {
    if (key.length < MIN_SCRUBBED_KEY_LENGTH) continue;
    // An encoded echo has a %.
    if (!out.includes(key) && !out.includes('%')) continue;
    out = out.replace(keyPattern(key), alias);
  }
  return out;
}

/** Names the keys of one run by first appearance, at most `limit` of them. */
export interface KeyAliases {
  /** The stable alias of `key` (`key-1`, `key-2`, …); past the limit, `key-overflow`. */
  alias(key: string): string;
  /** `replaceKeys` over the keys given an alias so far. */
  scrubText(text: string): string;
}

/**
 * Creates the alias book of one run: bounded, since every request may carry a new key.
 *
 * @example
 *   const aliases = createKeyAliases();
 *   aliases.alias('sk_live_12345');                // 'key-1'
 *   aliases.scrubText('echo: sk_live_12345');      // 'echo: key-1'
 */
export function createKeyAliases(limit = 10_000): KeyAliases {
  const book = new Map<string, string>();
  return {
    alias(key) {
      let alias = book.get(key);
      if (alias === undefined) {
        if (book.size >= limit) return 'key-overflow';
        alias = `key-${book.size + 1}`;
        book.set(key, alias);
      }
      return alias;
    },
    scrubText: (text) => replaceKeys(text, book),
  };
}

/**
 * The keys a JSON value holds, in order: secret-named fields' strings and pairs' values.
 *
 * @example
 *   secretValuesIn({ data: { token: 'tk_12345678', note: 'x' } }); // ['tk_12345678']
 *   secretValuesIn({ msg: 'created; api_key=sk_12345678' }); // ['sk_12345678']
 */
export function secretValuesIn(value: unknown): string[] {
  const values: string[] = [];
  const walk = (item: unknown, depth: number): void => {
    if (typeof item !== 'object' || item === null || depth > MAX_DEPTH) return;
    for (const [name, inner] of Object.entries(item)) {
      if (typeof inner === 'string') {
        if (!isSecretName(name)) values.push(...secretPairValues(inner));
        else if (inner) values.push(inner);
      } else walk(inner, depth + 1);
    }
  };
  walk(value, 0);
  return values;
}

/**
 * The keys a JSON answer holds, each once, with the pairs its text shows that parsing lost.
 *
 * @example
 *   secretValuesOfJson({ msg: 'api_key=sk_12345678' }, '{"msg":"api_key=sk_12345678"}'); // ['sk_12345678']
 */
export function secretValuesOfJson(value: unknown, text: string): string[] {
  if (!MAY_HOLD_SECRET.test(text)) return [];
  return [...new Set([...secretValuesIn(value), ...secretPairValues(text)])];
}

/** A bare JSON number or literal: never a key. */
const BARE_LITERAL = /^(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)$/;

/**
 * The values (unquoted, unescaped, long enough) of a text's secret-named `name: value` or
 * `name=value` pairs; with `openEnd`, a pair running to the end is left to the next window.
 *
 * @example
 *   secretPairValues('{"note":"new key sk_12345678","apiKey":"sk_12345678"'); // ['sk_12345678']
 */
export function secretPairValues(text: string, options: { openEnd?: boolean } = {}): string[] {
  if (!MAY_HOLD_SECRET.test(text)) return [];
  const values = new Set<string>();
  for (const match of text.matchAll(PAIR)) {
    const [pair, , name, , raw] = match;
    if (options.openEnd && match.index + pair.length === text.length) continue;
    if (!isSecretName(decodeName(name!))) continue;
    const quote = raw!.startsWith('"') || raw!.startsWith("'") ? raw![0]! : '';
    const inner =
      quote && raw!.length > 1 && raw!.endsWith(quote) ? raw!.slice(1, -1) : raw!.slice(quote.length);
    let value = inner;
    try {
      value =
        quote === '"' ? (JSON.parse(`"${inner}"`) as string) : decodeURIComponent(inner.replace(/\+/g, ' '));
    } catch {
      // Escapes that do not decode: the value as it stands.
    }
    // A bare number or literal is no key, before decoding too (a form's '+' in 1.5e+21).
    if (!quote && (BARE_LITERAL.test(inner) || BARE_LITERAL.test(value))) continue;
    if (value.length >= MIN_SCRUBBED_KEY_LENGTH) values.add(value);
  }
  return [...values];
}

/**
 * A URL fit to print: its user information and secret-named query values replaced.
 *
 * @example
 *   redactUrl('https://me:pw@api.example/api?token=t1&x=1'); // 'https://[redacted]@api.example/api?token=[redacted]&x=1'
 */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return redactPairs(url);
  }
  if (!parsed.username && !parsed.password && !MAY_HOLD_SECRET.test(parsed.search)) return url;
  const userinfo = parsed.username || parsed.password ? `${REDACTED}@` : '';
  const search = parsed.search ? `?${redactPairs(parsed.search.slice(1))}` : '';
  return `${parsed.protocol}//${userinfo}${parsed.host}${parsed.pathname}${search}${parsed.hash}`;
}
