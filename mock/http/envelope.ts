/**
 * The upstream response envelope and the error envelope every rejection uses.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Engine } from '../engine/index.ts';
import type { SimEnv } from './context.ts';

/** `time` as upstream sends it: Unix seconds in a string, from the simulator's clock. */
export function envelopeTime(engine: Engine): string {
  return String(Math.floor(engine.clock.now() / 1000));
}

/** Sends a JSON body and keeps it for the journal. */
export function sendJson(c: Context<SimEnv>, body: unknown, status: ContentfulStatusCode = 200, headers?: Record<string, string>): Response {
  c.set('responseBody', body);
  return c.json(body, status, headers);
}

/** Sends the success envelope. */
export function sendEnvelope(c: Context<SimEnv>, engine: Engine, msg: string, data: unknown, code = 0): Response {
  return sendJson(c, { code, msg, time: envelopeTime(engine), data });
}
