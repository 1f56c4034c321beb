/**
 * The suite's manners toward a target that is not a simulator (docs/politeness.md): the run's pace; a 429
 * or 503 sent again after Retry-After, else the rate-limit reset, else a seeded backoff, within the caps.
 */
import { createHash } from 'node:crypto';
import { boundedBytes, untilAborted } from '../src/client/send-request.ts';
import { API_OPERATION_SPECS } from '../src/generated/lists.ts';
import type { CaseTransport, RetryMark } from '../recording/recorder.ts';
import type { Politeness } from './contract-config.ts';
import { WAIT_REASONS, type PaceSchedule, type WaitReason } from './pace-coordinator.ts';

/** What one case (or the run) waited, and why; live while the case runs. */
export interface PoliteWaits {
  waits: Record<WaitReason, { count: number; ms: number }>;
  /** Requests sent again after a 429. */
  retries: number;
  /** 429s answered to the caller: not retryable (a POST), or past a cap. */
  gaveUp: number;
  waitedMs: number;
  /** When the wait under way began (performance.now()), if one is. */
  waitingSince?: number;
}

/** A fresh tally, e.g. `emptyWaits().waits.pace` is `{ count: 0, ms: 0 }`. */
export function emptyWaits(): PoliteWaits {
  const waits = Object.fromEntries(WAIT_REASONS.map((reason) => [reason, { count: 0, ms: 0 }]));
  return { waits: waits as PoliteWaits['waits'], retries: 0, gaveUp: 0, waitedMs: 0 };
}

export interface PoliteOptions {
  settings: Politeness;
  schedule: PaceSchedule;
  /** The pace's key: one per target. */
  key: string;
  /** Seeds the backoff's jitter, so a run with the same id waits the same. */
  seed: string;
  /** Whether to be polite now: false once the target proved to be a simulator. */
  active: () => boolean;
  waitsOf: (caseName: string) => PoliteWaits;
  /** For tests (default setTimeout and Date.now). */
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/** Each sending's own deadline, until its body is read; waits are not in it. */
const ATTEMPT_TIMEOUT_MS = 10_000;

const BACKOFF_BASE_MS = 500;

/**
 * Milliseconds a Retry-After asks for: seconds, or an HTTP date; undefined when absent or unreadable.
 *
 * @example
 *   retryAfterMs('2', 0); // 2000
 *   retryAfterMs('Wed, 21 Oct 2015 07:28:01 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT')); // 1000
 */
export function retryAfterMs(value: string | null, nowMs: number): number | undefined {
  const text = value?.trim();
  return text && /^\d+$/.test(text) ? Number(text) * 1000 : untilDate(text, nowMs);
}

function untilDate(text: string | undefined, nowMs: number): number | undefined {
  const date = Date.parse(text ?? '');
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/** A rate-limit field: `X-RateLimit-<name>`, `RateLimit-<name>` or the `RateLimit` field's `<name>`. */
function rateLimitField(headers: Headers, name: 'reset' | 'remaining'): string | undefined {
  const field = new RegExp(`(?:^|[;,\\s])${name}=(\\d+)`).exec(headers.get('ratelimit') ?? '')?.[1];
  return headers.get(`x-ratelimit-${name}`) ?? headers.get(`ratelimit-${name}`) ?? field;
}

/** Milliseconds until the rate-limit headers' reset: seconds from now, a Unix time in s or ms, or an HTTP date. */
function resetMs(headers: Headers, nowMs: number): number | undefined {
  const reset = rateLimitField(headers, 'reset');
  if (reset === undefined) return undefined;
  const number = Number(reset.trim());
  if (Number.isNaN(number)) return untilDate(reset, nowMs);
  // A Unix time: in ms past 10^12, else in s past 10^9.
  if (number > 1e9) return Math.max(0, (number > 1e12 ? number : number * 1000) - nowMs);
  return number * 1000;
}

/**
 * How long to hold when the rate-limit headers say no request is left: until the reset, else one second.
 *
 * @example
 *   rateLimitHoldMs(new Headers({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '2' }), 0); // 2000
 */
export function rateLimitHoldMs(headers: Headers, nowMs: number): number | undefined {
  if (rateLimitField(headers, 'remaining')?.trim() !== '0') return undefined;
  return resetMs(headers, nowMs) ?? 1000;
}

/**
 * The backoff after `attempt`: BACKOFF_BASE_MS doubled per attempt, times a seeded jitter in [0.5, 1).
 *
 * @example
 *   backoffMs('run-1', 'case', 1); // between 250 and 500
 */
export function backoffMs(seed: string, caseName: string, attempt: number): number {
  const hash = createHash('sha256').update(`${seed}\n${caseName}\n${attempt}`).digest();
  const unit = hash.readUInt32BE(0) / 0x1_0000_0000;
  return Math.round(BACKOFF_BASE_MS * 2 ** (attempt - 1) * (0.5 + unit / 2));
}

/**
 * Wraps a transport with the run's manners (see the module's comment).
 *
 * @example
 *   const transport = politeTransport(recorder.wrap(fetch), { settings, schedule, key, seed, active: () => true, waitsOf });
 */
export function politeTransport(inner: CaseTransport, options: PoliteOptions): CaseTransport {
  const { settings, schedule, key } = options;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const now = options.now ?? Date.now;
  const intervalMs = settings.maxRps > 0 ? 1000 / settings.maxRps : 0;

  const wait = async (caseName: string, reason: WaitReason, ms: number): Promise<void> => {
    if (ms <= 0) return;
    const tally = options.waitsOf(caseName);
    tally.waits[reason].count++;
    tally.waits[reason].ms += ms;
    tally.waitingSince = performance.now();
    try {
      await sleep(ms);
    } finally {
      tally.waitedMs += ms;
      delete tally.waitingSince;
    }
  };

  /** One sending within its own deadline, its body read, so no wait of ours is in the caller's. */
  const send = async (request: Request, caseName: string, file: string, mark: (r: Response) => RetryMark) => {
    const deadline = AbortSignal.timeout(ATTEMPT_TIMEOUT_MS);
    const sending = async () => {
      const response = await inner(request, caseName, file, mark);
      // Read to its end, bounded as the client bounds it, and handed on whole.
      const body = await boundedBytes(response);
      const { status, statusText, headers } = response;
      return new Response(body.byteLength > 0 ? body : null, { status, statusText, headers });
    };
    try {
      return await untilAborted(sending(), deadline);
    } catch (error) {
      if (!deadline.aborted) throw error;
      throw new Error(`no complete response within ${ATTEMPT_TIMEOUT_MS} ms (timeout)`, { cause: error });
    }
  };

  const polite: CaseTransport = async (request, caseName, file, outerMark) => {
    if (!options.active()) return inner(request, caseName, file, outerMark);
    const retryable =
      request.method === 'GET' ||
      request.method === 'HEAD' ||
      (settings.retryOrders && settings.duplicateOutOrderNo === 'return-existing');
    const template = request.clone();
    // An order refused by a rate limit is sent again only once the history shows none by its outOrderNo.
    const outOrderNo = retryable ? undefined : await outOrderNoOf(request.clone());
    let waitedForRetries = 0;
    for (let attempt = 1; ; attempt++) {
      let slot = await schedule.take(key, intervalMs);
      while (slot.waitMs > 0) {
        await wait(caseName, slot.reason, slot.waitMs);
        slot = await schedule.go(key, intervalMs);
      }
      let decided: { retry?: { ms: number; reason: WaitReason }; refused: boolean } | undefined;
      // Decided when the answer arrives, before a recording writes it, so it is marked.
      const decide = (response: Response) => {
        decided = { refused: false };
        if (!RATE_LIMITED.has(response.status)) return decided;
        const asked = retryAfterMs(response.headers.get('retry-after'), now());
        const reset = asked === undefined ? resetMs(response.headers, now()) || undefined : undefined;
        const reason: WaitReason =
          asked !== undefined ? 'retryAfter' : reset !== undefined ? 'rateLimitHeaders' : 'backoff';
        // A backoff of ours may be shortened to the cap; a wait the target asked for may not.
        const ms = asked ?? reset ?? Math.min(backoffMs(options.seed, caseName, attempt), settings.waitMaxMs);
        if (
          (retryable || outOrderNo !== undefined) &&
          attempt <= settings.retries &&
          ms <= settings.waitMaxMs &&
          waitedForRetries + ms <= settings.waitTotalMs
        )
          decided.retry = { ms, reason };
        else decided.refused = true;
        return decided;
      };
      const mark = (response: Response): RetryMark => ({
        ...(outerMark?.(response) ?? {}),
        ...(attempt > 1 ? { attempt } : {}),
        ...(decide(response).retry ? { retried: true as const } : {}),
      });
      const response = await send(template.clone(), caseName, file, mark);
      // A transport below that records nothing never calls mark.
      const { retry, refused } = decided ?? decide(response);
      const hold = rateLimitHoldMs(response.headers, now());
      if (hold !== undefined && hold > 0)
        await schedule.hold(key, Math.min(hold, settings.waitMaxMs), 'rateLimitHeaders');
      if (!retry) {
        if (refused) options.waitsOf(caseName).gaveUp++;
        return response;
      }
      const { ms, reason } = retry;
      // Every worker holds off, not only this call.
      await schedule.hold(key, ms, reason);
      waitedForRetries += ms;
      await wait(caseName, reason, ms);
      if (outOrderNo !== undefined && (await orderTaken(template, outOrderNo, caseName, file))) {
        options.waitsOf(caseName).gaveUp++;
        return response;
      }
      options.waitsOf(caseName).retries++;
    }
  };

  /** Whether the history, asked politely, shows an order with this outOrderNo (or cannot say it does not). */
  const orderTaken = async (order: Request, outOrderNo: string, caseName: string, file: string) => {
    const url = new URL(order.url);
    url.pathname = url.pathname.replace(ORDER_PATH, HISTORY_PATH);
    url.search = new URLSearchParams({ outOrderNo }).toString();
    const apiKey = order.headers.get('api-key');
    const lookup = new Request(url, { headers: apiKey ? { 'API-KEY': apiKey } : {} });
    try {
      const answer = await polite(lookup, caseName, file);
      const body = (await answer.json().catch(() => undefined)) as { code?: unknown } | undefined;
      const { status } = answer;
      return !(status < 500 && status !== 429 && typeof body?.code === 'number' && body.code !== 0);
    } catch {
      return true;
    }
  };
  return polite;
}

/** What a rate limit answers: 429, or a 503 from a gateway (often an HTML page). */
const RATE_LIMITED = new Set([429, 503]);
const ORDER_PATH = new RegExp(`${API_OPERATION_SPECS.createOrder.path}$`);
const HISTORY_PATH = API_OPERATION_SPECS.getOrderHistory.path;

/** The outOrderNo of an order request (query string or form body); undefined for anything else. */
async function outOrderNoOf(request: Request): Promise<string | undefined> {
  if (request.method !== 'POST' || !ORDER_PATH.test(new URL(request.url).pathname)) return undefined;
  const sent = new URL(request.url).searchParams.get('outOrderNo');
  return sent ?? new URLSearchParams(await request.text()).get('outOrderNo') ?? undefined;
}
