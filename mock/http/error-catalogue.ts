/**
 * Every rejection's answer, worded and shaped once; the error catalogue in force is applied
 * only where a rejection becomes a response, never to a fault's or an upstream's answer.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { API_PATHS_NAMED, envelope, envelopeTime } from './api-operations.ts';
import { REJECTION_KINDS } from '../../src/generated/lists.ts';
import { addExtraFields } from './extra-fields.ts';
import { createRandomSource, type RandomSource } from '../engine/random-source.ts';
import { SimulatorError, type Engine } from '../engine/index.ts';
import type { ErrorCatalogueKind } from '../engine/settings.ts';
import type { SimEnv } from './context.ts';
import { parsedOrText } from './journal.ts';

/**
 * The 404 of a path nobody answers.
 *
 * @example
 *   throw notFound(); // 404, code 40400, naming the API's paths and /_sim
 */
export function notFound(): SimulatorError {
  return new SimulatorError(
    'notFound',
    `No such path. The API is under /v1 (${API_PATHS_NAMED}); the control plane is under /_sim.`,
  );
}

/** The 405 of a method a path does not take, with its Allow header: `methodNotAllowed('PUT', path, ['GET'])`. */
export function methodNotAllowed(method: string, path: string, allowed: readonly string[]): SimulatorError {
  return new SimulatorError(
    'methodNotAllowed',
    `Method ${method} is not allowed on ${path}; use ${allowed.join(' or ')}.`,
    { Allow: allowed.join(', ') },
  );
}

/** The 413 of a body over the simulator's limit: `throw bodyTooLarge(65536)`. */
export function bodyTooLarge(maxBytes: number): SimulatorError {
  return new SimulatorError(
    'bodyTooLarge',
    `The request body is larger than ${maxBytes} bytes; send a smaller body.`,
  );
}

/**
 * The SimulatorError an unexpected error is answered with: the one wording of a 500.
 *
 * @example
 *   unexpectedError(new RangeError('Invalid time value')).code; // 50000
 */
export function unexpectedError(error: unknown): SimulatorError {
  let detail: string;
  try {
    detail = error instanceof Error ? error.message : String(error);
  } catch {
    detail = 'unprintable error';
  }
  return new SimulatorError(
    'internal',
    `Unexpected simulator error: ${detail.replace(/\.+$/, '')}. This is a simulator bug; please report it.`,
  );
}

/** Tells `error` to a reporter; a reporter that throws must not turn one bug into two. */
export function report(reporter: ((error: unknown) => void) | undefined, error: unknown): void {
  try {
    reporter?.(error);
  } catch {
    // Nothing left to tell it to.
  }
}

/** The journal status and note of a request whose client went away before it was read (nginx's 499). */
export const CLIENT_CLOSED_STATUS = 499;
export const CLIENT_CLOSED_NOTE =
  'The client closed the connection before the request was read; nothing was done.';

/**
 * The error envelope's JSON text for `error`, uncatalogued, for what answers outside the pipeline.
 *
 * @example
 *   errorEnvelopeText(engine, notFound()); // '{"code":40400,"msg":"No such path. …","time":"1741801809","data":null}'
 */
export function errorEnvelopeText(engine: Engine, error: SimulatorError): string {
  let time: string;
  try {
    time = envelopeTime(engine);
  } catch {
    // A clock that cannot be read must not stop the error from being told.
    time = String(Math.floor(Date.now() / 1000));
  }
  return JSON.stringify({ code: error.code, msg: error.message, time, data: null });
}

/**
 * The response to whatever a step threw: a SimulatorError's envelope (catalogued unless
 * `catalogue` is false), a 499 for a client gone, else a reported 500.
 *
 * @example
 *   app.onError((error, c) => errorResponse(c, engine, error, report));
 */
export function errorResponse(
  c: Context<SimEnv>,
  engine: Engine,
  error: unknown,
  onUnexpectedError?: (error: unknown) => void,
  catalogue: boolean = !c.req.path.startsWith('/_sim'),
): Response {
  let simError: SimulatorError;
  if (error instanceof SimulatorError) simError = error;
  else if (clientGone(c)) {
    c.set('response', { note: CLIENT_CLOSED_NOTE });
    return c.body(null, CLIENT_CLOSED_STATUS as ContentfulStatusCode);
  } else {
    report(onUnexpectedError, error);
    simError = unexpectedError(error);
  }
  const shaped = catalogued(engine, simError, catalogue);
  if (shaped.rejection) c.set('rejection', shaped.rejection);
  c.set('response', shaped.response);
  const status = shaped.status as ContentfulStatusCode;
  // An empty text is no body: a Response would give it a text/plain type the answer never had.
  if (shaped.text === '') return c.body(null, status, shaped.headers);
  return c.body(shaped.text, status, shaped.headers);
}

/** Whether the request's client went away before its body was read: its doing, not a simulator bug. */
function clientGone(c: Context<SimEnv>): boolean {
  const req = c.env?.incoming;
  if (req === undefined) return false;
  return (!req.complete && (req.destroyed || req.socket?.destroyed === true)) || req.aborted;
}

/** The kinds spec/control.yaml's ErrorCatalogue names. */
const CATALOGUED: ReadonlySet<string> = new Set<ErrorCatalogueKind>(REJECTION_KINDS);

const HTML_404 =
  '<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n</body>\r\n</html>\r\n';

/** A rejection's answer: the envelope, rewritten by the catalogue in force unless `catalogue` is false. */
function catalogued(
  engine: Engine,
  error: SimulatorError,
  catalogue: boolean,
): {
  status: number;
  headers: Record<string, string>;
  text: string;
  response: unknown;
  rejection?: ErrorCatalogueKind;
} {
  const own = envelope(engine, error.code, error.message, null);
  const headers = { 'content-type': 'application/json', ...error.headers };
  const rejection =
    error.reason ?? (CATALOGUED.has(error.kind) ? (error.kind as ErrorCatalogueKind) : undefined);
  const settings = engine.settings();
  const entry = catalogue && rejection ? settings.errors[rejection] : undefined;
  // A body the catalogue gives for an unknown path is the service's own page: it wins over the plain one.
  if (catalogue && rejection === 'notFound' && settings.unknownPath === 'html' && entry?.body === undefined)
    return {
      status: 404,
      headers: { 'content-type': 'text/html' },
      text: HTML_404,
      response: HTML_404,
      rejection,
    };
  const status = entry?.status ?? (catalogue && settings.errorStatus === 'always-200' ? 200 : error.status);
  if (!entry) return { status, headers, text: JSON.stringify(own), response: own, rejection };
  const code = entry.code ?? own.code;
  const parameter = error.parameter ?? '';
  if (entry.body !== undefined) {
    // The whole body as the service sends it: empty, HTML, text or JSON of its own shape.
    const type = entry.contentType ?? '';
    const escape = (text: string): string => (/json/i.test(type) ? JSON.stringify(text).slice(1, -1) : text);
    const text = fill(entry.body, {
      message: escape(own.msg),
      parameter: escape(parameter),
      code: String(code),
      time: own.time,
    });
    const bodyHeaders: Record<string, string> = { ...error.headers };
    if (type !== '') bodyHeaders['content-type'] = type;
    return { status, headers: bodyHeaders, text, response: parsedOrText(text), rejection };
  }
  const msg = entry.msg !== undefined ? fill(entry.msg, { message: own.msg, parameter }) : own.msg;
  const body = { code, msg, time: own.time, data: null };
  if (entry.extraFields?.length) addExtraFields(body, entry.extraFields, extraContext(engine));
  if (entry.contentType) headers['content-type'] = entry.contentType;
  return { status, headers, text: JSON.stringify(body), response: body, rejection };
}

/** A template with its placeholders filled in one pass, so that a value holding '{message}' is not filled again. */
function fill(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
}

// Rejections' extra fields draw from a source of their own, so the engine's draws stay the same.
const randoms = new WeakMap<Engine, RandomSource>();

/** What a rejection's extra fields are made from: no parameters of its own, a fresh draw per answer. */
function extraContext(engine: Engine): Parameters<typeof addExtraFields>[2] {
  let random = randoms.get(engine);
  if (!random) randoms.set(engine, (random = createRandomSource((engine.seed ^ 0x72656a65) >>> 0)));
  return { params: {}, now: engine.clock.now(), random };
}
