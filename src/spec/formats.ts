/**
 * The string formats the kit's validators know: ajv-formats' full set and the kit's own
 * `tron-address`. One object, because the precompiled validators of
 * src/generated/validators.ts refer to it by name (`specFormats["tron-address"]`), so
 * it must hold the very definitions that the validators were compiled with.
 */
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { isTronAddress } from '../tron-address.ts';

export const specFormats = {
  ...fullFormats,
  'tron-address': { type: 'string', validate: isTronAddress },
} as const;
