/**
 * The one pace of a contract run, shared by every worker (threads or processes).
 *
 * The vitest main process keeps the schedule (pace-global-setup.ts) and serves it on a
 * loopback port; each worker asks it for a slot before every request it sends. Chosen over
 * a lock file with timestamps because one process holds the whole state: no lock can be
 * left stale by a worker that dies while holding it, nobody polls, slots are granted in
 * the order asked for, and a hold that one worker learns of (a Retry-After, a rate-limit
 * header at 0) reaches every other worker's next request at once. It costs one loopback
 * round trip per request, and only while the pace or a hold is on.
 *
 * A slot is a reservation: the schedule moves on by one interval per grant, and the
 * worker sleeps until its slot. A timer may fire late, though (a loaded machine), and a
 * late request would then go close to the next one; so after sleeping, a worker asks to
 * go, and goes only once a whole interval has passed since the last request that went
 * (and no hold is on). So N workers together send at most `rps` requests a second,
 * however they interleave and however late their timers fire.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Why a request waited. */
export type WaitReason = 'pace' | 'rateLimitHeaders' | 'retryAfter' | 'backoff';

/** A granted slot: how long to wait before sending, and why. */
export interface Slot {
  waitMs: number;
  reason: WaitReason;
}

/** The schedule: what workers ask of the run's pace. */
export interface PaceSchedule {
  /**
   * Reserves the next slot of `key` at one request per `intervalMs` (0: no pace, only
   * holds). A wait of 0 means go now; else sleep, then ask `go`.
   */
  take(key: string, intervalMs: number): Promise<Slot>;
  /** After sleeping for a slot: 0 to go now (noted as the last request), else how much longer. */
  go(key: string, intervalMs: number): Promise<Slot>;
  /** Holds every request of `key` for `ms` from now (a Retry-After, a rate limit at 0). */
  hold(key: string, ms: number, reason: WaitReason): Promise<void>;
}

interface KeyState {
  nextFree: number;
  lastWent: number;
  heldUntil: number;
  heldReason: WaitReason;
}

/**
 * The schedule itself, on a monotonic clock you give it.
 *
 * @example
 *   const schedule = createPaceSchedule(() => performance.now());
 *   await schedule.take('https://api.eopen.io/api', 250); // { waitMs: 0, reason: 'pace' }
 *   await schedule.take('https://api.eopen.io/api', 250); // { waitMs: 250, reason: 'pace' }
 */
export function createPaceSchedule(now: () => number): PaceSchedule {
  const keys = new Map<string, KeyState>();
  const stateOf = (key: string): KeyState => {
    let state = keys.get(key);
    if (!state)
      keys.set(key, (state = { nextFree: 0, lastWent: -Infinity, heldUntil: 0, heldReason: 'pace' }));
    return state;
  };
  return {
    take(key, intervalMs) {
      const state = stateOf(key);
      const at = now();
      // After the last reserved slot, and a whole interval after the last that went (it may have gone late).
      const paced = Math.max(at, state.nextFree, state.lastWent + intervalMs);
      const start = Math.max(paced, state.heldUntil);
      state.nextFree = intervalMs > 0 ? start + intervalMs : state.nextFree;
      const reason: WaitReason = state.heldUntil > paced ? state.heldReason : 'pace';
      if (start === at) state.lastWent = at;
      return Promise.resolve({ waitMs: start - at, reason });
    },
    go(key, intervalMs) {
      const state = stateOf(key);
      const at = now();
      const paced = Math.max(at, state.lastWent + intervalMs);
      const start = Math.max(paced, state.heldUntil);
      if (start === at) state.lastWent = at;
      const reason: WaitReason = state.heldUntil > paced ? state.heldReason : 'pace';
      return Promise.resolve({ waitMs: start - at, reason });
    },
    hold(key, ms, reason) {
      const state = stateOf(key);
      const until = now() + ms;
      if (until > state.heldUntil) {
        state.heldUntil = until;
        state.heldReason = reason;
      }
      return Promise.resolve();
    },
  };
}

/**
 * Serves a schedule on 127.0.0.1 (POST /take, POST /hold, JSON bodies) for the run's
 * workers; resolves with its URL and a close function.
 *
 * @example
 *   const server = await servePaceSchedule(createPaceSchedule(() => performance.now()));
 *   process.env.CONTRACT_PACE_URL = server.url;
 */
export async function servePaceSchedule(
  schedule: PaceSchedule,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((request, response) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      text += chunk;
      if (text.length > 10_000) request.destroy();
    });
    request.on('end', () => {
      void answer(request.url ?? '', text).then(
        (body) => {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify(body));
        },
        (error: Error) => {
          response.writeHead(400, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ error: error.message }));
        },
      );
    });
  });
  const answer = async (url: string, text: string): Promise<unknown> => {
    const body = JSON.parse(text) as { key?: unknown; intervalMs?: unknown; ms?: unknown; reason?: unknown };
    if (typeof body.key !== 'string') throw new Error('key must be a string');
    if (url === '/take' && typeof body.intervalMs === 'number')
      return schedule.take(body.key, body.intervalMs);
    if (url === '/go' && typeof body.intervalMs === 'number') return schedule.go(body.key, body.intervalMs);
    if (url === '/hold' && typeof body.ms === 'number' && typeof body.reason === 'string') {
      await schedule.hold(body.key, body.ms, body.reason as WaitReason);
      return {};
    }
    throw new Error(`unknown request ${url}`);
  };
  // Workers keep their connection open between requests: many small calls, one socket each.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

/** One JSON call to the run's schedule (node:http, so no stub of globalThis.fetch catches it). */
function post<T>(base: string, pathname: string, body: unknown): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const request = http.request(
      new URL(pathname, base),
      { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          try {
            if (response.statusCode !== 200) throw new Error(`HTTP ${response.statusCode} ${text}`);
            resolve(JSON.parse(text) as T);
          } catch (error) {
            reject(new Error(`the run's pace at ${base} answered badly: ${(error as Error).message}`));
          }
        });
      },
    );
    request.on('error', (error) =>
      reject(new Error(`the run's pace at ${base} is unreachable: ${error.message}`)),
    );
    request.end(JSON.stringify(body));
  });
}

/**
 * The run's schedule as a worker sees it: the shared one at `url` (CONTRACT_PACE_URL,
 * set by the contract project's global setup), else one of this worker's own, which
 * paces only this worker (a suite run outside the kit's vitest configs).
 *
 * @example
 *   const schedule = paceScheduleAt(process.env.CONTRACT_PACE_URL);
 */
export function paceScheduleAt(url: string | undefined): PaceSchedule {
  if (!url) return (ownSchedule ??= createPaceSchedule(() => performance.now()));
  return {
    take: (key, intervalMs) => post<Slot>(url, '/take', { key, intervalMs }),
    go: (key, intervalMs) => post<Slot>(url, '/go', { key, intervalMs }),
    hold: async (key, ms, reason) => void (await post(url, '/hold', { key, ms, reason })),
  };
}

let ownSchedule: PaceSchedule | undefined;
