/**
 * The origin a Node request's URL is built on. A request is routed by its target (path and
 * query) alone: the `Host` header only names the origin, and only when it is a plain
 * authority. `Host: x/y?z` would otherwise move `/y` into the path (a valid order routed
 * to 404) and `Host: a b` makes the URL unbuildable.
 */
import type { IncomingMessage } from 'node:http';

// host[:port], where host is a name, an IPv4 address or a bracketed IPv6 address: nothing
// that can end the authority (`/ ? # @`), no space, no control character.
const AUTHORITY = /^(?:[A-Za-z0-9._~-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;
// The hosts a local client sends, taken without asking the URL parser.
const LOOPBACK = /^(?:localhost|127\.0\.0\.1|\[::1\])(?::\d{1,5})?$/;

/**
 * The request's `Host` when it is a plain authority, or else the address the request came
 * in on; the caller puts it back on the request so every URL built from it routes by the
 * target.
 *
 * @example
 *   routableHost({ headers: { host: 'x/y?z' }, socket: { localAddress: '127.0.0.1', localPort: 8787 } }); // '127.0.0.1:8787'
 *   routableHost({ headers: { host: 'localhost:8787' }, socket }); // 'localhost:8787'
 */
export function routableHost(req: Pick<IncomingMessage, 'headers' | 'socket'>): string {
  const host = req.headers.host;
  // The shape alone is not enough: the URL parser also refuses names such as `a127.0.0.1`
  // (a last label that is a number makes the whole name an IPv4 address) or a port over 65535.
  if (
    host !== undefined &&
    (LOOPBACK.test(host) || (AUTHORITY.test(host) && URL.canParse(`http://${host}/`)))
  )
    return host;
  const address = req.socket?.localAddress ?? '127.0.0.1';
  const name = address.includes(':') ? `[${address}]` : address;
  return req.socket?.localPort ? `${name}:${req.socket.localPort}` : name;
}
