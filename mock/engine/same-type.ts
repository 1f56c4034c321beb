/**
 * Compile-time proof that a type written here is the spec's: `sameType<A, B>(true)`
 * compiles only when A and B are mutually assignable. Used where the engine keeps its own
 * runtime list (PERIODS, ORDER_STATUSES), which a generated type cannot give.
 *
 * @example
 *   sameType<PeriodCode, components['schemas']['Period']>(true);
 */
export type SameType<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** Does nothing at run time; fails to compile when the two types differ. */
export function sameType<A, B>(proof: SameType<A, B>): void {
  void proof;
}
