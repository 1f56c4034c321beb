/**
 * Against a service that is not a simulator, orders cost real TRX. Each order takes a
 * slot; slots are files created exclusively in the run's directory, so the limit holds
 * across the run's parallel workers.
 */
import { mkdirSync, openSync, closeSync } from 'node:fs';
import path from 'node:path';

/**
 * Claims one of `max` order slots; false when all are taken.
 *
 * @example
 *   if (!claimOrderSlot(runDir, 1)) skip('CONTRACT_MAX_ORDERS reached');
 */
export function claimOrderSlot(runDir: string, max: number): boolean {
  mkdirSync(runDir, { recursive: true });
  for (let slot = 1; slot <= max; slot++) {
    try {
      closeSync(openSync(path.join(runDir, `order-slot-${slot}`), 'wx'));
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return false;
}
