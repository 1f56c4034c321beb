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
import { envelopeTime } from './envelope.ts';
import { unexpectedError, CLIENT_CLOSED_NOTE, CLIENT_CLOSED_STATUS } from './error-boundary.ts';
import { catalogued } from './error-catalogue.ts';
import type { CoreAnswer, CoreRequest, ExchangeEvents, ExchangeFinished } from './exchange.ts';
import type { FaultInjector } from './fault-injector.ts';
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
  response?: unknown;
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
  /** Answers one request; never rejects. */
  handle(request: CoreRequest): Promise<CoreAnswer>;
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

  async function answer(request: CoreRequest, exchange: Exchange, effects: Effects): Promise<CoreAnswer> {
    // Every oversized body gets the one answer, 413, whatever else is wrong with the request.
    if (request.hasBody && Number(request.header('content-length') ?? 0) > options.maxBodyBytes)
      throw new SimulatorError(
        'bodyTooLarge',
        `The request body is larger than ${options.maxBodyBytes} bytes; send a smaller body.`,
      );
    const route = source.route(request, exchange);
    const asked = preferredOutcome(request.header('prefer'), source.mode, exchange.operation);
    exchange.outcomeAsked = asked;
    let truncate = false;
    const hit = faults.active ? faults.take(exchange.operation ?? '') : undefined;
    if (hit) {
      const { fault, latencyMs } = hit;
      exchange.fault = fault.id;
      exchange.faultKind = faultKindOf(fault);
      if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
      switch (fault.response) {
        case 'status': {
          const status = fault.status ?? 503;
          const headers: Record<string, string> = {};
          const retryAfter =
            fault.withRetryAfter === false
              ? undefined
              : (fault.retryAfter ?? (status === 429 ? 1 : undefined));
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
          break;
        case 'truncated':
          truncate = true;
          break;
        default:
          break;
      }
    }
    // A rejection asked for is the answer, whoever asks; an order's outcome goes to the engine.
    if (asked !== undefined && isRejection(asked)) throw askedRejection(asked);
    // Faults come before authentication, as a broken proxy in front of the service would.
    const account = source.authenticate?.(request);
    exchange.account = account;
    if (engine.settings().rateLimit)
      limiter.check(account?.keyDigest ?? digestKey(request.header('api-key') ?? ''));
    const answered = await source.answer(request, exchange, route);
    if (truncate && answered.body !== null) {
      const text =
        typeof answered.body === 'string' ? answered.body : new TextDecoder().decode(answered.body);
      const cut = text.slice(0, Math.floor(text.length / 2));
      // The journal keeps what was sent: the cut text, which is no JSON.
      exchange.response = cut;
      return { ...answered, body: cut };
    }
    return answered;
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
    async handle(request) {
      const target = request.target;
      const q = target.indexOf('?');
      const exchange: Exchange = {
        method: request.method,
        path: q === -1 ? target : target.slice(0, q),
        query: q === -1 ? undefined : target.slice(q + 1),
      };
      let answered: CoreAnswer;
      const effects: Effects = {};
      try {
        const before = beforeChange(options.changeLog, request.method);
        answered = await answer(request, exchange, effects);
        const unkept = answered.status < 400 ? afterChange(options.changeLog, before) : undefined;
        if (unkept) throw unkept;
      } catch (error) {
        answered = failed(error, exchange);
      }
      if (effects.drip && answered.body !== null && !answered.dropped)
        answered = { ...answered, drip: effects.drip };
      try {
        await finish(request, exchange, answered);
      } catch (error) {
        // The answer matters more than its journal entry.
        options.onUnexpectedError?.(error);
      }
      return answered;
    },
  };

  async function finish(request: CoreRequest, exchange: Exchange, answered: CoreAnswer): Promise<void> {
    const keys = exchange.keyEcho ?? [];
    const kept = (text: string): string => (keys.length > 0 ? replaceKeys(text, keys) : text);
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
    const method = exchange.method;
    if (method !== 'GET' && method !== 'HEAD' && request.hasBody && answered.status !== 413) {
      const bytes = await request.body().catch(() => undefined);
      if (bytes && bytes.byteLength > 0) done.body = kept(journalBody(new TextDecoder().decode(bytes)));
    }
    const contentType = journalContentType(request.header('content-type'));
    if (contentType) done.contentType = contentType;
    if (exchange.outcomeAsked) done.outcomeAsked = exchange.outcomeAsked;
    // The text an answer carried, unless a source or a fault said what the journal keeps.
    if (exchange.response !== undefined) done.response = replaceKeysIn(redactKeys(exchange.response), keys);
    else if (typeof answered.body === 'string' && answered.body.length > 0)
      done.responseText = kept(answered.body);
    if (exchange.violations) done.violations = exchange.violations;
    if (exchange.refused) done.refused = exchange.refused;
    if (exchange.rejection) done.rejection = exchange.rejection;
    exchanges.finish(done);
  }
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
  if (jsonDepth(text) > MAX_JSON_DEPTH)
    return `[body not kept: it nests deeper than ${MAX_JSON_DEPTH} levels]`;
  try {
    return redactBody(text).slice(0, JOURNAL_BODY_LIMIT);
  } catch {
    return '[body not kept: it could not be redacted]';
  }
}
