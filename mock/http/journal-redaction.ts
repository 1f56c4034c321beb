/**
 * What the journal must not keep: API keys appear only in the response that creates an
 * account (and in a control-plane body that sets one), and the journal keeps neither.
 * A body that does not parse is redacted too: a rejected `{"apiKey":"k",}` is often
 * retried at once with the same key, which then is live.
 */

const REDACTED = '[redacted]';

/**
 * Whether a field name names a secret: apiKey, api_key, API-KEY, token, secret,
 * password, authorization, in any case and with any separator.
 */
function isSecretName(name: string): boolean {
  return /key$|token|secret|passw(or)?d|authori[sz]ation|bearer/.test(
    name.toLowerCase().replace(/[^a-z0-9]+/g, ''),
  );
}

/** Returned by `redact` for a value nested deeper than it walks. */
const TOO_DEEP = Symbol('too deep');
/** Deeper than this the walk stops (a 64 KiB body can nest 32 000 deep; recursion would overflow). */
const MAX_DEPTH = 64;

function redact(body: unknown, depth: number): unknown {
  if (typeof body !== 'object' || body === null) return body;
  if (depth > MAX_DEPTH) return TOO_DEEP;
  if (Array.isArray(body)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < body.length; i++) {
      const redacted = redact(body[i], depth + 1);
      if (redacted === TOO_DEEP) return TOO_DEEP;
      if (redacted !== body[i]) (copy ??= [...body])[i] = redacted;
    }
    return copy ?? body;
  }
  let copy: Record<string, unknown> | undefined;
  for (const [name, value] of Object.entries(body)) {
    const redacted = isSecretName(name) ? REDACTED : redact(value, depth + 1);
    if (redacted === TOO_DEEP) return TOO_DEEP;
    if (redacted !== value) (copy ??= { ...(body as Record<string, unknown>) })[name] = redacted;
  }
  return copy ?? body;
}

/**
 * A JSON value with every secret-named field replaced, at any depth up to 64 (the
 * simulator's own responses are far shallower); the same value when there is none.
 *
 * @example
 *   redactKeys({ apiKey: 'sk_1', walletAddress: 'T…' }); // { apiKey: '[redacted]', walletAddress: 'T…' }
 */
export function redactKeys(body: unknown): unknown {
  const redacted = redact(body, 0);
  return redacted === TOO_DEEP ? body : redacted;
}

// A name (quoted or not, with JSON escapes and %-escapes), `:` or `=`, and its value: a
// quoted string (to its end, or the end of the text when unterminated) or a bare run.
// Written so that no two branches match the same text, and a name starts only where a
// run of name characters does: the scan stays linear on any 64 KiB body.
const PAIR =
  /(?<![A-Za-z0-9_.+%\\-])(["']?)((?:[A-Za-z0-9_.+-]|\\.|%[0-9A-Fa-f]{2})+)\1(\s*[:=]\s*)("(?:[^"\\]|\\.)*(?:"|$)|'(?:[^'\\]|\\.)*(?:'|$)|[^,&;{}[\]\s"':=]*)/g;
// What any secret name contains, spelled plainly or escaped: only a body with one of
// these is scanned, so an order's form body costs one test of this pattern.
const MAY_HOLD_SECRET = /key|token|secret|passw|auth|bearer|%|\\/i;

/** Decodes the escapes a name may carry (JSON \uXXXX, URL %XX and +), as a parser would. */
function decodeName(raw: string): string {
  let name = raw
    .replace(/\\u([0-9A-Fa-f]{4})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    .replace(/\\(.)/g, '$1');
  try {
    name = decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    // A stray % is part of the name.
  }
  return name;
}

/**
 * Secret-named fields of a text that is not JSON (a form body, or JSON that does not
 * parse) replaced by a tolerant scan of `name: value` and `name=value` pairs.
 */
function redactPairs(text: string): string {
  if (!MAY_HOLD_SECRET.test(text)) return text;
  return text.replace(PAIR, (pair, quote: string, name: string, separator: string, value: string) => {
    if (!isSecretName(decodeName(name))) return pair;
    const open = value.startsWith('"') || value.startsWith("'") ? value[0]! : '';
    return `${quote}${name}${quote}${separator}${open}${REDACTED}${open}`;
  });
}

/**
 * A request body with its secret-named fields (apiKey, api_key, API-KEY, token, …)
 * replaced. A JSON object is parsed, not pattern-matched, because JSON escapes can spell
 * "apiKey" in many ways; anything else (a form body, JSON that does not parse) is scanned
 * for `name: value` and `name=value` pairs.
 *
 * @example
 *   redactBody('{"apiKey":"sk_1"}');           // '{"apiKey":"[redacted]"}'
 *   redactBody('{"apiKey":"sk_1",}');          // '{"apiKey":"[redacted]",}'
 *   redactBody('api_key=sk_1&rentalCount=1');  // 'api_key=[redacted]&rentalCount=1'
 *   redactBody('rentalCount=65000');           // unchanged
 */
export function redactBody(text: string): string {
  // Only a JSON object or array is parsed: parsing (and throwing on) every form body showed in
  // order creation's profile (bench/README.md).
  const first = text.trimStart().charCodeAt(0);
  if (first === 123 /* { */ || first === 91 /* [ */) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return redactPairs(text);
    }
    const redacted = redact(parsed, 0);
    // Too deep to walk: the text scan finds the pairs at any depth.
    if (redacted === TOO_DEEP) return redactPairs(text);
    return redacted === parsed ? text : JSON.stringify(redacted);
  }
  return redactPairs(text);
}
