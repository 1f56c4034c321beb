/**
 * The activation registry is bounded like the orders: past
 * `maxStoredAddresses` the oldest records go, except those of addresses that stored
 * orders name and those the scenario seeds as activated.
 */
import { describe, expect, it } from 'vitest';
import { encodeTronAddress } from '../../src/tron-address.ts';
import { createManualClock } from './manual-clock.ts';
import { createAddressRegistry } from './address-registry.ts';
import { createEngine, type Engine } from './index.ts';

const SEEDED = 'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3';

/** The n-th of many distinct valid TRON addresses. */
function address(n: number): string {
  const id = new Uint8Array(20);
  new DataView(id.buffer).setUint32(16, n + 1);
  return encodeTronAddress(id);
}

function engineWith(settings: {
  maxStoredAddresses: number;
  maxStoredOrders: number;
  timing?: 'instant' | 'realistic';
}): Engine {
  return createEngine({
    clock: createManualClock(),
    seed: 7,
    scenario: {
      settings: {
        timing: settings.timing ?? 'instant',
        maxStoredAddresses: settings.maxStoredAddresses,
        maxStoredOrders: settings.maxStoredOrders,
      },
      accounts: [{ apiKey: 'bounds-key', trx: 1_000_000_000_000 }],
      activatedAddresses: [SEEDED],
    },
  });
}

function order(engine: Engine, n: number) {
  return engine.createOrder(engine.authenticate('bounds-key')!, {
    pledgeAddress: address(n),
    rentalCount: 64_000,
    period: '10min',
  }).order;
}

describe('the activation registry bound', () => {
  it('keeps at most maxStoredAddresses records after orders to many distinct addresses', () => {
    const engine = engineWith({ maxStoredAddresses: 50, maxStoredOrders: 20 });
    for (let n = 0; n < 1000; n++) order(engine, n);
    expect(engine.addresses().length).toBeLessThanOrEqual(50);
    // The newest are kept, the oldest gone.
    expect(engine.address(address(999)).activated).toBe(true);
    expect(engine.address(address(0))).toEqual({ address: address(0), activated: false });
    expect(engine.checkInvariants()).toEqual([]);
  });

  it('keeps the record of every address a stored order names, whatever the bound', () => {
    const engine = engineWith({ maxStoredAddresses: 5, maxStoredOrders: 1000, timing: 'realistic' });
    const orders = Array.from({ length: 40 }, (_, n) => order(engine, n));
    // All open: every claim is kept (and the seeded address), so each order still activates its address.
    expect(engine.addresses().length).toBe(41);
    engine.clock.now();
    (engine.clock as ReturnType<typeof createManualClock>).advance(10_000);
    for (const [n, o] of orders.entries())
      expect(engine.address(address(n))).toMatchObject({ activated: true, activatedByOrderId: o.id });
  });

  it('never evicts the addresses the scenario seeds as activated', () => {
    const engine = engineWith({ maxStoredAddresses: 1, maxStoredOrders: 1 });
    for (let n = 0; n < 100; n++) order(engine, n);
    expect(engine.address(SEEDED).activated).toBe(true);
    expect(engine.addresses().length).toBeLessThanOrEqual(2);
  });

  it('activates an evicted address again, as a new one', () => {
    const engine = engineWith({ maxStoredAddresses: 3, maxStoredOrders: 1 });
    expect(order(engine, 0).activates).toBe(true);
    for (let n = 1; n < 10; n++) order(engine, n);
    expect(engine.address(address(0)).activated).toBe(false);
    expect(order(engine, 0).activates).toBe(true);
  });

  it('trims at once when maxStoredAddresses is lowered', () => {
    const engine = engineWith({ maxStoredAddresses: 100, maxStoredOrders: 5 });
    for (let n = 0; n < 60; n++) order(engine, n);
    expect(engine.addresses().length).toBe(61);
    engine.updateSettings({ maxStoredAddresses: 10 });
    expect(engine.addresses().length).toBeLessThanOrEqual(10);
  });

  it('bounds the registry of a restored state, keeping the addresses of its orders', () => {
    const big = engineWith({ maxStoredAddresses: 1000, maxStoredOrders: 10 });
    for (let n = 0; n < 200; n++) order(big, n);
    const saved = big.snapshot();
    saved.settings.maxStoredAddresses = 20;
    const restored = createEngine({
      clock: createManualClock(saved.savedAt),
      seed: 7,
      scenario: { activatedAddresses: [SEEDED] },
      restore: saved,
    });
    expect(restored.addresses().length).toBeLessThanOrEqual(20);
    for (const o of saved.orders) expect(restored.address(o.pledgeAddress).activated).toBe(true);
    expect(restored.address(SEEDED).activated).toBe(true);
  });

  it('restores a state saved before the bound existed with the default bound', () => {
    const saved = engineWith({ maxStoredAddresses: 50, maxStoredOrders: 10 }).snapshot();
    delete saved.settings.maxStoredAddresses;
    const restored = createEngine({ clock: createManualClock(saved.savedAt), seed: 7, restore: saved });
    expect(restored.settings().maxStoredAddresses).toBe(100_000);
    expect(restored.snapshot().settings.maxStoredAddresses).toBe(100_000);
  });

  it("refuses a maxStoredAddresses that is not a whole number within the spec's bounds", () => {
    const engine = engineWith({ maxStoredAddresses: 10, maxStoredOrders: 10 });
    expect(() => engine.updateSettings({ maxStoredAddresses: 0 })).toThrow(
      /maxStoredAddresses must be a whole number from 1 to 10000000 \(got 0\)/,
    );
  });

  it('evicts the records in the order they stopped being named by a stored order', () => {
    const registry = createAddressRegistry([], 0, [], { capacity: () => 3 });
    for (const n of [1, 2, 3]) {
      registry.claim(address(n), `o-${n}`);
      registry.retain(address(n));
    }
    registry.set(address(4), true, 0);
    expect(registry.size).toBe(4);
    // address(4) has been unnamed longer than address(1), whose last order just went.
    registry.release(address(1));
    expect(registry.list().map((r) => r.address)).toEqual([address(1), address(2), address(3)]);
    registry.release(address(2));
    registry.set(address(5), true, 0);
    expect(registry.list().map((r) => r.address)).toEqual([address(2), address(3), address(5)]);
  });

  it('evicts the oldest write first through many evictions, an address written again counting as new', () => {
    const registry = createAddressRegistry([], 0, [], { capacity: () => 3 });
    // The addresses the registry should hold, oldest write first.
    let kept: number[] = [];
    const write = (n: number): void => {
      registry.set(address(n), true, 0);
      kept = [...kept.filter((k) => k !== n), n].slice(-3);
    };
    const held = (): string[] => registry.list().map((r) => r.address);
    // Fresh addresses, each pushing the oldest out, with an older one written again now and then.
    for (let n = 1; n <= 200; n++) {
      write(n);
      if (n % 7 === 0) write(n - 2);
      expect(held().sort()).toEqual(kept.map(address).sort());
    }
    // Named addresses fill it past its capacity; once released, the oldest of them goes first.
    for (const n of [300, 301, 302, 303]) {
      registry.claim(address(n), `o-${n}`);
      registry.retain(address(n));
    }
    expect(registry.size).toBe(4);
    for (const n of [300, 301, 302, 303]) registry.release(address(n));
    expect(registry.list().map((r) => r.address)).toEqual([301, 302, 303].map(address));
    registry.set(address(304), true, 0);
    expect(registry.list().map((r) => r.address)).toEqual([302, 303, 304].map(address));
  });
});
