/** Who may use the control plane: loopback unless a token is set; off loopback, the token. */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { SimulatorError } from '../engine/index.ts';
import type { SimEnv } from './context.ts';

export interface ControlOptions {
  /** False turns the control plane off (404 under /_sim, except health). Default true. */
  enabled?: boolean;
  /** When set, every control-plane call must send `Authorization: Bearer <token>`. */
  token?: string | undefined;
}

/** Tells the caller's address; undefined for in-process requests, which count as loopback. */
export type RemoteAddress = (c: Context) => string | undefined;

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;

export function isLoopback(address: string | undefined): boolean {
  return address === undefined || address === 'localhost' || LOOPBACK.test(address);
}

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/**
 * Guards the control plane.
 *
 * @example
 *   app.use('/_sim/*', controlGuard({ token: process.env.ENERGY_SIM_TOKEN }, remoteAddress));
 */
export function controlGuard(
  options: ControlOptions,
  remoteAddress?: RemoteAddress,
): MiddlewareHandler<SimEnv> {
  const enabled = options.enabled ?? true;
  const expected = options.token ? digest(options.token) : undefined;
  return async (c, next) => {
    if (!enabled) {
      throw new SimulatorError(
        'notFound',
        'The control plane is off: this simulator listens off loopback without a token. Start it with --token (or ENERGY_SIM_TOKEN) to turn it on.',
      );
    }
    const header = c.req.header('authorization');
    // Schemes are case-insensitive; an EventSource cannot send headers, so /_sim/events takes ?token=.
    const given =
      header && /^bearer\s+/i.test(header)
        ? header.replace(/^bearer\s+/i, '')
        : c.req.path === '/_sim/events'
          ? c.req.query('token')
          : undefined;
    if (expected) {
      if (given === undefined) {
        throw new SimulatorError(
          'controlUnauthorized',
          "The control plane needs its token: send 'Authorization: Bearer <token>'.",
        );
      }
      // Digests of equal length, compared in constant time, leak neither content nor length.
      if (!timingSafeEqual(digest(given), expected)) {
        throw new SimulatorError(
          'controlUnauthorized',
          "Wrong control-plane token: send the token the simulator was started with as 'Authorization: Bearer <token>'.",
        );
      }
    } else if (!isLoopback(remoteAddress?.(c))) {
      throw new SimulatorError(
        'controlUnauthorized',
        "The control plane refuses callers off loopback without a token: start the simulator with --token (or ENERGY_SIM_TOKEN) and send it as 'Authorization: Bearer <token>'.",
      );
    }
    await next();
  };
}
