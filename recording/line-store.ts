/**
 * Texts kept as UTF-8 in large buffers outside the JavaScript heap, each found again by its
 * number: how a replay keeps a million recorded lines. As strings they would be a million
 * objects that the garbage collector copies when they survive their first collections and
 * marks at every full one; here they are a few 16 MB buffers it never looks into.
 */

/** The size of one buffer; a longer text gets a buffer of its own. */
const BLOCK_BYTES = 16 * 1024 * 1024;

/** An append-only list of texts. */
export interface LineStore {
  /** Keeps `text` and gives its number (0, 1, 2, …). */
  push(text: string): number;
  /** The text kept as number `index`. */
  at(index: number): string;
  readonly length: number;
}

/**
 * Creates an empty store.
 *
 * @example
 *   const lines = createLineStore();
 *   const n = lines.push('{"case":"a"}');
 *   lines.at(n); // '{"case":"a"}'
 */
export function createLineStore(): LineStore {
  const blocks: Buffer[] = [];
  let block = Buffer.allocUnsafeSlow(0);
  let used = 0;
  // Per text: its block, and where in it it starts and ends; grown by doubling.
  let where = new Float64Array(3 * 1024);
  let length = 0;
  return {
    push(text) {
      const bytes = Buffer.byteLength(text);
      if (used + bytes > block.length) {
        block = Buffer.allocUnsafeSlow(Math.max(BLOCK_BYTES, bytes));
        blocks.push(block);
        used = 0;
      }
      block.write(text, used, 'utf8');
      if (3 * (length + 1) > where.length) {
        const grown = new Float64Array(where.length * 2);
        grown.set(where);
        where = grown;
      }
      where[3 * length] = blocks.length - 1;
      where[3 * length + 1] = used;
      where[3 * length + 2] = used + bytes;
      used += bytes;
      return length++;
    },
    at(index) {
      if (index < 0 || index >= length) throw new RangeError(`no line ${index} (${length} kept)`);
      return blocks[where[3 * index]!]!.toString('utf8', where[3 * index + 1], where[3 * index + 2]);
    },
    get length() {
      return length;
    },
  };
}
