/**
 * What the journal must not keep: API keys appear only in the response that creates an
 * account (and in a control-plane body that sets one), and the journal keeps neither.
 */

/**
 * A response body with its `apiKey` replaced; any other body as it is.
 *
 * @example
 *   redactKeys({ apiKey: 'sk_1', walletAddress: 'T…' }); // { apiKey: '[redacted]', walletAddress: 'T…' }
 */
export function redactKeys(body: unknown): unknown {
  if (typeof body === 'object' && body !== null && 'apiKey' in body) return { ...body, apiKey: '[redacted]' };
  return body;
}

/**
 * A request body with any `apiKey` of a JSON object replaced. Parsed, not
 * pattern-matched: JSON escapes can spell "apiKey" in many ways.
 *
 * @example
 *   redactBody('{"apiKey":"sk_1"}'); // '{"apiKey":"[redacted]"}'
 *   redactBody('rentalCount=65000');  // unchanged
 */
export function redactBody(text: string): string {
  // Only a JSON object can carry an apiKey; parsing (and throwing on) every form body
  // cost 5% of order creation.
  if (text.trimStart().charCodeAt(0) !== 123 /* { */) return text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  const redacted = redactKeys(parsed);
  return redacted === parsed ? text : JSON.stringify(redacted);
}
