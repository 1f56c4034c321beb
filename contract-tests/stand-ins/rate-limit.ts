/** A rate limit in front of any fetch: past `perSecond` requests a second per key, a 429 (or a gateway's 503). */

/** How a rate-limited stand-in behaves; `now` is for tests (default Date.now). */
export interface RateLimitOptions {
  /** Most requests a key may send in any 1000 ms. */
  perSecond: number;
  /** How a 429 says when to come back: `Retry-After: 1` (default), an HTTP date, or not at all. */
  retryAfter?: 'seconds' | 'http-date' | 'none';
  /** Whether every answer carries X-RateLimit-Limit, -Remaining and -Reset (seconds until a request is free). */
  headers?: boolean;
  /** 'gateway-503': the refusal is an HTML 503 whose X-RateLimit-Reset is the Unix time (s) a request is free. */
  refusal?: 'envelope-429' | 'gateway-503';
  now?: () => number;
}

export const RATE_LIMITED_CODE = 42900;
const WINDOW_MS = 1000;

/**
 * Wraps `fetch` with a per-key rate limit.
 *
 * @example
 *   const limited = rateLimited(sim.fetch, { perSecond: 8, retryAfter: 'http-date', headers: true });
 *   (await limited(new Request('http://sim/v1/account', { headers: { 'API-KEY': 'demo-key' } }))).status; // 200, then 429 past 8 a second
 */
export function rateLimited(
  fetch: typeof globalThis.fetch,
  options: RateLimitOptions,
): typeof globalThis.fetch {
  if (!(options.perSecond >= 1) || !Number.isInteger(options.perSecond))
    throw new RangeError(
      `rateLimited: perSecond must be a whole number of 1 or more (got ${options.perSecond}).`,
    );
  const now = options.now ?? Date.now;
  const retryAfter = options.retryAfter ?? 'seconds';
  // Per key, the times of the requests let through in the last second, oldest first.
  const sent = new Map<string, number[]>();

  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const key = request.headers.get('api-key') ?? '';
    const at = now();
    const times = (sent.get(key) ?? []).filter((t) => t > at - WINDOW_MS);
    sent.set(key, times);
    // When the oldest request in the window leaves it, a request is free again.
    const freeInMs = (): number => (times.length === 0 ? 0 : times[0]! + WINDOW_MS - at);
    const limitHeaders = (): Record<string, string> =>
      options.headers
        ? {
            'X-RateLimit-Limit': String(options.perSecond),
            'X-RateLimit-Remaining': String(Math.max(0, options.perSecond - times.length)),
            'X-RateLimit-Reset': String(times.length < options.perSecond ? 0 : Math.ceil(freeInMs() / 1000)),
          }
        : {};
    if (times.length >= options.perSecond && options.refusal === 'gateway-503') {
      const reset = String(Math.ceil((at + freeInMs()) / 1000));
      return new Response('<html><head><title>503 Service Temporarily Unavailable</title></head></html>', {
        status: 503,
        headers: { 'content-type': 'text/html', 'X-RateLimit-Reset': reset },
      });
    }
    if (times.length >= options.perSecond) {
      const headers: Record<string, string> = { 'content-type': 'application/json', ...limitHeaders() };
      if (retryAfter === 'seconds') headers['Retry-After'] = '1';
      // An HTTP date has whole seconds: the next whole second after a request is free.
      if (retryAfter === 'http-date')
        headers['Retry-After'] = new Date(Math.ceil((at + freeInMs()) / 1000) * 1000).toUTCString();
      const msg = `Too many requests: at most ${options.perSecond} a second per API key`;
      const body = { code: RATE_LIMITED_CODE, msg, time: Math.floor(at / 1000), data: null };
      return new Response(JSON.stringify(body), { status: 429, headers });
    }
    times.push(at);
    const response = await fetch(request);
    if (!options.headers) return response;
    const headers = new Headers(response.headers);
    for (const [name, value] of Object.entries(limitHeaders())) headers.set(name, value);
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  }) as typeof globalThis.fetch;
}
