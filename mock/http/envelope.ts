/**
 * The service's response envelope, `{ code, msg, time, data }`: a success's, and the one
 * every rejection uses (error-catalogue.ts).
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Engine } from '../engine/index.ts';
import type { SimEnv } from './context.ts';

/** `time` as upstream sends it: Unix seconds in a string (or ms, or s.sss, as the settings say), from the simulator's clock. */
export function envelopeTime(engine: Engine): string {
  const now = Math.floor(engine.clock.now());
  const unit = engine.settings().envelopeTimeUnit;
  return unit === 'ms'
    ? String(now)
    : unit === 's'
      ? String(Math.floor(now / 1000))
      : (now / 1000).toFixed(3);
}

/**
 * The envelope of a response: its code, its message, the time and its data.
 *
 * @example
 *   envelope(engine, 0, 'Get price successfully', { sun: '65' }); // { code: 0, msg: …, time: '1741801809', data: { sun: '65' } }
 */
export function envelope(
  engine: Engine,
  code: number,
  msg: string,
  data: unknown,
): { code: number; msg: string; time: string; data: unknown } {
  return { code, msg, time: envelopeTime(engine), data };
}

/** Sends a JSON body and keeps it for the journal. */
export function sendJson(
  c: Context<SimEnv>,
  body: unknown,
  status: ContentfulStatusCode = 200,
  headers?: Record<string, string>,
): Response {
  c.set('response', body);
  return c.json(body, status, headers);
}
