/**
 * The registry of activated TRON addresses. The first order to an address that is
 * not activated claims its activation at creation and activates it when processing
 * starts, so an address is activated exactly once however many orders race for it.
 */
export interface AddressRecord {
  address: string;
  activated: boolean;
  activatedAt?: number;
  activatedByOrderId?: string;
  /** The order that claimed the activation and has not yet processed. */
  claimedByOrderId?: string;
}

export interface AddressRegistry {
  get(address: string): AddressRecord;
  /** Claims the activation for `orderId`; true when this order is the one to activate. */
  claim(address: string, orderId: string): boolean;
  /** Completes the claim of `orderId` at `at`. */
  activateClaimed(address: string, orderId: string, at: number): void;
  set(address: string, activated: boolean, at: number): AddressRecord;
  list(): AddressRecord[];
}

/**
 * Creates a registry, optionally seeded with addresses that are already activated.
 *
 * @example
 *   const registry = createAddressRegistry(['TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3'], 0);
 *   registry.get('TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3').activated; // true
 */
export function createAddressRegistry(activated: readonly string[], at: number, saved: readonly AddressRecord[] = []): AddressRegistry {
  const records = new Map<string, AddressRecord>();
  for (const address of activated) records.set(address, { address, activated: true, activatedAt: at });
  for (const record of saved) records.set(record.address, { ...record });
  return {
    get: (address) => records.get(address) ?? { address, activated: false },
    claim(address, orderId) {
      const record = records.get(address);
      if (record?.activated || record?.claimedByOrderId) return false;
      records.set(address, { address, activated: false, claimedByOrderId: orderId });
      return true;
    },
    activateClaimed(address, orderId, at) {
      const record = records.get(address);
      if (!record || record.claimedByOrderId !== orderId) return;
      records.set(address, { address, activated: true, activatedAt: at, activatedByOrderId: orderId });
    },
    set(address, isActivated, at) {
      const record: AddressRecord = isActivated ? { address, activated: true, activatedAt: at } : { address, activated: false };
      records.set(address, record);
      return record;
    },
    list: () => [...records.values()],
  };
}
