/**
 * Injected faults: latency, error statuses, broken bodies and dropped connections for
 * the simulated API. Whether a probabilistic fault hits is drawn from a seeded source
 * of its own, so a run repeats exactly and the engine's ids do not shift.
 */
import type { components } from '../../src/generated/control.ts';
import type { RandomSource } from '../engine/random-source.ts';

export type FaultRequest = components['schemas']['FaultRequest'];
export type Fault = components['schemas']['Fault'];

export interface FaultHit {
  fault: Fault;
  /** Milliseconds to wait before answering. */
  latencyMs: number;
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
        const low = fault.latencyMs ?? 0;
        const high = Math.max(low, fault.latencyMaxMs ?? low);
        return { fault, latencyMs: high > low ? random.int(low, high) : low };
      }
      return undefined;
    },
  };
}
