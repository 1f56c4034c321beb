/** The optional per-key rate limit: a fixed window on the simulator's clock. */
import { SimulatorError, type Engine } from '../engine/index.ts';

/** How many keys' windows are kept before those of past windows are swept. */
const SWEEP_AT = 10_000;

/**
 * Limits each API key to `settings.rateLimit.requests` per `windowMs`: `check` counts one request
 * of a key (by its digest) and throws the 429 past the limit; it checks nothing while the setting is null.
 *
 * @example
 *   const limiter = createRateLimiter(engine);
 *   limiter.check(account.keyDigest); // throws SimulatorError 'rateLimited' (429) past the limit
 */
export function createRateLimiter(engine: Engine): { check(keyDigest: string): void } {
  // One entry per key; past windows' are swept once many have gathered.
  const windows = new Map<string, { start: number; count: number }>();
  // A rewound clock must not land in an old window with its old count.
  engine.subscribe((event) => {
    if (event.type === 'reset') windows.clear();
  });
  return {
    check(keyDigest) {
      const limit = engine.settings().rateLimit;
      if (!limit) return;
      const now = engine.clock.now();
      const start = now - (now % limit.windowMs);
      let window = windows.get(keyDigest);
      if (!window || window.start !== start) {
        if (!window && windows.size >= SWEEP_AT)
          for (const [key, old] of windows) if (old.start !== start) windows.delete(key);
        window = { start, count: 0 };
        windows.set(keyDigest, window);
      }
      if (window.count >= limit.requests) {
        const retryAfter = Math.max(1, Math.ceil((start + limit.windowMs - now) / 1000));
        throw new SimulatorError(
          'rateLimited',
          `Rate limit exceeded: at most ${limit.requests} requests per ${limit.windowMs} ms for this API key. Retry after ${retryAfter} s.`,
          { 'retry-after': String(retryAfter) },
        );
      }
      window.count++;
    },
  };
}
