/**
 * The string formats the kit's validators know: ajv-formats' full set and the kit's own
 * `tron-address`. The precompiled validators of src/generated/validators.ts are built
 * from a formats object given to their factory (they name it `specFormats`), so it must
 * hold the very definitions that the validators were compiled with: this one, or one
 * made by createSpecFormats().
 */
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { createTronAddressCheck, isTronAddress } from '../tron-address.ts';

/** The shape of a formats object the validators accept. */
export type SpecFormats = typeof fullFormats & {
  readonly 'tron-address': { readonly type: 'string'; readonly validate: (address: string) => boolean };
};

export const specFormats: SpecFormats = {
  ...fullFormats,
  'tron-address': { type: 'string', validate: isTronAddress },
};

/**
 * The same formats with a `tron-address` check of their own that remembers the valid
 * addresses it has seen (see createTronAddressCheck): one per simulator, so that a
 * client ordering for the same address pays for its checksum once, and two simulators
 * share nothing.
 *
 * @example
 *   const validators = createValidators(loadSpec('api'), { coerceTypes: true, formats: createSpecFormats() });
 */
export function createSpecFormats(): SpecFormats {
  return { ...specFormats, 'tron-address': { type: 'string', validate: createTronAddressCheck() } };
}
