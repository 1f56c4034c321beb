/**
 * The account of an API key, or the one rejection of a missing or unknown key.
 */
import type { MiddlewareHandler } from 'hono';
import { SimulatorError, type Account, type Engine } from '../engine/index.ts';
import type { SimEnv } from './context.ts';

/**
 * The account of `key`; throws `apiKeyMissing` (no key) or `apiKeyUnknown` (no such account).
 *
 * @example
 *   authenticate(engine, request.header('api-key')); // Account, or throws
 */
export function authenticate(engine: Engine, key: string | undefined): Account {
  if (!key)
    throw new SimulatorError(
      'apiKeyMissing',
      "Missing API key: send the account's key in the 'API-KEY' header.",
    );
  const account = engine.authenticate(key);
  if (!account)
    throw new SimulatorError(
      'apiKeyUnknown',
      "Unknown API key: the 'API-KEY' header names no account. Check the key, or create an account with POST /_sim/accounts.",
    );
  return account;
}

/**
 * Hono middleware of the control plane's per-account routes: requires a known API-KEY and
 * puts its account on the context.
 *
 * @example
 *   control.get('/orders', requireApiKey(engine), (c) => c.json(list(c.get('account'))));
 */
export function requireApiKey(engine: Engine): MiddlewareHandler<SimEnv> {
  return async (c, next) => {
    c.set('account', authenticate(engine, c.req.header('api-key')));
    await next();
  };
}
