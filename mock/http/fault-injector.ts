/**
 * Injected faults: latency (fixed, a range, or lognormal), error statuses, broken bodies,
 * a slow drip, and dropped, reset or garbled connections for the simulated API; the
 * injector that keeps them and the pipeline's step that carries them out. Whether a
 * probabilistic fault hits is drawn from a seeded source of its own, so a run repeats
 * exactly and the engine's ids do not shift.
 */
import type { Socket } from 'node:net';
import type { MiddlewareHandler } from 'hono';
import type { components } from '../../src/generated/control.ts';
import type { Engine } from '../engine/index.ts';
import type { RandomSource } from '../engine/random-source.ts';
import type { SimContext, SimEnv } from './context.ts';
import { envelope } from './envelope.ts';
import { DROPPED_HEADER, DROPPED_HOW_HEADER } from './exchange.ts';

export type FaultRequest = components['schemas']['FaultRequest'];
export type Fault = components['schemas']['Fault'];

export interface FaultHit {
  fault: Fault;
  /** Milliseconds to wait before answering. */
  latencyMs: number;
  /** For `response: garbage`: the bytes sent instead of an answer, from the seeded source. */
  garbage?: Uint8Array | undefined;
}

/** The longest delay a fault makes, ms (FaultSpec's latency maximum). */
const MAX_LATENCY_MS = 60_000;
/** Bytes `response: garbage` sends when the fault does not say (FaultSpec's garbageBytes). */
export const GARBAGE_BYTES = 64;
/** The spread of a lognormal delay when the fault does not say (FaultSpec's latencySigma). */
const LATENCY_SIGMA = 0.5;

/**
 * A lognormal delay: `median × e^(sigma × z)`, z a standard normal from two uniform draws
 * (Box–Muller), rounded and capped at a minute; most delays come near the median, a few
 * far later, as on a real network.
 *
 * @example
 *   lognormalMs(200, 0, random); // 200
 */
export function lognormalMs(median: number, sigma: number, random: RandomSource): number {
  // 1 - float() is in (0, 1]: the logarithm stays finite.
  const u = 1 - random.float();
  const v = random.float();
  const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  return Math.min(MAX_LATENCY_MS, Math.round(median * Math.exp(sigma * z)));
}

export interface FaultInjector {
  add(input: FaultRequest): Fault;
  list(): Fault[];
  remove(id: string): boolean;
  clear(): void;
  /** True while any fault is in force. */
  readonly active: boolean;
  /** Clears every fault and restarts the random source, as on a fresh simulator. */
  reset(): void;
  /** The first fault that hits this request of `operation`, its use counted; undefined when none. */
  take(operation: string): FaultHit | undefined;
}

/**
 * Creates an empty injector.
 *
 * @example
 *   const faults = createFaultInjector(() => createRandomSource(7));
 *   faults.add({ operation: 'createOrder', response: 'status', status: 503, times: 1 });
 */
export function createFaultInjector(newRandom: () => RandomSource): FaultInjector {
  let faults: Fault[] = [];
  let nextId = 1;
  let random = newRandom();
  return {
    add(input) {
      const fault: Fault = { id: `fault-${nextId++}`, used: 0, ...input };
      faults.push(fault);
      return fault;
    },
    list: () => faults.map((f) => ({ ...f })),
    remove(id) {
      const before = faults.length;
      faults = faults.filter((f) => f.id !== id);
      return faults.length !== before;
    },
    clear() {
      faults = [];
    },
    get active() {
      return faults.length > 0;
    },
    reset() {
      faults = [];
      nextId = 1;
      random = newRandom();
    },
    take(operation) {
      if (faults.length === 0) return undefined;
      for (const fault of faults) {
        if (fault.operation !== '*' && fault.operation !== operation) continue;
        if (fault.probability !== undefined && fault.probability < 1 && !(random.float() < fault.probability))
          continue;
        fault.used++;
        if (fault.times !== undefined && fault.used >= fault.times)
          faults = faults.filter((f) => f !== fault);
        const garbage =
          fault.response === 'garbage' ? random.bytes(fault.garbageBytes ?? GARBAGE_BYTES) : undefined;
        if (fault.latencyMedianMs !== undefined)
          return {
            fault,
            latencyMs: lognormalMs(fault.latencyMedianMs, fault.latencySigma ?? LATENCY_SIGMA, random),
            garbage,
          };
        const low = fault.latencyMs ?? 0;
        const high = Math.max(low, fault.latencyMaxMs ?? low);
        return { fault, latencyMs: high > low ? random.int(low, high) : low, garbage };
      }
      return undefined;
    },
  };
}

/** How a drip fault sends a body when it does not say (FaultSpec's dripChunks and dripMs). */
const DRIP_CHUNKS = 10;
const DRIP_MS = 1000;

const MALFORMED_BODY =
  '{"code":0,"msg":"Get price successfully","data":{"sun":65,,}<!-- injected fault: not JSON';
const JSON_TYPE = { 'content-type': 'application/json' };

/**
 * The faults as a step of the API's, after routing (a fault targets an operation): the
 * first fault that hits the request waits its latency, then answers in its place (a status,
 * a malformed body), cuts the connection (dropped, reset, random bytes: over a socket the
 * socket, in process a 599 that `sim.fetch` rejects on), or alters what the later steps
 * answer (truncated, dripped: whatever it is, a rejection included for a drip).
 *
 * @example
 *   app.use(injectFaults(faults, engine));
 */
export function injectFaults(faults: FaultInjector, engine: Engine): MiddlewareHandler<SimEnv> {
  return async (c, next) => {
    const hit = faults.active ? faults.take(c.get('operation') ?? '') : undefined;
    if (hit === undefined) return next();
    const { fault } = hit;
    c.set('fault', fault.id);
    c.set('faultKind', faultKindOf(fault));
    if (hit.latencyMs > 0) await new Promise<void>((resolve) => setTimeout(resolve, hit.latencyMs));
    switch (fault.response) {
      case 'status': {
        const status = fault.status ?? 503;
        const headers: Record<string, string> = {};
        const retryAfter =
          fault.withRetryAfter === false ? undefined : (fault.retryAfter ?? (status === 429 ? 1 : undefined));
        if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
        if (fault.withBody === false) return new Response(null, { status, headers });
        const body = envelope(
          engine,
          status === 429 ? 10003 : 50000,
          `Injected fault ${fault.id}: HTTP ${status}. Remove it with DELETE /_sim/faults/${fault.id}.`,
          null,
        );
        c.set('response', body);
        return new Response(JSON.stringify(body), { status, headers: { ...JSON_TYPE, ...headers } });
      }
      case 'malformed':
        c.set('response', MALFORMED_BODY);
        return new Response(MALFORMED_BODY, { status: 200, headers: JSON_TYPE });
      case 'drop':
        return cut(c, fault.id, 'close');
      case 'reset':
        return cut(c, fault.id, 'reset');
      case 'garbage': {
        const bytes = hit.garbage ?? new Uint8Array(0);
        c.set(
          'response',
          `[${bytes.byteLength} random bytes instead of an answer, then the connection closed]`,
        );
        return cut(c, fault.id, bytes);
      }
      case 'drip':
        await next();
        if (c.res.body !== null)
          c.res = new Response(
            dripStream(
              new Uint8Array(await c.res.arrayBuffer()),
              fault.dripChunks ?? DRIP_CHUNKS,
              fault.dripMs ?? DRIP_MS,
            ),
            c.res,
          );
        return;
      case 'truncated': {
        await next();
        // Only what the source answered is cut; a rejection before it goes whole.
        if (c.error !== undefined || c.res.body === null) return;
        const text = await c.res.text();
        const half = text.slice(0, Math.floor(text.length / 2));
        c.set('response', half);
        c.res = new Response(half, c.res);
        return;
      }
      default:
        return next();
    }
  };
}

/**
 * The response of a cut connection. Over a socket the socket is cut as the fault says (a
 * reset sends a TCP RST; random bytes go raw, with no status line, before the close) and
 * nothing more is written to it; in process, a 599 whose headers make `sim.fetch` reject
 * as a real fetch does.
 */
async function cut(c: SimContext, fault: string, how: 'close' | 'reset' | Uint8Array): Promise<Response> {
  const socket: Socket | undefined = c.env?.incoming?.socket;
  if (socket) {
    if (how === 'reset') socket.resetAndDestroy();
    else if (how instanceof Uint8Array && how.byteLength > 0)
      await new Promise<void>((resolve) => socket.end(how, () => resolve()));
    socket.destroy();
  }
  const named = how instanceof Uint8Array ? 'garbage' : how;
  return new Response(null, {
    status: 599,
    headers: { [DROPPED_HEADER]: fault, [DROPPED_HOW_HEADER]: named },
  });
}

/**
 * A body cut into at most `chunks` pieces of near-equal size, with the wait before each:
 * the first goes at once, the last `ms` after it.
 *
 * @example
 *   dripPlan(new Uint8Array(10), 5, 1000); // 5 pieces of 2 bytes, 0 / 250 / 250 / 250 / 250 ms apart
 */
export function dripPlan(
  body: Uint8Array,
  chunks: number,
  ms: number,
): Array<{ waitMs: number; bytes: Uint8Array }> {
  const count = Math.max(1, Math.min(chunks, body.byteLength));
  const gap = count > 1 ? ms / (count - 1) : 0;
  const plan: Array<{ waitMs: number; bytes: Uint8Array }> = [];
  for (let i = 0; i < count; i++) {
    const from = Math.floor((i * body.byteLength) / count);
    const to = Math.floor(((i + 1) * body.byteLength) / count);
    plan.push({ waitMs: i === 0 ? 0 : gap, bytes: body.subarray(from, to) });
  }
  return plan;
}

/** A stream that drips a body as its plan says; cancelling it (a client gone) stops the timers. */
function dripStream(body: Uint8Array, chunks: number, ms: number): ReadableStream<Uint8Array> {
  const plan = dripPlan(body, chunks, ms);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let next = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const step = plan[next++];
      if (!step) return controller.close();
      return new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          controller.enqueue(step.bytes);
          if (next >= plan.length) controller.close();
          resolve();
        }, step.waitMs);
      });
    },
    cancel() {
      clearTimeout(timer);
    },
  });
}

/**
 * What a fault does, as FaultSpec's kinds name it: its status for `response: status`, its
 * response otherwise, `latency` for latency alone.
 *
 * @example
 *   faultKindOf({ operation: '*', response: 'status', status: 429 }); // '429'
 */
export function faultKindOf(fault: { response?: string | undefined; status?: number | undefined }): string {
  if (fault.response === 'status') return String(fault.status ?? 503);
  return fault.response ?? 'latency';
}
