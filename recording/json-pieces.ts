/**
 * JSON text in pieces of about a megabyte, for a value too large to serialise in one go
 * without stalling the event loop: JSON.stringify of a 100 MB answer holds the loop for a
 * second, while its pieces, written one per turn, hold it for milliseconds each. The text
 * joined is what JSON.stringify gives for plain JSON data.
 */

/** How many characters a piece holds, about. */
export const PIECE_CHARS = 1024 * 1024;

/**
 * The JSON text of `value` in pieces of about `size` characters each.
 *
 * @example
 *   [...jsonPieces({ a: 'x'.repeat(3e6) })].join('') === JSON.stringify({ a: 'x'.repeat(3e6) }); // true
 */
export function* jsonPieces(value: unknown, size = PIECE_CHARS): Generator<string> {
  let buffer = '';
  // Gathers small texts into pieces; a piece is yielded once it is large enough.
  function* emit(text: string): Generator<string> {
    buffer += text;
    if (buffer.length >= size) {
      yield buffer;
      buffer = '';
    }
  }
  function* walk(item: unknown): Generator<string> {
    if (typeof item === 'string' && item.length > size) {
      yield* emit('"');
      for (let start = 0; start < item.length;) {
        let end = Math.min(start + size, item.length);
        // A surrogate pair is never split: each half alone would be escaped as \udxxx.
        const last = item.charCodeAt(end - 1);
        if (end < item.length && last >= 0xd800 && last <= 0xdbff) end++;
        yield* emit(JSON.stringify(item.slice(start, end)).slice(1, -1));
        start = end;
      }
      yield* emit('"');
    } else if (Array.isArray(item)) {
      yield* emit('[');
      for (let i = 0; i < item.length; i++) {
        if (i > 0) yield* emit(',');
        const element: unknown = item[i];
        // As JSON.stringify: what JSON cannot hold is null in an array.
        if (element === undefined || typeof element === 'function' || typeof element === 'symbol')
          yield* emit('null');
        else yield* walk(element);
      }
      yield* emit(']');
    } else if (typeof item === 'object' && item !== null) {
      yield* emit('{');
      let first = true;
      for (const [name, field] of Object.entries(item)) {
        // As JSON.stringify: what JSON cannot hold is left out of an object.
        if (field === undefined || typeof field === 'function' || typeof field === 'symbol') continue;
        yield* emit(`${first ? '' : ','}${JSON.stringify(name)}:`);
        first = false;
        yield* walk(field);
      }
      yield* emit('}');
    } else yield* emit(JSON.stringify(item) ?? 'null');
  }
  yield* walk(value);
  if (buffer !== '') yield buffer;
}
