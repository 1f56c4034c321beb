/** What the proxy may forward: only a documented operation's exact path and method; another spelling is refused. */
import { API_PREFIX, withoutApiPrefix } from './api-operations.ts';
import { originForm } from './request-body.ts';

export interface EdgeOperation {
  readonly operationId: string;
  readonly method: string;
  readonly path: string;
}

export type EdgeVerdict =
  /** The exact canonical path of an operation, with its method: it may be forwarded. */
  | { kind: 'api'; operationId: string; order: boolean }
  /** The exact canonical path with another method: 405 naming the documented one. */
  | { kind: 'wrong-method'; operationId: string; allowed: string; canonical: string; order: boolean }
  /** Another spelling of an API path: 404 naming the canonical path; never forwarded. */
  | { kind: 'misspelled'; operationId: string; canonical: string; order: boolean }
  /** Not the API. `order` says a spelling of it has an `order` segment. */
  | { kind: 'unknown'; order: boolean };

/** Rounds of percent-decoding: enough for double and triple encoding. */
const DECODE_ROUNDS = 4;
/** The order path's last segment: a path that has it is never forwarded unless exact. */
const ORDER_SEGMENT = 'order';

/**
 * Builds the classifier of a set of operations.
 *
 * @example
 *   const classify = createEdgeClassifier(loadSpec('api').operations);
 *   classify('POST', '/v1/tron/order');   // { kind: 'api', operationId: 'createOrder', order: true }
 *   classify('POST', '/v1/tron/order/');  // { kind: 'misspelled', canonical: '/v1/tron/order', … }
 *   classify('GET', '/v1/tron/order');    // { kind: 'wrong-method', allowed: 'POST', … }
 */
export function createEdgeClassifier(
  operations: readonly EdgeOperation[],
): (method: string, sent: string) => EdgeVerdict {
  const byPath = new Map<string, EdgeOperation[]>();
  for (const op of operations) byPath.set(op.path, [...(byPath.get(op.path) ?? []), op]);
  const byNormalPath = new Map([...byPath.keys()].map((path) => [normalisePath(path).path, path]));
  const orderPaths = new Set(
    operations.filter((op) => op.path.endsWith(`/${ORDER_SEGMENT}`)).map((op) => op.path),
  );

  return (method, sent) => {
    // The path of the request target, in origin form, without query or fragment.
    const raw = originForm(sent).replace(/[?#].*$/s, '');
    const exact = withoutApiPrefix(raw);
    const atPath = byPath.get(exact);
    if (atPath) {
      const order = orderPaths.has(exact);
      const op = atPath.find((o) => o.method === method);
      if (op) return { kind: 'api', operationId: op.operationId, order };
      return {
        kind: 'wrong-method',
        operationId: atPath[0]!.operationId,
        allowed: atPath.map((o) => o.method).join(', '),
        canonical: exact,
        order,
      };
    }
    const normal = normalisePath(raw);
    const canonical = byNormalPath.get(normal.path);
    if (canonical) {
      const ops = byPath.get(canonical)!;
      const op = ops.find((o) => o.method === method) ?? ops[0]!;
      return { kind: 'misspelled', operationId: op.operationId, canonical, order: orderPaths.has(canonical) };
    }
    return { kind: 'unknown', order: normal.segments.includes(ORDER_SEGMENT) };
  };
}

/** The path as the most lenient server would route it; `segments` keeps those dot segments removed. */
export function normalisePath(raw: string): { path: string; segments: string[] } {
  let decoded = raw;
  for (let round = 0; round < DECODE_ROUNDS; round++) {
    let next: string;
    try {
      next = decodeURIComponent(decoded);
    } catch {
      next = decoded.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    }
    if (next === decoded) break;
    decoded = next;
  }
  const seen: string[] = [];
  const resolved: string[] = [];
  for (const piece of decoded.replace(/\\/g, '/').split('/')) {
    const segment = piece
      .split(';')[0]!
      // eslint-disable-next-line no-control-regex -- NUL and other controls are dropped on purpose
      .replace(/[\u0000-\u0020\u007f]+/g, '')
      .toLowerCase()
      .replace(/^(.+?)\.[a-z0-9]{1,8}$/, '$1');
    if (segment === '' || segment === '.') continue;
    seen.push(segment);
    if (segment === '..') resolved.pop();
    else resolved.push(segment);
  }
  if (resolved[0] === API_PREFIX.slice(1)) resolved.shift();
  return { path: '/' + resolved.join('/'), segments: [...seen, ...resolved] };
}
