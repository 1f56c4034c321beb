/**
 * The one pace of a contract run (docs/politeness.md), served to every worker by vitest's main process;
 * a request goes only a whole interval after the last that went, however late a timer fires.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Why a request waits: the pace, rate-limit headers at 0, a 429's Retry-After, backoff after a 429 without one. */
export const WAIT_REASONS = ['pace', 'rateLimitHeaders', 'retryAfter', 'backoff'] as const;
export type WaitReason = (typeof WAIT_REASONS)[number];

/** A granted slot: how long to wait before sending, and why. */
export interface Slot {
  waitMs: number;
  reason: WaitReason;
}

/** What workers ask of the run's pace, per key (one key per target). */
export interface PaceSchedule {
  /** Reserves the next slot at one request per `intervalMs` (0: only holds); after a wait, ask `go`. */
  take(key: string, intervalMs: number): Promise<Slot>;
  /** After sleeping for a slot: 0 to go now (noted as the last request), else how much longer. */
  go(key: string, intervalMs: number): Promise<Slot>;
  /** Holds every request of `key` for `ms` from now (a Retry-After, a rate limit at 0). */
  hold(key: string, ms: number, reason: WaitReason): Promise<void>;
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
  type State = { nextFree: number; lastWent: number; heldUntil: number; heldReason: WaitReason };
  const keys = new Map<string, State>();
  const stateOf = (key: string) => {
    if (!keys.has(key)) keys.set(key, { nextFree: 0, lastWent: -Infinity, heldUntil: 0, heldReason: 'pace' });
    return keys.get(key)!;
  };
  // `take` reserves: it starts after the last reserved slot; `go` only checks the last that went.
  const slot = async (key: string, intervalMs: number, reserve: boolean): Promise<Slot> => {
    const state = stateOf(key);
    const at = now();
    const paced = Math.max(at, reserve ? state.nextFree : at, state.lastWent + intervalMs);
    const start = Math.max(paced, state.heldUntil);
    if (reserve && intervalMs > 0) state.nextFree = start + intervalMs;
    if (start === at) state.lastWent = at;
    return { waitMs: start - at, reason: state.heldUntil > paced ? state.heldReason : 'pace' };
  };
  return {
    take: (key, intervalMs) => slot(key, intervalMs, true),
    go: (key, intervalMs) => slot(key, intervalMs, false),
    async hold(key, ms, reason) {
      const state = stateOf(key);
      if (now() + ms > state.heldUntil) Object.assign(state, { heldUntil: now() + ms, heldReason: reason });
    },
  };
}

/**
 * Serves a schedule on 127.0.0.1 (POST /take, /go and /hold with JSON bodies) for the run's workers.
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
      const answer = async () => {
        const { key, intervalMs, ms, reason } = JSON.parse(text) as Record<string, unknown>;
        if (typeof key !== 'string') throw new Error('key must be a string');
        const step = request.url?.slice(1);
        if ((step === 'take' || step === 'go') && typeof intervalMs === 'number')
          return schedule[step](key, intervalMs);
        if (step === 'hold' && typeof ms === 'number' && typeof reason === 'string')
          return schedule.hold(key, ms, reason as WaitReason).then(() => ({}));
        throw new Error(`unknown request ${request.url}`);
      };
      answer().then(
        (body) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body)),
        (error: Error) => response.writeHead(400).end(JSON.stringify({ error: error.message })),
      );
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

/** One JSON call to the run's schedule (node:http, so no stub of globalThis.fetch catches it). */
function post<T>(base: string, pathname: string, body: unknown): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const request = http.request(new URL(pathname, base), { method: 'POST', agent }, (response) => {
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
    });
    request.on('error', (error) =>
      reject(new Error(`the run's pace at ${base} is unreachable: ${error.message}`)),
    );
    request.end(JSON.stringify(body));
  });
}

let ownSchedule: PaceSchedule | undefined;

/**
 * The run's schedule as a worker sees it: the shared one at `url`, else one of this worker's own.
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

/** The contract project's global setup: serves the run's one pace to every worker it starts. */
export default async function setup(): Promise<() => Promise<void>> {
  const server = await servePaceSchedule(createPaceSchedule(() => performance.now()));
  process.env.CONTRACT_PACE_URL = server.url;
  return async () => {
    delete process.env.CONTRACT_PACE_URL;
    await server.close();
  };
}
