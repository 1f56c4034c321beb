/**
 * A consumer's own code, as an example of what to test with the simulator: buy energy
 * for an address and wait until it has arrived. It imports the kit by its package name, as
 * a user's code does; in this repository tsconfig.json's `paths` (which vitest.config.ts
 * reads too) point those names at the sources, so no build is needed first.
 */
import { EnergyRentalError, type EnergyRentalClient } from 'energy-rental-kit/client';
import type { Period } from 'energy-rental-kit/models';

export interface Purchase {
  orderId: string;
  txId: string;
  paid: string;
  currency: string;
}

/** Buys `energy` for `address`, idempotently per `reference`, and resolves once delivered. */
export async function buyEnergy(
  client: EnergyRentalClient,
  request: { address: string; energy: number; period: Period; reference: string },
  onStatus?: (status: string) => void,
): Promise<Purchase> {
  const created = await client.createOrder({
    pledgeAddress: request.address,
    rentalCount: request.energy,
    period: request.period,
    outOrderNo: request.reference,
  });
  const order = await client.waitForOrder(
    { orderId: created.id },
    { timeoutMs: 60_000, intervalMs: 1_000, ...(onStatus ? { onStatus } : {}) },
  );
  if (order.status !== 'COMPLETED') {
    throw new Error(
      `Energy order ${order.orderId} for ${request.address} ended ${order.status}; the payment is refunded.`,
    );
  }
  return { orderId: order.orderId, txId: order.txId, paid: order.amount, currency: order.currency };
}

export { EnergyRentalError };
