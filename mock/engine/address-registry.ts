/**
 * Activated TRON addresses: the first order to one claims its activation, done when it processes. Past
 * `capacity()` the oldest records go, except those stored orders name and those the scenario seeded.
 */
import type { components } from '../../src/generated/control.ts';

/** An address's activation as the state file keeps it (spec/control.yaml's StateFile). */
export type AddressRecord = components['schemas']['StateFile']['addresses'][number];

export interface AddressRegistry {
  get(address: string): AddressRecord;
  /** Claims the activation for `orderId`; true when this order is the one to activate. */
  claim(address: string, orderId: string): boolean;
  /** Completes the claim of `orderId` at `at`. */
  activateClaimed(address: string, orderId: string, at: number): void;
  set(address: string, activated: boolean, at: number): AddressRecord;
  /** Every record, oldest first. */
  list(): AddressRecord[];
  readonly size: number;
  /** A stored order names `address`: its record is kept while one does. */
  retain(address: string): void;
  /** A stored order naming `address` is gone. */
  release(address: string): void;
  /** Evicts the oldest evictable records while more than `capacity()` are kept. */
  trim(): void;
}

/**
 * Creates a registry, optionally seeded with addresses that are already activated.
 *
 * @example
 *   const registry = createAddressRegistry(['TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3'], 0);
 *   registry.get('TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3').activated; // true
 */
export function createAddressRegistry(
  activated: readonly string[],
  at: number,
  saved: readonly AddressRecord[] = [],
  options: {
    /** Most records kept (`maxStoredAddresses`); unbounded when absent. */
    capacity?: () => number;
    /** Addresses never evicted: those the scenario seeds as activated. */
    keep?: readonly string[];
  } = {},
): AddressRegistry {
  const records = new Map<string, AddressRecord>();
  const keep = new Set([...activated, ...(options.keep ?? [])]);
  // How many stored orders name each address.
  const named = new Map<string, number>();
  // The records that may go, oldest first (a Map keeps insertion order).
  const evictable = new Map<string, true>();

  const place = (record: AddressRecord): void => {
    records.set(record.address, record);
    // A write makes the record the newest of those that may go.
    evictable.delete(record.address);
    if (!keep.has(record.address) && !named.has(record.address)) evictable.set(record.address, true);
  };
  // One live iterator, kept from trim to trim, so it never walks deleted entries again.
  let oldest = evictable.keys();
  const trimTo = (limit: number): void => {
    while (records.size > limit) {
      let next = oldest.next();
      if (next.done) {
        oldest = evictable.keys();
        next = oldest.next();
        if (next.done) return;
      }
      evictable.delete(next.value);
      records.delete(next.value);
    }
  };
  /** Makes room for one more record, so that the newest is never the one evicted. */
  const makeRoom = (address: string): void => {
    if (options.capacity && !records.has(address)) trimTo(options.capacity() - 1);
  };

  for (const address of activated) place({ address, activated: true, activatedAt: at });
  for (const record of saved) place({ ...record });

  const registry: AddressRegistry = {
    get: (address) => records.get(address) ?? { address, activated: false },
    claim(address, orderId) {
      const record = records.get(address);
      if (record?.activated || record?.claimedByOrderId) return false;
      makeRoom(address);
      place({ address, activated: false, claimedByOrderId: orderId });
      return true;
    },
    activateClaimed(address, orderId, at) {
      const record = records.get(address);
      if (!record || record.claimedByOrderId !== orderId) return;
      records.set(address, { address, activated: true, activatedAt: at, activatedByOrderId: orderId });
    },
    set(address, isActivated, at) {
      const record: AddressRecord = isActivated
        ? { address, activated: true, activatedAt: at }
        : { address, activated: false };
      makeRoom(address);
      place(record);
      return record;
    },
    list: () => [...records.values()],
    get size() {
      return records.size;
    },
    retain(address) {
      named.set(address, (named.get(address) ?? 0) + 1);
      evictable.delete(address);
    },
    release(address) {
      const count = named.get(address);
      if (count === undefined) return;
      if (count > 1) {
        named.set(address, count - 1);
        return;
      }
      named.delete(address);
      if (records.has(address) && !keep.has(address)) evictable.set(address, true);
      registry.trim();
    },
    trim() {
      if (options.capacity) trimTo(options.capacity());
    },
  };
  return registry;
}
