/**
 * The formats of the kit's validators: ajv-formats' and `tron-address`. Precompiled validators call the
 * object given to their factory, so it must hold the definitions they were compiled with.
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
