/**
 * The error catalogue in force (settings.errors, settings.errorStatus, settings.unknownPath):
 * what each kind of API rejection answers. Applied once, where a rejection becomes an
 * answer, so that every step before it (the 405 check above all) sees the simulator's own
 * status, and an injected fault or an upstream's answer is never rewritten.
 */
import { REJECTION_KINDS } from '../../src/generated/lists.ts';
import { envelopeTime } from './envelope.ts';
import { addExtraFields } from './extra-fields.ts';
import { createRandomSource, type RandomSource } from '../engine/random-source.ts';
import type { Engine, SimulatorError } from '../engine/index.ts';
import type { ErrorCatalogueKind } from '../engine/settings.ts';

/** The kinds spec/control.yaml's ErrorCatalogue names. */
const CATALOGUED: ReadonlySet<string> = new Set<ErrorCatalogueKind>(REJECTION_KINDS);

/**
 * The catalogue's name for a rejection, or undefined for kinds it does not cover.
 *
 * @example
 *   catalogueKindOf(new SimulatorError('apiKeyMissing', '…')); // 'apiKeyMissing'
 */
export function catalogueKindOf(error: SimulatorError): ErrorCatalogueKind | undefined {
  if (error.reason !== undefined) return error.reason;
  return CATALOGUED.has(error.kind) ? (error.kind as ErrorCatalogueKind) : undefined;
}

const HTML_404 =
  '<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n</body>\r\n</html>\r\n';

/** A rejection as it is answered, once the catalogue in force is applied. */
export interface CataloguedError {
  status: number;
  headers: Record<string, string>;
  /** The body's text: the JSON envelope, or the HTML page of `unknownPath: html`. */
  text: string;
  /** The body as the journal keeps it. */
  response: unknown;
  /** The catalogue's name of the rejection, when it has one. */
  rejection?: ErrorCatalogueKind | undefined;
}

/**
 * How a rejection of the simulator's own is answered: the JSON error envelope, rewritten
 * by the catalogue in force (`errors` per kind, `errorStatus: always-200`, `unknownPath:
 * html`). The control plane's rejections are not catalogued (`catalogue: false`): they
 * are the kit's own interface, not the service's.
 *
 * @example
 *   catalogued(engine, new SimulatorError('apiKeyMissing', 'Missing API key …'), true).status; // 401
 */
export function catalogued(engine: Engine, error: SimulatorError, catalogue: boolean): CataloguedError {
  const own = { code: error.code, msg: error.message, time: envelopeTime(engine), data: null };
  const headers = { 'content-type': 'application/json', ...error.headers };
  const kind = catalogueKindOf(error);
  if (!catalogue)
    return { status: error.status, headers, text: JSON.stringify(own), response: own, rejection: kind };
  const settings = engine.settings();
  // A body the catalogue gives for an unknown path is the service's own page: it wins over the plain one.
  if (kind === 'notFound' && settings.unknownPath === 'html' && settings.errors.notFound?.body === undefined)
    return {
      status: 404,
      headers: { 'content-type': 'text/html' },
      text: HTML_404,
      response: HTML_404,
      rejection: kind,
    };
  const entry = kind ? settings.errors[kind] : undefined;
  const always200 = settings.errorStatus === 'always-200';
  if (!entry)
    return {
      status: always200 ? 200 : error.status,
      headers,
      text: JSON.stringify(own),
      response: own,
      rejection: kind,
    };
  const status = entry.status ?? (always200 ? 200 : error.status);
  const code = entry.code ?? own.code;
  const parameter = error.parameter ?? '';
  if (entry.body !== undefined) {
    // The whole body as the service sends it: empty, HTML, text or JSON of its own shape.
    const type = entry.contentType ?? '';
    const escape = /json/i.test(type)
      ? (text: string) => JSON.stringify(text).slice(1, -1)
      : (text: string) => text;
    const text = fill(entry.body, {
      message: escape(own.msg),
      parameter: escape(parameter),
      code: String(code),
      time: own.time,
    });
    const answerHeaders: Record<string, string> = { ...error.headers };
    if (type !== '') answerHeaders['content-type'] = type;
    return { status, headers: answerHeaders, text, response: parsedOrText(text), rejection: kind };
  }
  const body = {
    code,
    msg: entry.msg !== undefined ? fill(entry.msg, { message: own.msg, parameter }) : own.msg,
    time: own.time,
    data: null,
  };
  if (entry.extraFields?.length) addExtraFields(body, entry.extraFields, extraContext(engine));
  if (entry.contentType) headers['content-type'] = entry.contentType;
  return { status, headers, text: JSON.stringify(body), response: body, rejection: kind };
}

/**
 * A template with its placeholders filled, each replaced in one pass so that a value
 * holding '{message}' is not filled again.
 *
 * @example
 *   fill("Invalid {parameter}", { parameter: 'period' }); // 'Invalid period'
 */
export function fill(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
}

// Each simulator's rejections draw their generated extra fields from a source of their own,
// seeded from the simulator's seed, so the engine's own draws stay what they are.
const randoms = new WeakMap<Engine, RandomSource>();

/** What a rejection's extra fields are made from: no parameters of its own, a fresh draw per answer. */
function extraContext(engine: Engine): Parameters<typeof addExtraFields>[2] {
  let random = randoms.get(engine);
  if (!random) randoms.set(engine, (random = createRandomSource((engine.seed ^ 0x72656a65) >>> 0)));
  return { params: {}, now: engine.clock.now(), random };
}

/** The body as the journal keeps it: its JSON when it is JSON, else its text. */
function parsedOrText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
