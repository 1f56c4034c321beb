/**
 * TRON addresses: Base58Check of a 21-byte payload whose first byte is 0x41.
 * bs58check does the encoding and the checksum; only the TRON prefix rule is ours.
 */
import bs58check from 'bs58check';

/** First byte of every TRON main-net address payload. */
export const TRON_ADDRESS_PREFIX = 0x41;

/**
 * Tells whether `value` is a well-formed TRON address (checksum and prefix).
 *
 * @example
 *   isTronAddress('TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3'); // true
 *   isTronAddress('TT3D8Br4YEkJtvS1DNSj77ymip51BemoP4'); // false (checksum)
 */
export function isTronAddress(value: string): boolean {
  if (value.length !== 34 || value.charCodeAt(0) !== 84 /* T */) return false;
  try {
    const payload = bs58check.decode(value);
    return payload.length === 21 && payload[0] === TRON_ADDRESS_PREFIX;
  } catch {
    return false;
  }
}

/**
 * Encodes a 20-byte account id as a TRON address.
 *
 * @example
 *   encodeTronAddress(new Uint8Array(20)); // 'T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb'
 */
export function encodeTronAddress(accountId: Uint8Array): string {
  if (accountId.length !== 20) {
    throw new RangeError(`A TRON account id is 20 bytes; got ${accountId.length}.`);
  }
  const payload = new Uint8Array(21);
  payload[0] = TRON_ADDRESS_PREFIX;
  payload.set(accountId, 1);
  return bs58check.encode(payload);
}
