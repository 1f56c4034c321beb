/**
 * The pipeline's first step for a socket's request: no DNS-rebound Host (as Vite's
 * `server.allowedHosts`), no cross-site write to the control plane.
 */
import { isIP } from 'node:net';
import type { MiddlewareHandler } from 'hono';
import { SimulatorError, type Engine } from '../engine/index.ts';
import type { SimEnv } from './context.ts';
import { errorResponse } from './error-catalogue.ts';

export interface RequestGuardOptions {
  /**
   * Host names allowed besides the defaults (`localhost`, `*.localhost`, every IP
   * address, and `host`): `'energy-sim'`, or `'.example.com'` for a domain and its
   * subdomains. `'all'` turns the Host check off (behind a proxy, in a container).
   */
  allowedHosts?: readonly string[] | 'all' | undefined;
  /** The address the server listens on (`--host`); always allowed. */
  host?: string | undefined;
}

export interface GuardedRequest {
  method: string;
  /** The request target as sent: `/path?query`, or an absolute URL. */
  url: string;
  /** Lower-case names, as Node gives them. */
  headers: Readonly<Record<string, string | string[] | undefined>>;
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const HOST_HEADER = /^(\[[0-9a-f:.]+\]|[^:[\]\s/@?#]+)(?::(\d{1,5}))?$/i;

/** What a target routed to `/_sim` must contain: the name, or a percent-escape that may spell it. */
const MAY_ROUTE_TO_CONTROL = /_sim|%/i;

const first = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value[0] : value;

/** The host name of a Host header value, lower case and without a trailing dot; undefined when it is not one. */
function hostName(host: string): string | undefined {
  const match = HOST_HEADER.exec(host.trim());
  return match ? match[1]!.toLowerCase().replace(/\.$/, '') : undefined;
}

/** A name given to --allowed-hosts (or --host), normalised as hostName() normalises a header's. */
function normaliseName(name: string): string {
  const lower = name.trim().toLowerCase().replace(/\.$/, '');
  return isIP(lower) === 6 ? `[${lower}]` : lower;
}

/**
 * Reads `--allowed-hosts` / `ENERGY_SIM_ALLOWED_HOSTS`: names separated by commas, or
 * `all`. Throws an Error whose message names the wrong entry and the fix.
 *
 * @example
 *   parseAllowedHosts('energy-sim,.example.com'); // ['energy-sim', '.example.com']
 *   parseAllowedHosts('all'); // 'all'
 */
export function parseAllowedHosts(raw: string): string[] | 'all' {
  const names = raw
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.some((name) => name.toLowerCase() === 'all')) {
    if (names.length > 1) throw new Error(`'all' turns the Host check off and stands alone (got '${raw}').`);
    return 'all';
  }
  for (const name of names) {
    const bare = name.startsWith('.') ? name.slice(1) : name;
    if (isIP(bare.replace(/^\[|\]$/g, '')) !== 0) continue;
    if (!/^[a-z0-9_-]+(\.[a-z0-9_-]+)*\.?$/i.test(bare)) {
      throw new Error(
        `'${name}' is not a host name: give names without scheme, port or path (any port is allowed), such as 'energy-sim' or '.example.com' for a domain and its subdomains, or 'all'.`,
      );
    }
  }
  return names;
}

/** The path as the Hono app routes it: dot segments resolved, percent-escapes decoded. */
function routedPath(url: string): string {
  let path: string;
  try {
    // Not resolved against a base: '//_sim/reset' would read as host '_sim', path '/reset'.
    path = new URL(url.startsWith('/') ? `http://guard.invalid${url}` : url).pathname;
  } catch {
    return url;
  }
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** Whether `origin` is the simulator's own: http or https, and the same host and port as the Host header. */
function isOwnOrigin(origin: string, host: string): boolean {
  try {
    const { protocol, host: originHost } = new URL(origin);
    if (protocol !== 'http:' && protocol !== 'https:') return false;
    // Parsed with the Origin's scheme, so a default port matches its absence.
    return origin === `${protocol}//${originHost}` && new URL(`${protocol}//${host}`).host === originHost;
  } catch {
    return false;
  }
}

/**
 * Creates the guard: the refusal of a request, or null. A Host not allowed (or none, even with
 * `'all'`) is a 403 (10005); a `/_sim` write cross-site a 403 (10006), without JSON a 415.
 *
 * @example
 *   const guard = createRequestGuard({ host: '0.0.0.0', allowedHosts: ['energy-sim'] });
 *   guard({ method: 'GET', url: '/v1/account', headers: { host: 'evil.example:8787' } }); // SimulatorError 403, code 10005
 *   guard({ method: 'GET', url: '/v1/account', headers: { host: 'energy-sim:8787' } }); // null
 */
export function createRequestGuard(
  options: RequestGuardOptions = {},
): (request: GuardedRequest) => SimulatorError | null {
  const all = options.allowedHosts === 'all';
  const exact = new Set(['localhost']);
  const suffixes = ['.localhost'];
  if (options.host) exact.add(normaliseName(options.host));
  for (const name of all ? [] : (options.allowedHosts ?? [])) {
    const normal = normaliseName(name);
    // '.example.com' is the domain and its subdomains.
    if (normal.startsWith('.')) suffixes.push(normal);
    exact.add(normal.replace(/^\./, ''));
  }
  const allowedHost = (host: string): boolean => {
    const name = hostName(host);
    if (name === undefined) return false;
    return (
      exact.has(name) || suffixes.some((s) => name.endsWith(s)) || isIP(name.replace(/^\[|\]$/g, '')) !== 0
    );
  };

  return ({ method, url, headers }) => {
    const host = first(headers.host);
    if (host === undefined) {
      return new SimulatorError(
        'hostNotAllowed',
        "The request has no Host header: HTTP/1.1 requires one and every browser sends it. Send the name you reach the simulator by, such as 'Host: 127.0.0.1:8787'.",
      );
    }
    if (!all && !allowedHost(host)) {
      const suggestion = hostName(host) ?? 'NAME';
      return new SimulatorError(
        'hostNotAllowed',
        `Host '${host}' is not allowed: the simulator answers only localhost, IP addresses, its --host and the names given with --allowed-hosts, which keeps DNS-rebinding web pages out. To allow it, start with --allowed-hosts ${suggestion} (or ENERGY_SIM_ALLOWED_HOSTS=${suggestion}), or --allowed-hosts all behind a proxy.`,
      );
    }
    if (!STATE_CHANGING.has(method)) return null;
    // A target that spells no `_sim` anywhere, escaped or not, cannot route to the control plane.
    if (!MAY_ROUTE_TO_CONTROL.test(url)) return null;
    const path = routedPath(url);
    // Repeated slashes too: refusing a path that routes nowhere costs nothing.
    if (!/^\/+_sim(\/|$)/i.test(path)) return null;

    const origin = first(headers.origin);
    if (origin !== undefined && !isOwnOrigin(origin, host)) {
      return new SimulatorError(
        'crossSiteWrite',
        `Cross-site write refused: ${method} ${path} came from Origin '${origin}', not from this simulator's own pages. The control plane takes writes from its own pages and from tools that send no Origin (curl, scripts, tests).`,
      );
    }
    const site = first(headers['sec-fetch-site']);
    if (site === 'cross-site' || site === 'same-site') {
      return new SimulatorError(
        'crossSiteWrite',
        `Cross-site write refused: ${method} ${path} came from another site (Sec-Fetch-Site: ${site}). The control plane takes writes from its own pages and from tools such as curl.`,
      );
    }
    const length = first(headers['content-length']);
    const hasBody =
      headers['transfer-encoding'] !== undefined || (length !== undefined && Number(length) !== 0);
    const type = first(headers['content-type']);
    const json = type?.split(';', 1)[0]!.trim().toLowerCase() === 'application/json';
    if (hasBody && !json) {
      return new SimulatorError(
        'contentTypeUnsupported',
        `The control plane reads JSON bodies only: send 'content-type: application/json' with ${method} ${path} (got ${type === undefined ? 'no content type' : `'${type}'`}).`,
      );
    }
    return null;
  };
}

/** Where the Node server keeps a request's Host as sent when it gave the app another to build its URL on. */
export const SENT_HOST: unique symbol = Symbol('energy-rental-kit.sentHost');

/**
 * The guard as middleware: a socket's request is checked by `c.env.guard`, a refusal answered
 * uncatalogued; a request in process passes.
 *
 * @example
 *   app.use(guardSocket(engine));
 */
export function guardSocket(engine: Engine): MiddlewareHandler<SimEnv> {
  return (c, next) => {
    const incoming = c.env?.incoming;
    const guard = c.env?.guard;
    if (incoming === undefined || guard === undefined) return next();
    const sent = incoming as typeof incoming & { [SENT_HOST]?: string | undefined };
    const headers = SENT_HOST in sent ? { ...incoming.headers, host: sent[SENT_HOST] } : incoming.headers;
    let refusal = guard({ method: incoming.method ?? 'GET', url: incoming.url ?? '/', headers });
    if (!refusal) return next();
    // HTTP/1.1 requires Host (RFC 9112, 3.2): a 400 closing the connection; HTTP/1.0 keeps the 403.
    if (headers.host === undefined && incoming.httpVersion !== '1.0')
      refusal = new SimulatorError(
        'bodyInvalid',
        `The request is not valid HTTP/${incoming.httpVersion}: it has no Host header. Send the name you reach the simulator by, such as 'Host: 127.0.0.1:8787'.`,
        { connection: 'close' },
      );
    return Promise.resolve(errorResponse(c, engine, refusal, undefined, false));
  };
}
