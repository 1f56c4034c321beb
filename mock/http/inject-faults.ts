/**
 * The middleware that applies injected faults to the simulated API.
 */
import type { MiddlewareHandler } from 'hono';
import { envelopeTime } from './envelope.ts';
import type { SimEnv } from './context.ts';
import type { Engine } from '../engine/index.ts';
import type { FaultInjector } from './fault-injector.ts';

/** Marks an in-process response as a dropped connection; the simulator's fetch rejects on it. */
export const DROPPED_HEADER = 'x-energy-sim-dropped';

const MALFORMED_BODY =
  '{"code":0,"msg":"Get price successfully","data":{"sun":65,,}<!-- injected fault: not JSON';

interface NodeBindings {
  incoming?: { socket?: { destroy(): void } };
}

/**
 * Applies the first fault that hits the request's operation.
 *
 * @example
 *   api.get('/v1/tron/price', op('getPrice'), injectFaults(faults, engine), auth, handler);
 */
export function injectFaults(faults: FaultInjector, engine: Engine): MiddlewareHandler<SimEnv> {
  return async (c, next) => {
    const hit = faults.take(c.get('operation'));
    if (!hit) return next();
    const { fault, latencyMs } = hit;
    c.set('fault', fault.id);
    if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
    switch (fault.response) {
      case undefined:
        return next();
      case 'status': {
        const status = fault.status ?? 503;
        const headers: Record<string, string> = {};
        const retryAfter = fault.retryAfter ?? (status === 429 ? 1 : undefined);
        if (retryAfter !== undefined) headers['Retry-After'] = String(retryAfter);
        if (fault.withBody === false) return c.body(null, status, headers);
        const body = {
          code: status === 429 ? 10003 : 50000,
          msg: `Injected fault ${fault.id}: HTTP ${status}. Remove it with DELETE /_sim/faults/${fault.id}.`,
          time: envelopeTime(engine),
          data: null,
        };
        c.set('responseBody', body);
        return c.json(body, status, headers);
      }
      case 'malformed':
        return c.body(MALFORMED_BODY, 200, { 'content-type': 'application/json' });
      case 'truncated': {
        await next();
        const text = await c.res.text();
        c.res = new Response(text.slice(0, Math.floor(text.length / 2)), {
          status: c.res.status,
          headers: c.res.headers,
        });
        return;
      }
      case 'drop': {
        const socket = (c.env as NodeBindings | undefined)?.incoming?.socket;
        socket?.destroy();
        // Never sent over a socket (it is gone); in-process, the simulator's fetch rejects on it.
        return new Response(null, { status: 599, headers: { [DROPPED_HEADER]: fault.id } });
      }
    }
  };
}
