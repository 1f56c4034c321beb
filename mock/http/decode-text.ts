/** One decoder for every body: decoding keeps no state between calls. */
const UTF8 = new TextDecoder();

/**
 * UTF-8 text of bytes, a malformed sequence replaced, as TextDecoder does.
 *
 * @example
 *   decodeText(new Uint8Array([0x6f, 0x6b])); // 'ok'
 */
export function decodeText(bytes: Uint8Array): string {
  return UTF8.decode(bytes);
}
