import { describe, expect, it } from 'vitest';
import { createAddressRegistry } from './address-registry.ts';

const A = 'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3';
const B = 'T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb';

describe('address registry', () => {
  it('lets exactly one order claim an unactivated address, and only that order activate it', () => {
    const registry = createAddressRegistry([], 0);
    expect(registry.claim(A, 'order-1')).toBe(true);
    expect(registry.claim(A, 'order-2')).toBe(false);
    registry.activateClaimed(A, 'order-2', 50);
    expect(registry.get(A)).toEqual({ address: A, activated: false, claimedByOrderId: 'order-1' });
    registry.activateClaimed(A, 'order-1', 100);
    expect(registry.get(A)).toEqual({
      address: A,
      activated: true,
      activatedAt: 100,
      activatedByOrderId: 'order-1',
    });
    expect(registry.claim(A, 'order-3')).toBe(false);
    registry.activateClaimed(A, 'order-1', 200);
    expect(registry.get(A).activatedAt).toBe(100);
  });

  it('starts with the seeded addresses activated and nothing else known', () => {
    const registry = createAddressRegistry([A], 7);
    expect(registry.get(A)).toEqual({ address: A, activated: true, activatedAt: 7 });
    expect(registry.claim(A, 'order-1')).toBe(false);
    expect(registry.get(B)).toEqual({ address: B, activated: false });
    expect(registry.list()).toEqual([{ address: A, activated: true, activatedAt: 7 }]);
  });

  it('sets an address activated or not by hand, dropping any claim', () => {
    const registry = createAddressRegistry([A], 0);
    expect(registry.set(A, false, 10)).toEqual({ address: A, activated: false });
    expect(registry.claim(A, 'order-1')).toBe(true);
    expect(registry.set(B, true, 20)).toEqual({ address: B, activated: true, activatedAt: 20 });
    expect(registry.claim(B, 'order-2')).toBe(false);
    expect(registry.list().map((r) => r.address)).toEqual([A, B]);
  });
});
