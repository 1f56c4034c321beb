/** Order ids as upstream's "OR20250312175009ZQAS3GWA": "OR", the UTC second, eight letters or digits. */
import type { RandomSource } from './random-source.ts';

/**
 * A new order id for the time `now` (Unix ms), its last eight characters one draw of `random.base36(8)`.
 *
 * @example
 *   orderIdAt(Date.UTC(2025, 2, 12, 17, 50, 9), createRandomSource(1)); // 'OR20250312175009' + 8 drawn characters
 */
export function orderIdAt(now: number, random: RandomSource): string {
  const stamp = new Date(now).toISOString().slice(0, 19).replace(/\D/g, '');
  return `OR${stamp}${random.base36(8)}`;
}
