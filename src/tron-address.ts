/** TRON addresses: Base58Check (bs58, and SHA-256 twice) of a 21-byte payload whose first byte is 0x41. */
import { hash } from 'node:crypto';
import bs58 from 'bs58';

/** First byte of every TRON main-net address payload. */
export const TRON_ADDRESS_PREFIX = 0x41;

const PAYLOAD_BYTES = 21;
const CHECKSUM_BYTES = 4;

function checksum(payload: Uint8Array): Buffer {
  return hash('sha256', hash('sha256', payload, 'buffer'), 'buffer');
}

/**
 * Tells whether `value` is a well-formed TRON address (checksum and prefix).
 *
 * @example
 *   isTronAddress('TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3'); // true
 *   isTronAddress('TT3D8Br4YEkJtvS1DNSj77ymip51BemoP4'); // false (checksum)
 */
export function isTronAddress(value: string): boolean {
  if (value.length !== 34 || value.charCodeAt(0) !== 84 /* T */) return false;
  const bytes = bs58.decodeUnsafe(value);
  if (!bytes || bytes.length !== PAYLOAD_BYTES + CHECKSUM_BYTES || bytes[0] !== TRON_ADDRESS_PREFIX)
    return false;
  const sum = checksum(bytes.subarray(0, PAYLOAD_BYTES));
  for (let i = 0; i < CHECKSUM_BYTES; i++) if (sum[i] !== bytes[PAYLOAD_BYTES + i]) return false;
  return true;
}

/**
 * Encodes a 20-byte account id as a TRON address.
 *
 * @example
 *   encodeTronAddress(new Uint8Array(20)); // 'T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb'
 */
export function encodeTronAddress(accountId: Uint8Array): string {
  if (accountId.length !== 20)
    throw new RangeError(`A TRON account id is 20 bytes; got ${accountId.length}.`);
  const bytes = new Uint8Array(PAYLOAD_BYTES + CHECKSUM_BYTES);
  bytes[0] = TRON_ADDRESS_PREFIX;
  bytes.set(accountId, 1);
  bytes.set(checksum(bytes.subarray(0, PAYLOAD_BYTES)).subarray(0, CHECKSUM_BYTES), PAYLOAD_BYTES);
  return bs58.encode(bytes);
}

/**
 * A TRON address in java-tron's hex form: the 21-byte payload, `41` first, 42 hex digits.
 *
 * @example
 *   tronAddressToHex('TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3'); // '41bb3be79f2301ec17b64cccb8cedca70ea27269fa'
 */
export function tronAddressToHex(address: string): string {
  return Buffer.from(bs58.decode(address).subarray(0, PAYLOAD_BYTES)).toString('hex');
}

/**
 * The Base58Check address of java-tron's hex form, or undefined when `hex` is not 21 bytes starting 0x41.
 *
 * @example
 *   tronAddressFromHex('41bb3be79f2301ec17b64cccb8cedca70ea27269fa'); // 'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3'
 */
export function tronAddressFromHex(hex: string): string | undefined {
  if (!/^41[0-9a-fA-F]{40}$/.test(hex)) return undefined;
  return encodeTronAddress(Uint8Array.from(Buffer.from(hex.slice(2), 'hex')));
}
