import { describe, expect, it } from 'vitest';
import { RATE_LIMITED_CODE, rateLimited } from './rate-limit.ts';

/** A service that always answers 200, counting what reaches it. */
function service() {
  const reached: string[] = [];
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    reached.push(request.headers.get('api-key') ?? '(none)');
    return Response.json({ code: 0, msg: 'ok', time: 0, data: {} });
  }) as typeof globalThis.fetch;
  return { fetch, reached };
}

const call = (fetch: typeof globalThis.fetch, key = 'key-a') =>
  fetch(new Request('http://stand-in/v1/account', { headers: { 'API-KEY': key } }));

describe('rateLimited', () => {
  it('lets perSecond requests a second through per key and refuses the next with 429, Retry-After: 1 and the error envelope', async () => {
    let now = 1_000_000;
    const { fetch, reached } = service();
    const limited = rateLimited(fetch, { perSecond: 3, now: () => now });
    expect((await call(limited)).status).toBe(200);
    now += 500;
    for (let i = 0; i < 2; i++) expect((await call(limited)).status).toBe(200);
    const refused = await call(limited);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toEqual({
      code: RATE_LIMITED_CODE,
      msg: 'Too many requests: at most 3 a second per API key',
      time: 1000, // seconds, like the API's envelope
      data: null,
    });
    expect(reached).toHaveLength(3);
    // Another key has a limit of its own.
    expect((await call(limited, 'key-b')).status).toBe(200);
    // A refused request does not count: once the first leaves the window, one is free.
    now += 500;
    expect((await call(limited)).status).toBe(200);
    expect((await call(limited)).status).toBe(429);
  });

  it('says when to come back as an HTTP date, or not at all', async () => {
    const now = Date.parse('2026-01-01T00:00:00.400Z');
    const dated = rateLimited(service().fetch, { perSecond: 1, retryAfter: 'http-date', now: () => now });
    await call(dated);
    const refused = await call(dated);
    expect(refused.status).toBe(429);
    // Free at 01.400; an HTTP date has whole seconds, so the next one after.
    expect(refused.headers.get('retry-after')).toBe('Thu, 01 Jan 2026 00:00:02 GMT');

    const silent = rateLimited(service().fetch, { perSecond: 1, retryAfter: 'none', now: () => now });
    await call(silent);
    const plain = await call(silent);
    expect(plain.status).toBe(429);
    expect(plain.headers.has('retry-after')).toBe(false);
  });

  it('announces the limit, what is left and when it resets on every answer when asked to', async () => {
    let now = 5_000;
    const limited = rateLimited(service().fetch, { perSecond: 2, headers: true, now: () => now });
    const first = await call(limited);
    expect(Object.fromEntries([...first.headers].filter(([name]) => name.startsWith('x-ratelimit')))).toEqual(
      {
        'x-ratelimit-limit': '2',
        'x-ratelimit-remaining': '1',
        'x-ratelimit-reset': '0',
      },
    );
    now += 300;
    const second = await call(limited);
    expect(second.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(second.headers.get('x-ratelimit-reset')).toBe('1');
    expect((await second.json()) as unknown).toMatchObject({ code: 0 });
    const refused = await call(limited);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
  });

  it('refuses a perSecond that is not a whole number of 1 or more', () => {
    expect(() => rateLimited(service().fetch, { perSecond: 0 })).toThrow(/perSecond must be a whole number/);
    expect(() => rateLimited(service().fetch, { perSecond: 1.5 })).toThrow(/got 1\.5/);
  });
});
