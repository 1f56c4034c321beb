import { describe, expect, it } from 'vitest';
import { MAX_RESPONSE_BYTES } from '../src/client/send-request.ts';
import type { CaseTransport, RetryMark } from '../recording/recorder.ts';
import { createPaceSchedule } from './pace-coordinator.ts';
import type { Politeness } from './contract-config.ts';
import { backoffMs, emptyWaits, politeTransport, rateLimitHoldMs, retryAfterMs } from './polite-transport.ts';

const SETTINGS: Politeness = {
  maxRps: 0,
  retries: 4,
  waitMaxMs: 30_000,
  waitTotalMs: 60_000,
  retryOrders: false,
};

const tooMany = (headers: Record<string, string> = {}) =>
  Response.json({ code: 42900, msg: 'Too many requests', time: 0, data: null }, { status: 429, headers });
const ok = (headers: Record<string, string> = {}) =>
  Response.json({ code: 0, msg: 'ok', time: 0, data: {} }, { headers });

/** A polite transport over scripted answers, on a clock that only sleeping moves. */
function harness(answers: Array<() => Response>, settings: Partial<Politeness> = {}, active = true) {
  let clock = Date.parse('2026-01-01T00:00:00Z');
  const slept: number[] = [];
  const sent: Array<{ method: string; body: string; path?: string }> = [];
  const marks: RetryMark[] = [];
  const inner: CaseTransport = async (request, _case, _file, mark) => {
    const path = new URL(request.url).pathname;
    sent.push({
      method: request.method,
      body: await request.text(),
      ...(path.endsWith('/price') ? {} : { path }),
    });
    const response = answers[Math.min(sent.length - 1, answers.length - 1)]!();
    marks.push(mark?.(response) ?? {});
    return response;
  };
  const waits = emptyWaits();
  const schedule = createPaceSchedule(() => clock);
  const transport = politeTransport(inner, {
    settings: { ...SETTINGS, ...settings },
    schedule,
    key: 'target',
    seed: 'run-1',
    active: () => active,
    waitsOf: () => waits,
    sleep: (ms) => {
      slept.push(ms);
      clock += ms;
      return Promise.resolve();
    },
    now: () => clock,
  });
  const call = (method = 'GET', body?: string, path = '/v1/tron/price') =>
    transport(new Request(`http://target${path}`, { method, body }), 'a case', 'a file', () => ({}));
  return { call, sent, marks, slept, waits, now: () => clock };
}

describe('a polite transport', () => {
  it('waits out a Retry-After in seconds, sends the same request again, and marks the superseded answer', async () => {
    const h = harness([() => tooMany({ 'retry-after': '1' }), () => ok()]);
    const response = await h.call();
    expect(response.status).toBe(200);
    expect(h.sent).toHaveLength(2);
    expect(h.slept).toEqual([1000]);
    expect(h.marks).toEqual([{ retried: true }, { attempt: 2 }]);
    expect(h.waits).toMatchObject({
      retries: 1,
      gaveUp: 0,
      waitedMs: 1000,
      waits: { retryAfter: { count: 1, ms: 1000 }, pace: { count: 0, ms: 0 } },
    });
  });

  it('waits until a Retry-After given as an HTTP date', async () => {
    const h = harness([() => tooMany({ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }), () => ok()]);
    expect((await h.call()).status).toBe(200);
    expect(h.slept).toEqual([3000]);
    expect(h.waits.waits.retryAfter).toEqual({ count: 1, ms: 3000 });
  });

  it('backs off exponentially with a seeded jitter when no Retry-After comes', async () => {
    const h = harness([() => tooMany(), () => tooMany(), () => ok()]);
    expect((await h.call()).status).toBe(200);
    expect(h.slept).toEqual([backoffMs('run-1', 'a case', 1), backoffMs('run-1', 'a case', 2)]);
    expect(h.slept[0]).toBeGreaterThanOrEqual(250);
    expect(h.slept[0]).toBeLessThan(500);
    expect(h.slept[1]).toBeGreaterThanOrEqual(500);
    expect(h.slept[1]).toBeLessThan(1000);
    expect(h.waits.waits.backoff.count).toBe(2);
    // The same run waits the same; another run, differently.
    expect(backoffMs('run-1', 'a case', 1)).toBe(h.slept[0]);
    expect(['run-2', 'run-3', 'run-4'].some((seed) => backoffMs(seed, 'a case', 1) !== h.slept[0])).toBe(
      true,
    );
  });

  it('hands the 429 over rather than wait longer than the cap per wait', async () => {
    const h = harness([() => tooMany({ 'retry-after': '120' }), () => ok()]);
    const response = await h.call();
    expect(response.status).toBe(429);
    expect(h.sent).toHaveLength(1);
    expect(h.slept).toEqual([]);
    expect(h.waits.gaveUp).toBe(1);
    expect(h.marks).toEqual([{}]);
  });

  it('stops after the most retries, and within the cap on a call’s waits altogether', async () => {
    const always = harness([() => tooMany({ 'retry-after': '1' })], { retries: 2 });
    expect((await always.call()).status).toBe(429);
    expect(always.sent).toHaveLength(3);
    expect(always.marks).toEqual([{ retried: true }, { attempt: 2, retried: true }, { attempt: 3 }]);

    const total = harness([() => tooMany({ 'retry-after': '1' })], { waitTotalMs: 2_500 });
    expect((await total.call()).status).toBe(429);
    expect(total.slept).toEqual([1000, 1000]);
    expect(total.waits.gaveUp).toBe(1);
  });

  it('never sends an order again without --retry-orders', async () => {
    const h = harness([() => tooMany({ 'retry-after': '1' }), () => ok()], {
      duplicateOutOrderNo: 'return-existing',
    });
    const response = await h.call('POST', 'outOrderNo=erk-order-1&rentalCount=64000');
    expect(response.status).toBe(429);
    expect(h.sent).toHaveLength(1);
    expect(h.waits).toMatchObject({ retries: 0, gaveUp: 1 });
  });

  it('sends an order again, with the same outOrderNo, when allowed and the target returns the existing order', async () => {
    const h = harness([() => tooMany({ 'retry-after': '1' }), () => ok()], {
      retryOrders: true,
      duplicateOutOrderNo: 'return-existing',
    });
    const body = 'outOrderNo=erk-order-1&rentalCount=64000';
    expect((await h.call('POST', body)).status).toBe(200);
    expect(h.sent).toEqual([
      { method: 'POST', body },
      { method: 'POST', body },
    ]);
  });

  it('sends an order refused by a rate limit again once the history shows no order of its outOrderNo', async () => {
    const none = () =>
      Response.json({ code: 40401, msg: 'no such order', time: '0', data: null }, { status: 404 });
    const h = harness([() => tooMany({ 'retry-after': '1' }), none, () => ok()]);
    const body = 'outOrderNo=erk-order-1&rentalCount=64000';
    expect((await h.call('POST', body, '/api/v1/tron/order')).status).toBe(200);
    expect(h.sent).toEqual([
      { method: 'POST', body, path: '/api/v1/tron/order' },
      { method: 'GET', body: '', path: '/api/v1/tron/history' },
      { method: 'POST', body, path: '/api/v1/tron/order' },
    ]);
    expect(h.waits).toMatchObject({ retries: 1, gaveUp: 0 });
  });

  it('hands an order refused by a rate limit over when the history shows it was taken', async () => {
    const h = harness([() => tooMany({ 'retry-after': '1' }), () => ok()]);
    const response = await h.call('POST', 'outOrderNo=erk-order-1', '/v1/tron/order');
    expect(response.status).toBe(429);
    expect(h.sent.map((s) => s.path)).toEqual(['/v1/tron/order', '/v1/tron/history']);
    expect(h.waits).toMatchObject({ retries: 0, gaveUp: 1 });
  });

  it('waits out a gateway’s HTML 503 until the X-RateLimit-Reset it gives as a Unix time', async () => {
    const reset = String(Date.parse('2026-01-01T00:00:00Z') / 1000 + 2);
    const gateway = () =>
      new Response('<html><body>503 Service Unavailable</body></html>', {
        status: 503,
        headers: { 'content-type': 'text/html', 'x-ratelimit-reset': reset },
      });
    const limited = harness([gateway, () => ok()]);
    expect((await limited.call()).status).toBe(200);
    expect(limited.slept).toEqual([2000]);
    expect(limited.waits.waits.rateLimitHeaders).toEqual({ count: 1, ms: 2000 });
  });

  it('keeps the pace: one request per 1/maxRps seconds', async () => {
    const h = harness([() => ok()], { maxRps: 4 });
    for (let i = 0; i < 3; i++) await h.call();
    // The first goes at once; each next waits for its slot (the clock moves only by sleeping).
    expect(h.slept).toEqual([250, 250]);
    expect(h.waits.waits.pace).toEqual({ count: 2, ms: 500 });
  });

  it('holds the next request until the reset when the rate-limit headers say none is left', async () => {
    const h = harness([
      () => ok({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '2' }),
      () => ok({ 'x-ratelimit-remaining': '5' }),
    ]);
    await h.call();
    await h.call();
    expect(h.slept).toEqual([2000]);
    expect(h.waits.waits.rateLimitHeaders).toEqual({ count: 1, ms: 2000 });
  });

  it('reads an answer whole up to the client’s bound, and refuses a larger one without reading it all', async () => {
    const h = harness([() => ok({ 'x-case': 'small' })]);
    const small = await h.call();
    expect([small.status, small.headers.get('x-case'), await small.json()]).toEqual([
      200,
      'small',
      { code: 0, msg: 'ok', time: 0, data: {} },
    ]);
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(1024 * 1024));
      },
    });
    const big = harness([() => new Response(endless, { status: 200 })]);
    await expect(big.call()).rejects.toThrow(`larger than ${MAX_RESPONSE_BYTES} bytes`);
    expect(pulled).toBeLessThan(MAX_RESPONSE_BYTES / (1024 * 1024) + 3);
  });

  it('passes everything straight through while inactive (a simulator)', async () => {
    const h = harness([() => tooMany({ 'retry-after': '1' })], { maxRps: 1 }, false);
    expect((await h.call()).status).toBe(429);
    expect((await h.call()).status).toBe(429);
    expect(h.slept).toEqual([]);
    expect(h.sent).toHaveLength(2);
  });
});

describe('reading what the target asks for', () => {
  it('reads Retry-After as seconds or an HTTP date, and ignores what it cannot read', () => {
    const now = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT');
    expect(retryAfterMs('2', now)).toBe(2000);
    expect(retryAfterMs('Wed, 21 Oct 2015 07:28:05 GMT', now)).toBe(5000);
    expect(retryAfterMs('Wed, 21 Oct 2015 07:27:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
  });

  it('reads X-RateLimit-*, RateLimit-* and the RateLimit field, with a reset in seconds or as a Unix time', () => {
    const now = 1_700_000_000_000;
    const hold = (headers: Record<string, string>) => rateLimitHoldMs(new Headers(headers), now);
    expect(hold({ 'x-ratelimit-remaining': '3', 'x-ratelimit-reset': '2' })).toBeUndefined();
    expect(hold({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '2' })).toBe(2000);
    expect(hold({ 'ratelimit-remaining': '0', 'ratelimit-reset': '3' })).toBe(3000);
    expect(hold({ ratelimit: 'limit=8, remaining=0, reset=1' })).toBe(1000);
    expect(hold({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(now / 1000 + 4) })).toBe(4000);
    expect(hold({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(now + 1500) })).toBe(1500);
    expect(hold({ 'x-ratelimit-remaining': '0' })).toBe(1000);
    expect(hold({})).toBeUndefined();
  });
});
