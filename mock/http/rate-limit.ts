/**
 * The optional per-key rate limit: a fixed window on the simulator's clock, so a test
 * with a manual clock decides exactly when the window opens again.
 */
import type { MiddlewareHandler } from 'hono';
import { digestKey } from '../engine/accounts.ts';
import { SimulatorError, type Engine } from '../engine/index.ts';
import type { SimEnv } from './context.ts';

/**
 * Limits each API key to `settings.rateLimit.requests` per `windowMs`; off when null.
 *
 * @example
 *   api.get('/v1/account', auth, rateLimit(engine), handler);
 */
export function rateLimit(engine: Engine): MiddlewareHandler<SimEnv> {
  // One entry per account that ever called: bounded by the number of accounts.
  const windows = new Map<string, { start: number; count: number }>();
  // A reset goes back to the starting scenario, and a rewound clock must not land in an
  // old window with its old count.
  engine.subscribe((event) => {
    if (event.type === 'reset') windows.clear();
  });
  return async (c, next) => {
    const limit = engine.settings().rateLimit;
    if (!limit) return next();
    // Proxy mode has no local account: the key's own digest counts for it.
    const key = c.get('account')?.keyDigest ?? digestKey(c.req.header('api-key') ?? '');
    const now = engine.clock.now();
    const start = now - (now % limit.windowMs);
    let window = windows.get(key);
    if (!window || window.start !== start) {
      window = { start, count: 0 };
      windows.set(key, window);
    }
    if (window.count >= limit.requests) {
      const retryAfter = Math.max(1, Math.ceil((start + limit.windowMs - now) / 1000));
      throw new SimulatorError(
        'rateLimited',
        `Rate limit exceeded: at most ${limit.requests} requests per ${limit.windowMs} ms for this API key. Retry after ${retryAfter} s.`,
        { 'Retry-After': String(retryAfter) },
      );
    }
    window.count++;
    return next();
  };
}
