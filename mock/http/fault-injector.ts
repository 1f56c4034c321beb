/**
 * The faults in force, which one hits a request (drawn from a seeded source of their own),
 * and the pipeline's fault step that does what it says.
 */
import type { Socket } from 'node:net';
import type { MiddlewareHandler } from 'hono';
import type { components } from '../../src/generated/control.ts';
import type { Engine } from '../engine/index.ts';
import type { RandomSource } from '../engine/random-source.ts';
import { envelope } from './api-operations.ts';
import type { SimContext, SimEnv } from './context.ts';

export type FaultRequest = components['schemas']['FaultRequest'];
export type Fault = components['schemas']['Fault'];

export interface FaultHit {
  fault: Fault;
  latencyMs: number;
  /** For `response: garbage`: the bytes sent instead of an answer, from the seeded source. */
  garbage?: Uint8Array | undefined;
}

/** The longest delay a fault makes, ms (FaultSpec's latency maximum). */
const MAX_LATENCY_MS = 60_000;
/** Bytes `response: garbage` sends when the fault does not say (FaultSpec's garbageBytes). */
const GARBAGE_BYTES = 64;
/** The spread of a lognormal delay when the fault does not say (FaultSpec's latencySigma). */
const LATENCY_SIGMA = 0.5;

/**
 * A lognormal delay, `median × e^(sigma × z)` (z by Box–Muller), capped at a minute.
 *
 * @example
 *   lognormalMs(200, 0, random); // 200
 */
export function lognormalMs(median: number, sigma: number, random: RandomSource): number {
  const u = 1 - random.float(); // in (0, 1]: the logarithm stays finite
  const v = random.float();
  const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  return Math.min(MAX_LATENCY_MS, Math.round(median * Math.exp(sigma * z)));
}

export interface FaultInjector {
  add(input: FaultRequest): Fault;
  list(): Fault[];
  remove(id: string): boolean;
  clear(): void;
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
      for (const fault of faults) {
        // '*' is the API's four operations; the TRON node's reads are broken by name only.
        const hits = fault.operation === '*' ? operation !== 'tronNode' : fault.operation === operation;
        if (!hits) continue;
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

/** The header (never sent) of an in-process answer a fault cut: how (`close`, `reset`, `garbage`) and the fault's id. */
export const DROPPED_HEADER = 'x-energy-sim-dropped';

/** How a drip fault sends a body when it does not say (FaultSpec's dripChunks and dripMs). */
const DRIP_CHUNKS = 10;
const DRIP_MS = 1000;

const MALFORMED_BODY =
  '{"code":0,"msg":"Get price successfully","data":{"sun":65,,}<!-- injected fault: not JSON';
const JSON_TYPE = { 'content-type': 'application/json' };

/**
 * The fault step, after routing: the first fault hitting `operation` waits its latency, then
 * answers instead, cuts the connection, or alters the later steps' answer.
 *
 * @example
 *   node.use(injectFaults(faults, engine, () => 'tronNode'));
 */
export function injectFaults(
  faults: FaultInjector,
  engine: Engine,
  operation: (c: SimContext) => string = (c) => c.get('operation') ?? '',
): MiddlewareHandler<SimEnv> {
  return (c, next) => {
    const hit = faults.active ? faults.take(operation(c)) : undefined;
    return hit === undefined ? next() : deliver(c, next, hit, engine);
  };
}

/** What a fault that hit does, once its latency has passed. */
async function deliver(
  c: SimContext,
  next: () => Promise<void>,
  hit: FaultHit,
  engine: Engine,
): Promise<Response | undefined> {
  const { fault } = hit;
  c.set('fault', fault.id);
  // Its kind as FaultSpec names it: its status, its response, or `latency`.
  c.set(
    'faultKind',
    fault.response === 'status' ? String(fault.status ?? 503) : (fault.response ?? 'latency'),
  );
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
    case 'reset':
      return cut(c, fault.id, fault.response === 'drop' ? 'close' : 'reset');
    case 'garbage': {
      const bytes = hit.garbage ?? new Uint8Array(0);
      const note = `[${bytes.byteLength} random bytes instead of an answer, then the connection closed]`;
      c.set('response', note);
      return cut(c, fault.id, bytes);
    }
    case 'drip':
      await next();
      if (c.res.body !== null) {
        const body = new Uint8Array(await c.res.arrayBuffer());
        c.res = new Response(dripStream(body, fault), c.res);
      }
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
      await next();
      return undefined;
  }
}

/** A cut connection: over a socket, cut as the fault says; in process, a 599 that makes `sim.fetch` reject. */
async function cut(c: SimContext, fault: string, how: 'close' | 'reset' | Uint8Array): Promise<Response> {
  const socket: Socket | undefined = c.env?.incoming?.socket;
  if (socket) {
    if (how === 'reset') socket.resetAndDestroy();
    else if (how instanceof Uint8Array && how.byteLength > 0)
      await new Promise<void>((resolve) => socket.end(how, () => resolve()));
    socket.destroy();
  }
  const named = how instanceof Uint8Array ? 'garbage' : how;
  return new Response(null, { status: 599, headers: { [DROPPED_HEADER]: `${named} ${fault}` } });
}

/**
 * A stream of a body in at most `dripChunks` near-equal pieces, the first at once, the last
 * `dripMs` after it; cancelling it (a client gone) stops the timers.
 */
function dripStream(body: Uint8Array, fault: Fault): ReadableStream<Uint8Array> {
  const count = Math.max(1, Math.min(fault.dripChunks ?? DRIP_CHUNKS, body.byteLength));
  const ms = fault.dripMs ?? DRIP_MS;
  const piece = (i: number): Uint8Array =>
    body.subarray(Math.floor((i * body.byteLength) / count), Math.floor(((i + 1) * body.byteLength) / count));
  const wait = (i: number): number => (i === 0 ? 0 : ms / (count - 1));
  let timer: ReturnType<typeof setTimeout> | undefined;
  let next = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next >= count) return controller.close();
      const i = next++;
      return new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          controller.enqueue(piece(i));
          if (next >= count) controller.close();
          resolve();
        }, wait(i));
      });
    },
    cancel() {
      clearTimeout(timer);
    },
  });
}
