/** The faults in force and which one hits a request, drawn from a seeded source of their own. */
import type { components } from '../../src/generated/control.ts';
import type { RandomSource } from '../engine/random-source.ts';

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
