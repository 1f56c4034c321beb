/**
 * The one request core: every API request, from whichever transport (the Node server, the
 * Hono app that `sim.fetch` and `app.request` reach, the MSW handlers), passes here, and
 * each step happens once, in this order:
 *
 *   route        the answer source names the operation, or refuses the request (404, 405,
 *                and, in front of the real service, every spelling it will not forward)
 *   prefer       a `Prefer: outcome=…` header: checked, kept, refused but in simulator mode
 *   faults       an injected fault: latency, a status, a malformed or cut body, a slow drip,
 *                a dropped, reset or garbled connection
 *   auth         the account of the API-KEY (the engine only: an upstream knows its keys)
 *   rate limit   per key, on the simulator's clock
 *   answer       the answer source: the engine, the upstream, or a recording
 *   errors       a rejection becomes the error envelope, rewritten by the catalogue
 *   finish       the exchange, redacted, is announced to its observers (the journal, …)
 *
 * Transports only translate: a request into plain fields (exchange.ts), an answer back.
 */
import { FAULT_KINDS } from '../../src/generated/lists.ts';
import { digestKey } from '../engine/accounts.ts';
import { SimulatorError, type Account, type Engine } from '../engine/index.ts';
import { decodeText } from './decode-text.ts';
import { envelopeTime } from './envelope.ts';
import { unexpectedError, CLIENT_CLOSED_NOTE, CLIENT_CLOSED_STATUS } from './error-boundary.ts';
import { catalogued } from './error-catalogue.ts';
import type { CoreAnswer, CoreRequest, ExchangeEvents, ExchangeFinished } from './exchange.ts';
import type { FaultHit, FaultInjector } from './fault-injector.ts';
import { JOURNAL_BODY_LIMIT, journalContentType } from './journal.ts';
import { redactBody, redactKeys, replaceKeys, replaceKeysIn } from './journal-redaction.ts';
import { afterChange, beforeChange, type ChangeLog } from './change-log.ts';
import { askedRejection, isRejection, preferredOutcome, type PreferOutcome } from './prefer-outcome.ts';
import { createRateLimiter } from './rate-limit.ts';
import { jsonDepth, MAX_JSON_DEPTH } from './request-params.ts';

/** What a request is while the core answers it: the fields its exchange is journaled with. */
export interface Exchange {
  readonly method: string;
  /** The path as sent, without the query. */
  readonly path: string;
  /** The query as sent, without `?`; undefined when there is none. */
  readonly query: string | undefined;
  operation?: string | undefined;
  fault?: string | undefined;
  /** What the fault did (ExchangeFinished's faultKind). */
  faultKind?: string | undefined;
  /** The order this exchange created activates its address. */
  activation?: true | undefined;
  account?: Account | undefined;
  /** The body as the journal keeps it, when the answer source set it (else the core reads it). */
  violations?: Array<{ path: string; message: string }> | undefined;
  refused?: string | undefined;
  rejection?: string | undefined;
  /** What the request's `Prefer: outcome=…` asked for, once the core accepted it. */
  outcomeAsked?: PreferOutcome | undefined;
  /** The answer's body as the journal keeps it: JSON text, or a value. */
  responseText?: string | undefined;
  /** The request body as text, once a source has decoded it: the journal keeps it without decoding it again. */
  bodyText?: string | undefined;
  response?: unknown;
  /** The JSON text `response` was parsed from, as the source received it (proxy mode). */
  responseSent?: string | undefined;
  /** The keys a kept copy must not hold by value, with their aliases (proxy mode). */
  keyEcho?: ReadonlyArray<readonly [string, string]> | undefined;
}

/** Where the API's answers come from: the engine, the upstream, or a recording. */
export interface AnswerSource<Route = unknown> {
  readonly mode: 'simulator' | 'proxy' | 'replay';
  /** Whether a path is this source's to answer; the rest is the control plane's or nobody's. */
  takes(path: string): boolean;
  /** Names the request's operation on `exchange`, or throws the SimulatorError that refuses it. */
  route(request: CoreRequest, exchange: Exchange): Route;
  /** The account of the request's key; only a source with accounts of its own has it. */
  authenticate?(request: CoreRequest): Account;
  /** The answer, or a thrown SimulatorError. */
  answer(request: CoreRequest, exchange: Exchange, route: Route): Promise<CoreAnswer> | CoreAnswer;
}

export interface RequestCoreOptions {
  engine: Engine;
  source: AnswerSource;
  faults: FaultInjector;
  exchanges: ExchangeEvents;
  /** Largest request body accepted, bytes: a larger declared body is refused (413) before anything else. */
  maxBodyBytes: number;
  /** Reports an unexpected error (a 500 is a simulator bug). */
  onUnexpectedError?: ((error: unknown) => void) | undefined;
  /** Where changes are kept: a change is answered as made only once it is (with `--state`). */
  changeLog?: ChangeLog | undefined;
}

export interface RequestCore {
  /** Whether a path is the core's to answer (the API; in front of a service, every path but the control plane's). */
  takes(path: string): boolean;
  /**
   * Answers one request; never throws or rejects. The answer comes back synchronously
   * when no step had to wait (a read, most rejections), else as a promise: a transport
   * writes a synchronous answer in the turn the request arrived in, with no promise made.
   * `send`, when given, gets the answer before the observers hear the exchange, in the same
   * turn: a transport writes it there, so the client has it while the journal and the counts
   * take their note (an error `send` throws comes back from `handle`, after the note).
   */
  handle(request: CoreRequest, send?: (answer: CoreAnswer) => void): CoreAnswer | Promise<CoreAnswer>;
}

/** The transport's sign that the client went away before its body was read. */
export class ClientClosed extends Error {
  constructor() {
    super(CLIENT_CLOSED_NOTE);
    this.name = 'ClientClosed';
  }
}

/** What a fault does to an answer once it is made (a drip), whichever way it was made. */
interface Effects {
  drip?: CoreAnswer['drip'];
}

/** How a drip fault sends an answer when it does not say (FaultSpec's dripChunks and dripMs). */
const DRIP_CHUNKS = 10;
const DRIP_MS = 1000;

const MALFORMED_BODY =
  '{"code":0,"msg":"Get price successfully","data":{"sun":65,,}<!-- injected fault: not JSON';
const JSON_TYPE = { 'content-type': 'application/json' };

/**
 * Creates the core of one simulator.
 *
 * @example
 *   const core = createRequestCore({ engine, source: engineSource(…), faults, exchanges });
 *   const answer = await core.handle(request); // { status: 200, headers, body: '{"code":0,…}' }
 */
export function createRequestCore(options: RequestCoreOptions): RequestCore {
  const { engine, source, faults, exchanges } = options;
  const limiter = createRateLimiter(engine);
  // A client sends the same content type with every request: what the journal keeps of it is worked out once.
  let lastType: string | undefined;
  let lastKept: string | undefined;
  const keptContentType = (value: string | undefined): string | undefined => {
    if (value !== lastType) {
      lastKept = journalContentType(value);
      lastType = value;
    }
    return lastKept;
  };

  function answer(
    request: CoreRequest,
    exchange: Exchange,
    effects: Effects,
  ): CoreAnswer | Promise<CoreAnswer> {
    // Every oversized body gets the one answer, 413, whatever else is wrong with the request.
    if (request.hasBody && Number(request.header('content-length') ?? 0) > options.maxBodyBytes)
      throw SimulatorError.answer(
        'bodyTooLarge',
        `The request body is larger than ${options.maxBodyBytes} bytes; send a smaller body.`,
      );
    const route = source.route(request, exchange);
    const asked = preferredOutcome(request.header('prefer'), source.mode, exchange.operation);
    exchange.outcomeAsked = asked;
    const hit = faults.active ? faults.take(exchange.operation ?? '') : undefined;
    if (hit === undefined) return answerUnfaulted(request, exchange, route, asked, false);
    exchange.fault = hit.fault.id;
    exchange.faultKind = faultKindOf(hit.fault);
    if (hit.latencyMs > 0)
      return new Promise<void>((resolve) => setTimeout(resolve, hit.latencyMs)).then(() =>
        answerFaulted(request, exchange, effects, route, asked, hit),
      );
    return answerFaulted(request, exchange, effects, route, asked, hit);
  }

  /** The answer once an injected fault's latency has passed: what the fault answers, or the source's answer it alters. */
  function answerFaulted(
    request: CoreRequest,
    exchange: Exchange,
    effects: Effects,
    route: unknown,
    asked: PreferOutcome | undefined,
    hit: FaultHit,
  ): CoreAnswer | Promise<CoreAnswer> {
    const { fault } = hit;
    switch (fault.response) {
      case 'status': {
        const status = fault.status ?? 503;
        const headers: Record<string, string> = {};
        const retryAfter =
          fault.withRetryAfter === false ? undefined : (fault.retryAfter ?? (status === 429 ? 1 : undefined));
        if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
        if (fault.withBody === false) return { status, headers, body: null };
        const body = {
          code: status === 429 ? 10003 : 50000,
          msg: `Injected fault ${fault.id}: HTTP ${status}. Remove it with DELETE /_sim/faults/${fault.id}.`,
          time: envelopeTime(engine),
          data: null,
        };
        exchange.response = body;
        return { status, headers: { ...JSON_TYPE, ...headers }, body: JSON.stringify(body) };
      }
      case 'malformed':
        exchange.response = MALFORMED_BODY;
        return { status: 200, headers: JSON_TYPE, body: MALFORMED_BODY };
      case 'drop':
        return { status: 599, headers: {}, body: null, dropped: fault.id };
      case 'reset':
        return { status: 599, headers: {}, body: null, dropped: fault.id, cut: 'reset' };
      case 'garbage': {
        const bytes = hit.garbage ?? new Uint8Array(0);
        exchange.response = `[${bytes.byteLength} random bytes instead of an answer, then the connection closed]`;
        return { status: 599, headers: {}, body: null, dropped: fault.id, cut: bytes };
      }
      case 'drip':
        // Whatever the answer turns out to be, a rejection included, it drips.
        effects.drip = { chunks: fault.dripChunks ?? DRIP_CHUNKS, ms: fault.dripMs ?? DRIP_MS };
        return answerUnfaulted(request, exchange, route, asked, false);
      case 'truncated':
        return answerUnfaulted(request, exchange, route, asked, true);
      default:
        return answerUnfaulted(request, exchange, route, asked, false);
    }
  }

  /** The answer source's answer, after the asked rejection, authentication and the rate limit. */
  function answerUnfaulted(
    request: CoreRequest,
    exchange: Exchange,
    route: unknown,
    asked: PreferOutcome | undefined,
    truncate: boolean,
  ): CoreAnswer | Promise<CoreAnswer> {
    // A rejection asked for is the answer, whoever asks; an order's outcome goes to the engine.
    if (asked !== undefined && isRejection(asked)) throw askedRejection(asked);
    // Faults come before authentication, as a broken proxy in front of the service would.
    const account = source.authenticate?.(request);
    exchange.account = account;
    if (engine.settings().rateLimit)
      limiter.check(account?.keyDigest ?? digestKey(request.header('api-key') ?? ''));
    const answered = source.answer(request, exchange, route);
    if (!truncate) return answered;
    return isPromise(answered) ? answered.then((a) => truncated(exchange, a)) : truncated(exchange, answered);
  }

  /** The answer to a thrown error: the catalogued envelope, a client gone (499), or a simulator bug (500). */
  function failed(error: unknown, exchange: Exchange): CoreAnswer {
    if (error instanceof ClientClosed) {
      exchange.response = { note: CLIENT_CLOSED_NOTE };
      return { status: CLIENT_CLOSED_STATUS, headers: {}, body: null, dropped: 'client closed' };
    }
    let simError: SimulatorError;
    if (error instanceof SimulatorError) simError = error;
    else {
      options.onUnexpectedError?.(error);
      simError = unexpectedError(error);
    }
    const answer = catalogued(engine, simError, true);
    exchange.rejection = answer.rejection;
    exchange.response = answer.response;
    return { status: answer.status, headers: answer.headers, body: answer.text };
  }

  return {
    takes: (path) => source.takes(path),
    handle(request, send) {
      const target = request.target;
      const q = target.indexOf('?');
      const exchange: Exchange = {
        method: request.method,
        path: q === -1 ? target : target.slice(0, q),
        query: q === -1 ? undefined : target.slice(q + 1),
      };
      const effects: Effects = {};
      let before: number | undefined;
      let answered: CoreAnswer | Promise<CoreAnswer>;
      try {
        before = beforeChange(options.changeLog, request.method);
        answered = answer(request, exchange, effects);
      } catch (error) {
        answered = failed(error, exchange);
      }
      if (isPromise(answered))
        return answered.then(
          (a) => settle(request, exchange, effects, before, a, send),
          (error: unknown) => settle(request, exchange, effects, undefined, failed(error, exchange), send),
        );
      return settle(request, exchange, effects, before, answered, send);
    },
  };

  /** The answer as sent, once the change log has kept its change: sent, then announced to the observers. */
  function settle(
    request: CoreRequest,
    exchange: Exchange,
    effects: Effects,
    before: number | undefined,
    answer: CoreAnswer,
    send: ((answer: CoreAnswer) => void) | undefined,
  ): CoreAnswer | Promise<CoreAnswer> {
    let answered = answer;
    if (answered.status < 400) {
      const unkept = afterChange(options.changeLog, before);
      if (unkept) answered = failed(unkept, exchange);
    }
    if (effects.drip && answered.body !== null && !answered.dropped)
      answered = { ...answered, drip: effects.drip };
    const sent = answered;
    // A body nobody read is read for the journal before the answer goes, so that a request
    // the client sends after it finds the exchange noted.
    if (bodyUnread(request, exchange, sent)) {
      const noted = (): CoreAnswer => {
        send?.(sent);
        return sent;
      };
      try {
        return finish(request, exchange, sent)!.then(noted, (error: unknown) => {
          unexpected(error);
          return noted();
        });
      } catch (error) {
        unexpected(error);
        return noted();
      }
    }
    let failure: { error: unknown } | undefined;
    try {
      send?.(sent);
    } catch (error) {
      failure = { error };
    }
    try {
      // The body was read, so the note is taken at once; were it not, its failure is reported all the same.
      finish(request, exchange, sent)?.catch(unexpected);
    } catch (error) {
      unexpected(error);
    }
    if (failure) throw failure.error;
    return sent;
  }

  /** An observer's failure: the answer matters more than its journal entry. */
  function unexpected(error: unknown): void {
    options.onUnexpectedError?.(error);
  }

  /** Whether the journal keeps the request's body: a method that has one, and an answer that is no 413. */
  function bodyJournaled(request: CoreRequest, exchange: Exchange, answered: CoreAnswer): boolean {
    const method = exchange.method;
    return method !== 'GET' && method !== 'HEAD' && request.hasBody && answered.status !== 413;
  }

  /** Whether the journal would wait for a body no source has read. */
  function bodyUnread(request: CoreRequest, exchange: Exchange, answered: CoreAnswer): boolean {
    return bodyJournaled(request, exchange, answered) && request.bodyIfRead?.() === undefined;
  }

  /** Announces the finished exchange; waits only for a body nobody has read yet. */
  function finish(request: CoreRequest, exchange: Exchange, answered: CoreAnswer): Promise<void> | undefined {
    const keys = exchange.keyEcho ?? NO_KEYS;
    const kept = keys.length > 0 ? (text: string): string => replaceKeys(text, keys) : unchanged;
    const done: ExchangeFinished = {
      at: engine.clock.now(),
      method: exchange.method,
      path: kept(exchange.path),
      status: answered.status,
      durationMs: Math.round((performance.now() - request.started) * 1000) / 1000,
    };
    if (exchange.operation) done.operation = exchange.operation;
    if (exchange.fault) done.fault = exchange.fault;
    if (exchange.faultKind) done.faultKind = exchange.faultKind;
    if (exchange.activation) done.activation = true;
    if (exchange.account) done.account = exchange.account.walletAddress;
    if (exchange.query !== undefined) done.queryText = kept(exchange.query);
    if (bodyJournaled(request, exchange, answered)) {
      const read = request.bodyIfRead?.();
      if (read === undefined)
        return request.body().then(
          (bytes) => announce(request, exchange, answered, done, kept, bytes),
          () => announce(request, exchange, answered, done, kept, undefined),
        );
      return announce(request, exchange, answered, done, kept, read);
    }
    return announce(request, exchange, answered, done, kept, undefined);
  }

  /** The exchange's note completed with its body and answer, told to the observers. */
  function announce(
    request: CoreRequest,
    exchange: Exchange,
    answered: CoreAnswer,
    done: ExchangeFinished,
    kept: (text: string) => string,
    bytes: Uint8Array | undefined,
  ): undefined {
    if (bytes && bytes.byteLength > 0) done.body = kept(journalBody(exchange.bodyText ?? decodeText(bytes)));
    const contentType = keptContentType(request.header('content-type'));
    if (contentType) done.contentType = contentType;
    if (exchange.outcomeAsked) done.outcomeAsked = exchange.outcomeAsked;
    // The text an answer carried, unless a source or a fault said what the journal keeps.
    if (exchange.response !== undefined) {
      const keys = exchange.keyEcho ?? NO_KEYS;
      const shown = replaceKeysIn(redactKeys(exchange.response), keys);
      done.response = shown;
      // The text the value came from, for the journal to keep as it is instead of writing
      // the JSON again (that showed in the proxy's profile), only when hiding changed
      // nothing: no field redacted, no key replaced, no key in the text at all (a key in a
      // duplicate name's value that the parse dropped) and no escape that could spell one.
      const sent = exchange.responseSent;
      if (sent !== undefined && shown === exchange.response && holdsNoKey(sent, keys))
        done.responseText = sent;
    } else if (typeof answered.body === 'string' && answered.body.length > 0)
      done.responseText = kept(answered.body);
    if (exchange.violations) done.violations = exchange.violations;
    if (exchange.refused) done.refused = exchange.refused;
    if (exchange.rejection) done.rejection = exchange.rejection;
    exchanges.finish(done);
    return undefined;
  }
}

/** Whether a JSON text can be kept as it is: no escape, and none of the keys spelled out. */
function holdsNoKey(text: string, keys: ReadonlyArray<readonly [string, string]>): boolean {
  if (text.includes('\\')) return false;
  for (const [key] of keys) if (text.includes(key)) return false;
  return true;
}

/** No keys to hide, and the text as it is: most exchanges, which need no array or closure of their own. */
const NO_KEYS: ReadonlyArray<readonly [string, string]> = [];
const unchanged = (text: string): string => text;

/** An answer cut to half its text (a truncated fault); the journal keeps what was sent, which is no JSON. */
function truncated(exchange: Exchange, answered: CoreAnswer): CoreAnswer {
  if (answered.body === null) return answered;
  const text = typeof answered.body === 'string' ? answered.body : decodeText(answered.body);
  const cut = text.slice(0, Math.floor(text.length / 2));
  exchange.response = cut;
  return { ...answered, body: cut };
}

/** Whether a step's result is one to wait for. */
export function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/**
 * What a fault does, as FaultSpec's kinds name it: its status for `response: status`, its
 * response otherwise, `latency` for latency alone.
 *
 * @example
 *   faultKindOf({ operation: '*', response: 'status', status: 429 }); // '429'
 */
export function faultKindOf(fault: { response?: string | undefined; status?: number | undefined }): string {
  if (fault.response === 'status') return STATUS_KINDS[fault.status ?? 503] ?? String(fault.status);
  return fault.response ?? 'latency';
}

/** The status kinds as strings, made once: a fault's kind allocates nothing. */
const STATUS_KINDS: Record<number, string> = Object.fromEntries(
  FAULT_KINDS.filter((kind) => /^[0-9]+$/.test(kind)).map((kind) => [Number(kind), kind]),
);

/**
 * A request body as the journal keeps it: redacted and cut. Redacting parses and
 * re-serialises a JSON body, which overflows the stack on deep nesting: such a body is not
 * kept, since keeping it raw could keep a key.
 *
 * @example
 *   journalBody('apiKey=sk_1&rentalCount=65000'); // 'apiKey=[redacted]&rentalCount=65000'
 */
export function journalBody(text: string): string {
  const first = text.charCodeAt(0);
  // Only JSON nests; a form body or plain text is redacted as it is.
  const nests = first === 123 /* { */ || first === 91 /* [ */ || /^\s/.test(text);
  if (nests && jsonDepth(text) > MAX_JSON_DEPTH)
    return `[body not kept: it nests deeper than ${MAX_JSON_DEPTH} levels]`;
  try {
    return redactBody(text).slice(0, JOURNAL_BODY_LIMIT);
  } catch {
    return '[body not kept: it could not be redacted]';
  }
}
