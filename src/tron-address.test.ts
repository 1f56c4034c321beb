import bs58check from 'bs58check';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeTronAddress, isTronAddress, TRON_ADDRESS_PREFIX } from './tron-address.ts';

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** The reference: bs58check's own decoding and checksum, plus the TRON prefix rule. */
function referenceIsTronAddress(value: string): boolean {
  if (value.length !== 34 || !value.startsWith('T')) return false;
  try {
    const payload = bs58check.decode(value);
    return payload.length === 21 && payload[0] === TRON_ADDRESS_PREFIX;
  } catch {
    return false;
  }
}

const accountIds = fc.uint8Array({ minLength: 20, maxLength: 20 });

describe('isTronAddress', () => {
  it('accepts upstream example addresses and refuses broken ones', () => {
    expect(isTronAddress('TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3')).toBe(true);
    expect(isTronAddress('TT3D8Br4YEkJtvS1DNSj77ymip51BemoP4')).toBe(false); // checksum
    expect(isTronAddress('TT3D8Br4YEkJtvS1DNSj77ymip51BemoP')).toBe(false); // length
    expect(isTronAddress('TT3D8Br4YEkJtvS1DNSj77ymip51BemoP0')).toBe(false); // not Base58
    expect(isTronAddress('1BoatSLRHtKNngkdXEeobR76b53LETtpyT')).toBe(false); // a Bitcoin address
  });

  it('agrees with bs58check on every address it encodes and on every one-character change of it', () => {
    fc.assert(
      fc.property(accountIds, fc.nat(33), fc.nat(57), (id, position, digit) => {
        const address = encodeTronAddress(id);
        expect(isTronAddress(address)).toBe(true);
        expect(bs58check.encode(bs58check.decode(address))).toBe(address);
        const changed = address.slice(0, position) + BASE58[digit] + address.slice(position + 1);
        expect(isTronAddress(changed)).toBe(referenceIsTronAddress(changed));
      }),
      { numRuns: 3000 },
    );
  });

  it('agrees with bs58check on arbitrary 34-character strings that start with T', () => {
    fc.assert(
      fc.property(
        fc.string({
          minLength: 33,
          maxLength: 33,
          unit: fc.constantFrom(...BASE58, '0', 'O', 'I', 'l', '+'),
        }),
        (rest) => {
          expect(isTronAddress(`T${rest}`)).toBe(referenceIsTronAddress(`T${rest}`));
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe('encodeTronAddress', () => {
  it('encodes exactly as bs58check does', () => {
    fc.assert(
      fc.property(accountIds, (id) => {
        expect(encodeTronAddress(id)).toBe(bs58check.encode(Uint8Array.from([TRON_ADDRESS_PREFIX, ...id])));
      }),
    );
  });

  it('refuses an account id that is not 20 bytes', () => {
    expect(() => encodeTronAddress(new Uint8Array(19))).toThrow(/20 bytes; got 19/);
  });
});
