/**
 * The string formats the kit's validators know: ajv-formats' full set and the kit's own
 * `tron-address`. The precompiled validators of src/generated/validators.ts call the formats
 * object given to their factory (they name it `specFormats`), so it must hold the very
 * definitions the validators were compiled with.
 */
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { isTronAddress } from '../tron-address.ts';

/** The shape of a formats object the validators accept. */
export type SpecFormats = typeof fullFormats & {
  readonly 'tron-address': { readonly type: 'string'; readonly validate: (address: string) => boolean };
};

export const specFormats: SpecFormats = {
  ...fullFormats,
  'tron-address': { type: 'string', validate: isTronAddress },
};
