/**
 * The one event of a finished exchange, `ExchangeFinished` (spec/control.yaml), built in one
 * place, the pipeline's finishing step, for every request, the API's and the control
 * plane's alike, and announced to its observers as it finishes: the journal, and through
 * it the dashboard, the live events and request logs; the call counts. The finishing step
 * also holds a change to what the change log kept (change-log.ts).
 */
import type { MiddlewareHandler } from 'hono';
import type { components } from '../../src/generated/control.ts';
import type { Engine } from '../engine/index.ts';
import { afterChange, type ChangeLog } from './change-log.ts';
import { asSent, type SimEnv } from './context.ts';
import { decodeText } from './decode-text.ts';
import { errorResponse } from './error-catalogue.ts';
import { redactBody, redactKeys, replaceKeys } from './journal-redaction.ts';
import { JOURNAL_BODY_LIMIT } from './journal.ts';
import { MAX_JSON_DEPTH, nestsTooDeep } from './request-params.ts';

/** One finished exchange as its observers hear it (spec/control.yaml's ExchangeFinished). */
export type ExchangeFinished = components['schemas']['ExchangeFinished'];

/** Where exchanges are announced once finished. */
export interface ExchangeEvents {
  /** Announces one finished exchange to every listener, in the order they subscribed. */
  finish(exchange: ExchangeFinished): void;
  /** Listens to every finished exchange; answers how to stop. */
  subscribe(listener: (exchange: ExchangeFinished) => void): () => void;
}

export interface ExchangeEventsOptions {
  /** Hears what a listener throws; the other listeners are still served. */
  onListenerError?: ((error: unknown) => void) | undefined;
}

/**
 * Creates the hub of one simulator's finished exchanges: each is told to every listener
 * as it finishes, so a journal read after an answer always holds it.
 *
 * @example
 *   const exchanges = createExchangeEvents();
 *   exchanges.subscribe((x) => journal.record(x));
 *   exchanges.finish(x); // journal.record(x) has run
 */
export function createExchangeEvents(options: ExchangeEventsOptions = {}): ExchangeEvents {
  const listeners = new Set<(exchange: ExchangeFinished) => void>();
  return {
    finish(exchange) {
      for (const listener of listeners) {
        try {
          listener(exchange);
        } catch (error) {
          // A reporter that throws too must not cost the other listeners their turn.
          try {
            options.onListenerError?.(error);
          } catch {
            // Nothing left to tell it to.
          }
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export interface FinishOptions {
  engine: Engine;
  exchanges: ExchangeEvents;
  /** Where changes are kept: a change is answered as made only once it is (with `--state`). */
  changeLog?: ChangeLog | undefined;
  onUnexpectedError?: ((error: unknown) => void) | undefined;
}

const NO_KEYS: ReadonlyArray<readonly [string, string]> = [];

/**
 * The finishing step, wrapped around every other step but the socket's guard: once the
 * response is made, a success whose change the change log could not keep becomes the 507,
 * and the request's ExchangeFinished is built from what the steps noted on the context and
 * announced, before the response is sent, so that a request the client sends after it
 * finds it noted.
 *
 * @example
 *   app.use(finishExchange({ engine, exchanges, maxBodyBytes: 65536 }));
 */
export function finishExchange(options: FinishOptions): MiddlewareHandler<SimEnv> {
  const { engine, changeLog } = options;
  return async (c, next) => {
    const started = performance.now();
    const before = changeLog?.failures;
    await next();
    const method = c.req.method;
    if (c.res.status < 400) {
      const unkept = afterChange(changeLog, method, before);
      if (unkept) c.res = errorResponse(c, engine, unkept, options.onUnexpectedError);
    }
    if (!isJournaled(method, c.req.path)) return;
    const status = c.res.status;
    const { path, query } = asSent(c);
    const keys = c.get('keys') ?? NO_KEYS;
    const kept = keys.length > 0 ? (text: string): string => replaceKeys(text, keys) : unchanged;
    const done: ExchangeFinished = {
      at: engine.clock.now(),
      method,
      path: kept(path),
      status,
      durationMs: Math.round((performance.now() - started) * 1000) / 1000,
    };
    const note = <K extends keyof ExchangeFinished>(
      name: K,
      value: ExchangeFinished[K] | undefined,
    ): void => {
      if (value !== undefined) done[name] = value;
    };
    note('operation', c.get('operation'));
    note('fault', c.get('fault'));
    note('faultKind', c.get('faultKind'));
    note('activation', c.get('activation'));
    note('account', c.get('account')?.walletAddress);
    note('queryText', query === undefined ? undefined : kept(query));
    if (method !== 'GET' && method !== 'HEAD' && status !== 413) {
      const bytes = c.get('body');
      if (bytes !== undefined && bytes.byteLength > 0) done.body = kept(journalBody(decodeText(bytes)));
    }
    note('contentType', journalContentType(c.req.header('content-type')));
    note('outcomeAsked', c.get('outcomeAsked'));
    const value = c.get('response');
    const text = c.get('responseText');
    if (value !== undefined) {
      const shown = redactKeys(value, keys);
      done.response = shown;
      // The text the value came from is kept as it is (not written again) only when hiding
      // changed nothing: no field redacted, no key replaced, none in the text at all (a key
      // in a duplicate name's value that the parse dropped) and no escape that could spell one.
      if (text !== undefined && shown === value && holdsNoKey(text, keys)) done.responseText = text;
    } else if (text !== undefined && text.length > 0) done.responseText = kept(text);
    note('violations', c.get('violations'));
    note('refused', c.get('refused'));
    note('rejection', c.get('rejection'));
    note('chain', c.get('chain'));
    options.exchanges.finish(done);
  };
}

const unchanged = (text: string): string => text;

/** Whether a JSON text can be kept as it is: no escape, and none of the keys spelled out. */
function holdsNoKey(text: string, keys: ReadonlyArray<readonly [string, string]>): boolean {
  if (text.includes('\\')) return false;
  for (const [key] of keys) if (text.includes(key)) return false;
  return true;
}

/**
 * Whether a request is journaled. The control plane's own reads (GET /_sim/*) are not:
 * they change nothing, their answers are the largest the simulator sends (every order,
 * the journal itself), and a test polling them would push its API calls out of the ring.
 *
 * @example
 *   isJournaled('GET', '/_sim/orders');   // false
 *   isJournaled('POST', '/_sim/rules');   // true
 *   isJournaled('GET', '/v1/account');    // true
 */
export function isJournaled(method: string, path: string): boolean {
  // Clearing the journal leaves it empty, not holding its own clearing.
  if (path === '/_sim/journal' || path === '/_sim/events' || path === '/_sim/ui') return false;
  return !((method === 'GET' || method === 'HEAD') && (path === '/_sim' || path.startsWith('/_sim/')));
}

const MEDIA_TYPE = /^[\w.+-]{1,64}\/[\w.+-]{1,64}$/;
const KEPT_PARAMETER = /^(charset|boundary)=[\w.'()+,/:=?-]{1,70}$/i;

/**
 * A request's Content-Type as the journal keeps it, so that a copy of the request repeats
 * it: the media type and only its `charset` and `boundary` parameters (any other
 * parameter could carry anything, a key included); undefined when it names no media type.
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

/**
 * A request body as the journal keeps it: redacted and cut. Redacting parses and
 * re-serialises a JSON body, which overflows the stack on deep nesting: such a body is not
 * kept, since keeping it raw could keep a key.
 *
 * @example
 *   journalBody('apiKey=sk_1&rentalCount=65000'); // 'apiKey=[redacted]&rentalCount=65000'
 */
export function journalBody(text: string): string {
  if (/^\s*[[{]/.test(text) && nestsTooDeep(text))
    return `[body not kept: it nests deeper than ${MAX_JSON_DEPTH} levels]`;
  try {
    return redactBody(text).slice(0, JOURNAL_BODY_LIMIT);
  } catch {
    return '[body not kept: it could not be redacted]';
  }
}

/**
 * The header of an in-process answer whose connection an injected fault cut: never sent
 * over a socket (it is gone); the simulator's fetch rejects on it, as a real fetch does.
 */
export const DROPPED_HEADER = 'x-energy-sim-dropped';
/** With DROPPED_HEADER: how the connection was cut (`close`, `reset` or `garbage`), for the error the fetch rejects with. */
export const DROPPED_HOW_HEADER = 'x-energy-sim-dropped-how';
