/**
 * `ExchangeFinished` (spec/control.yaml), built for every request and told to its observers;
 * and the change log's rule: a change is acknowledged only once the `--state` log keeps it.
 */
import type { MiddlewareHandler } from 'hono';
import type { components } from '../../src/generated/control.ts';
import { SimulatorError, type Engine } from '../engine/index.ts';
import type { SimEnv } from './context.ts';
import { asSent, decodeText, MAX_JSON_DEPTH, nestsTooDeep } from './request-body.ts';
import { errorResponse, report } from './error-catalogue.ts';
import { redactBody, redactKeys, replaceKeys } from './journal-redaction.ts';
import { JOURNAL_BODY_LIMIT } from './journal.ts';

export type ExchangeFinished = components['schemas']['ExchangeFinished'];

export interface ExchangeEvents {
  /** Announces one finished exchange to every listener, in the order they subscribed. */
  finish(exchange: ExchangeFinished): void;
  /** Listens to every finished exchange; answers how to stop. */
  subscribe(listener: (exchange: ExchangeFinished) => void): () => void;
}

/**
 * Creates the hub of one simulator's finished exchanges; what a listener throws goes to
 * `onListenerError`, at no cost to the others.
 *
 * @example
 *   const exchanges = createExchangeEvents();
 *   exchanges.subscribe((x) => journal.record(x));
 *   exchanges.finish(x); // journal.record(x) has run
 */
export function createExchangeEvents(
  options: { onListenerError?: ((error: unknown) => void) | undefined } = {},
): ExchangeEvents {
  const listeners = new Set<(exchange: ExchangeFinished) => void>();
  return {
    finish(exchange) {
      for (const listener of listeners) {
        try {
          listener(exchange);
        } catch (error) {
          report(options.onListenerError, error);
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** Where a simulator's changes are kept, as the pipeline sees it. */
export interface ChangeLog {
  /** Failed writes so far: if it moved while a request was answered, the change may not be kept. */
  readonly failures: number;
  /** Why changes cannot be kept now, after writing again what failed before; undefined when they can. */
  check(): Error | undefined;
}

/** Methods answered whatever the change log's state. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The step that refuses a request that may change state (507) while the change log cannot
 * be written, before anything changes.
 *
 * @example
 *   app.use(refuseWhileUnkept(log)); // a POST on a full disk: SimulatorError('stateNotWritten')
 */
export function refuseWhileUnkept(log: ChangeLog | undefined): MiddlewareHandler<SimEnv> {
  return (c, next) => {
    const problem = log && !READS.has(c.req.method) ? log.check() : undefined;
    if (problem) throw notWritten(problem);
    return next();
  };
}

/**
 * The refusal of a change the state log could not take (put back, or never made).
 *
 * @example
 *   throw notWritten(new Error('ENOSPC: no space left on device, write'));
 */
export function notWritten(problem: Error): SimulatorError {
  return new SimulatorError(
    'stateNotWritten',
    `Nothing was changed: the state log cannot be written (${problem.message}). Free the disk or mend --state; changes are taken again once a write succeeds.`,
  );
}

/** The refusal of a change that stayed in memory unwritten: written once the disk takes it, or lost at a crash. */
export function notKept(): SimulatorError {
  return new SimulatorError(
    'stateNotWritten',
    'The change was made in memory but could not be written to the state log, so it is not acknowledged: it is written once the disk takes it, or lost at a crash. Read the state back (order history, GET /_sim/…) before repeating it.',
  );
}

const NO_KEYS: ReadonlyArray<readonly [string, string]> = [];
/** What the steps note on the context that the exchange copies as it is, in its field order. */
const NOTED_FIRST = ['operation', 'fault', 'faultKind', 'activation'] as const;
const NOTED_LAST = ['violations', 'refused', 'rejection', 'chain'] as const;
type Noted = (typeof NOTED_FIRST)[number] | (typeof NOTED_LAST)[number] | 'outcomeAsked';

/**
 * The finishing step, around every step but the guard: a success while the change log failed
 * becomes the 507; then the ExchangeFinished is told, before the response is sent.
 *
 * @example
 *   app.use(finishExchange({ engine, exchanges }));
 */
export function finishExchange(options: {
  engine: Engine;
  exchanges: ExchangeEvents;
  changeLog?: ChangeLog | undefined;
  onUnexpectedError?: ((error: unknown) => void) | undefined;
}): MiddlewareHandler<SimEnv> {
  const { engine, changeLog: log } = options;
  return async (c, next) => {
    const started = performance.now();
    const before = log?.failures;
    await next();
    const method = c.req.method;
    if (c.res.status < 400 && log && !READS.has(method) && log.failures !== before && log.check())
      c.res = errorResponse(c, engine, notKept(), options.onUnexpectedError);
    if (!isJournaled(method, c.req.path)) return;
    const status = c.res.status;
    const { path, query } = asSent(c);
    const keys = c.get('keys') ?? NO_KEYS;
    const kept = (text: string): string => (keys.length > 0 ? replaceKeys(text, keys) : text);
    const done: ExchangeFinished = {
      at: engine.clock.now(),
      method,
      path: kept(path),
      status,
      durationMs: Math.round((performance.now() - started) * 1000) / 1000,
    };
    const copy = (names: readonly Noted[]): void => {
      for (const name of names) {
        const value = c.get(name);
        if (value !== undefined) (done as Record<Noted, unknown>)[name] = value;
      }
    };
    copy(NOTED_FIRST);
    if (c.get('account')) done.account = c.get('account').walletAddress;
    if (query !== undefined) done.queryText = kept(query);
    const bytes = c.get('body');
    if (method !== 'GET' && method !== 'HEAD' && status !== 413 && bytes && bytes.byteLength > 0)
      done.body = kept(journalBody(decodeText(bytes)));
    const contentType = journalContentType(c.req.header('content-type'));
    if (contentType !== undefined) done.contentType = contentType;
    copy(['outcomeAsked']);
    const value = c.get('response');
    const text = c.get('responseText');
    if (value !== undefined) {
      done.response = redactKeys(value, keys);
      // The text is kept as it is only when hiding changed nothing and it holds no key or escape.
      if (text !== undefined && done.response === value && holdsNoKey(text, keys)) done.responseText = text;
    } else if (text !== undefined && text.length > 0) done.responseText = kept(text);
    copy(NOTED_LAST);
    options.exchanges.finish(done);
  };
}

/** Whether a JSON text can be kept as it is: no escape, and none of the keys spelled out. */
function holdsNoKey(text: string, keys: ReadonlyArray<readonly [string, string]>): boolean {
  if (text.includes('\\')) return false;
  for (const [key] of keys) if (text.includes(key)) return false;
  return true;
}

/** Whether a request is journaled: not the control plane's reads (a poll would flood the ring) nor the journal's own. */
function isJournaled(method: string, path: string): boolean {
  if (path === '/_sim/journal' || path === '/_sim/events' || path === '/_sim/ui') return false;
  return !((method === 'GET' || method === 'HEAD') && (path === '/_sim' || path.startsWith('/_sim/')));
}

const MEDIA_TYPE = /^[\w.+-]{1,64}\/[\w.+-]{1,64}$/;
const KEPT_PARAMETER = /^(charset|boundary)=[\w.'()+,/:=?-]{1,70}$/i;

/**
 * A request's Content-Type as the journal keeps it: the media type with only its `charset` and
 * `boundary` (another parameter may hold a key); undefined when it names no media type.
 *
 * @example
 *   journalContentType('application/x-www-form-urlencoded; charset=UTF-8'); // the same
 *   journalContentType('text/plain; token=sk_live_1');                      // 'text/plain'
 */
export function journalContentType(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const [type = '', ...parameters] = value.split(';').map((part) => part.trim());
  if (!MEDIA_TYPE.test(type)) return undefined;
  return [type, ...parameters.filter((p) => KEPT_PARAMETER.test(p))].join('; ');
}

/** A request body as the journal keeps it: redacted and cut; one too deep to redact is not kept. */
function journalBody(text: string): string {
  if (/^\s*[[{]/.test(text) && nestsTooDeep(text))
    return `[body not kept: it nests deeper than ${MAX_JSON_DEPTH} levels]`;
  try {
    return redactBody(text).slice(0, JOURNAL_BODY_LIMIT);
  } catch {
    return '[body not kept: it could not be redacted]';
  }
}
