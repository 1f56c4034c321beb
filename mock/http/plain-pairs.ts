/**
 * The name=value pairs of a query string or form body, for the Node fast path.
 *
 * Written by hand because it only takes the plain case, where splitting on `&` and `=`
 * is exactly what URLSearchParams decodes: no `%`, no `+`, nothing outside a safe ASCII
 * set (a raw non-ASCII byte is read differently by Node's parser and by the URL the
 * Hono adapter builds). Anything else answers false and goes to Hono, whose
 * `readParams` words every rejection. Splitting cost a tenth of URLSearchParams and its
 * iterator in the profile of a price read.
 */
const PLAIN = /^[\w.~=&-]*$/;

/**
 * Adds the pairs of `text` to `into`; false when `text` is not plain, names a parameter
 * twice with different values (a rejection, which Hono words) or names `__proto__` or
 * another member of `into`'s prototype.
 *
 * @example
 *   const params: Record<string, string> = {};
 *   addPlainPairs('rentalCount=65000&period=1h', params); // true; params.period === '1h'
 *   addPlainPairs('period=1%20h', params);                 // false: percent-encoded
 */
export function addPlainPairs(text: string, into: Record<string, string>): boolean {
  if (!PLAIN.test(text)) return false;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('&', start);
    if (end === -1) end = text.length;
    if (end > start) {
      const eq = text.indexOf('=', start);
      const name = eq === -1 || eq > end ? text.slice(start, end) : text.slice(start, eq);
      const value = eq === -1 || eq > end ? '' : text.slice(eq + 1, end);
      // `into` may be a plain object (V8 reads those faster than prototype-less ones): a
      // name that would reach its prototype is left to Hono, which takes any name.
      if (name === '__proto__') return false;
      const seen = into[name];
      if (seen !== undefined && (seen !== value || !Object.hasOwn(into, name))) return false;
      into[name] = value;
    }
    start = end + 1;
  }
  return true;
}
