/**
 * The upstream response envelope and the error envelope every rejection uses.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Engine } from '../engine/index.ts';
import type { SimEnv } from './context.ts';

/** `time` as upstream sends it: Unix seconds in a string (or ms, as the settings say), from the simulator's clock. */
export function envelopeTime(engine: Engine): string {
  const now = engine.clock.now();
  return String(engine.settings().envelopeTimeUnit === 'ms' ? Math.floor(now) : Math.floor(now / 1000));
}

/**
 * The success envelope as JSON text, with `data` already serialised: exactly what
 * `JSON.stringify({ code, msg, time, data })` writes (`code` is an integer, `time` a
 * string of digits), for the Node fast path, which keeps a read's data as text.
 *
 * @example
 *   envelopeText(engine, 'Get price successfully', '{"sun":"65"}'); // '{"code":0,"msg":"Get price successfully","time":"1741801809","data":{"sun":"65"}}'
 */
export function envelopeText(engine: Engine, msg: string, dataText: string, code = 0): string {
  return `{"code":${code},"msg":${JSON.stringify(msg)},"time":"${envelopeTime(engine)}","data":${dataText}}`;
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

/** Sends the success envelope. */
export function sendEnvelope(
  c: Context<SimEnv>,
  engine: Engine,
  msg: string,
  data: unknown,
  code = 0,
): Response {
  return sendJson(c, { code, msg, time: envelopeTime(engine), data });
}
