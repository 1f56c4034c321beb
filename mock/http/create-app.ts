/**
 * Assembles the Hono app. The API's requests go to the request core (request-core.ts)
 * first, through its Hono adapter (hono-core-adapter.ts), which answers them whole; what
 * is left is the control plane, the dashboard and the docs, with one error handler that
 * turns every failure into the error envelope, the journal of control-plane writes and the
 * limits.
 */
import type { IncomingMessage } from 'node:http';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import { methodNotAllowed } from 'hono/method-not-allowed';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { SimulatorError, type Engine } from '../engine/index.ts';
import { API_PATHS_NAMED } from './api-operations.ts';
import type { SimEnv } from './context.ts';
import { controlGuard, type ControlOptions, type RemoteAddress } from './control-guard.ts';
import { controlRoutes, type ControlContext } from './control-routes.ts';
import { dashboardRoutes } from './dashboard-routes.ts';
import { docsRoutes } from './docs-routes.ts';
import { tronNodeRoutes } from './tron-node-routes.ts';
import { CLIENT_CLOSED_NOTE, CLIENT_CLOSED_STATUS, clientClosed, unexpectedError } from './error-boundary.ts';
import { afterChange, beforeChange, type ChangeLog } from './change-log.ts';
import { catalogued } from './error-catalogue.ts';
import type { ExchangeEvents, ExchangeFinished } from './exchange.ts';
import { coreAnswerOf } from './hono-core-adapter.ts';
import { isJournaled, journalContentType } from './journal.ts';
import { redactKeys } from './journal-redaction.ts';
import { journalBody, type RequestCore } from './request-core.ts';

export interface AppOptions {
  engine: Engine;
  /** The request core: the API's requests are its to answer. */
  core: RequestCore;
  /** Where the control plane's journaled exchanges are announced, as the core's are. */
  exchanges: ExchangeEvents;
  control: ControlContext;
  controlOptions?: ControlOptions;
  remoteAddress?: RemoteAddress;
  /** Largest request body accepted, bytes. */
  maxBodyBytes: number;
  /** Reports unexpected errors (a 500 is a simulator bug). */
  onUnexpectedError?: (error: unknown) => void;
  /** Where changes are kept: a control-plane change is answered as made only once it is. */
  changeLog?: ChangeLog | undefined;
}

/** Pages that hold no data; the data they fetch is guarded like any control call. */
const OPEN_PAGES = new Set(['/_sim/health', '/_sim/ui']);

/**
 * Creates the app.
 *
 * @example
 *   const app = createApp(options);
 *   const res = await app.request('/v1/tron/price?rentalCount=65000&period=1h', { headers: { 'API-KEY': 'demo-key' } });
 */
export function createApp(options: AppOptions): Hono<SimEnv> {
  const { engine, core } = options;
  const app = new Hono<SimEnv>();

  // The API: answered whole by the core, which routes, checks, journals and words its
  // errors itself; nothing below runs for it.
  app.use('*', async (c, next) => {
    if (!core.takes(c.req.path)) return next();
    return coreAnswerOf(c, core, options.maxBodyBytes);
  });

  app.use('*', async (c, next) => {
    const started = performance.now();
    await next();
    const path = c.req.path;
    if (!isJournaled(c.req.method, path)) return;
    const url = c.req.url;
    const q = url.indexOf('?');
    const method = c.req.method;
    const text =
      method !== 'GET' && method !== 'HEAD' && c.res.status !== 413 ? await c.req.text().catch(() => '') : '';
    const done: ExchangeFinished = {
      at: engine.clock.now(),
      method,
      path,
      status: c.res.status,
      durationMs: Math.round((performance.now() - started) * 1000) / 1000,
    };
    const operation = c.get('operation');
    if (operation) done.operation = operation;
    const fault = c.get('fault');
    if (fault) done.fault = fault;
    const account = c.get('account');
    if (account) done.account = account.walletAddress;
    if (text) done.body = journalBody(text);
    const contentType = journalContentType(c.req.header('content-type'));
    if (contentType) done.contentType = contentType;
    if (q !== -1) done.queryText = url.slice(q + 1);
    const response = c.get('responseBody');
    if (response !== undefined) done.response = redactKeys(response);
    const rejection = c.get('rejection');
    if (rejection) done.rejection = rejection;
    const chain = c.get('chain');
    if (chain) done.chain = chain;
    options.exchanges.finish(done);
  });

  const limitBody = bodyLimit({
    maxSize: options.maxBodyBytes,
    onError: () => {
      throw tooLarge();
    },
  });
  // bodyLimit reads request.body, which makes @hono/node-server build a full Request; a
  // GET or HEAD carries no body to limit (a GET's declared oversized body is refused all
  // the same: it is never read, and is drained by the Node server, but every oversized
  // body gets the one answer, 413).
  const tooLarge = (): SimulatorError =>
    SimulatorError.answer(
      'bodyTooLarge',
      `The request body is larger than ${options.maxBodyBytes} bytes; send a smaller body.`,
    );
  app.use('*', (c, next) => {
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return limitBody(c, next);
    if (Number(c.req.header('content-length') ?? 0) > options.maxBodyBytes) throw tooLarge();
    return next();
  });
  const guard = controlGuard(options.controlOptions ?? {}, options.remoteAddress);
  app.use('/_sim/*', async (c, next) => {
    if (OPEN_PAGES.has(c.req.path) || c.req.path.startsWith('/_sim/ui/')) return next();
    return guard(c, next);
  });
  // After the guard, so a refused stranger learns nothing of the disk; before the routes,
  // so a change is refused before it is made while the log cannot be written.
  app.use('/_sim/*', async (c, next) => {
    const before = beforeChange(options.changeLog, c.req.method);
    await next();
    const unkept = c.res.status < 400 ? afterChange(options.changeLog, before) : undefined;
    if (unkept) throw unkept;
  });
  app.use(
    '*',
    methodNotAllowed({
      app,
      onMethodNotAllowed: (c, allowed) => {
        throw SimulatorError.answer(
          'methodNotAllowed',
          `Method ${c.req.method} is not allowed on ${c.req.path}; use ${allowed.join(' or ')}.`,
          { Allow: allowed.join(', ') },
        );
      },
    }),
  );

  app.route('/_sim', controlRoutes(options.control));
  app.route('/_sim', dashboardRoutes(options.control));
  app.route('/docs', docsRoutes());
  // The TRON node's subset under java-tron's own paths; in proxy and replay mode the engine is no chain's.
  if ((options.control.answerSource?.mode ?? 'simulator') === 'simulator')
    app.route('/', tronNodeRoutes(engine));

  // Answered, not thrown: the 405 middleware only looks at a 404 that carries no error.
  app.notFound((c) =>
    errorResponse(
      c,
      SimulatorError.answer(
        'notFound',
        `No such path. The API is under /v1 (${API_PATHS_NAMED}); the control plane is under /_sim.`,
      ),
    ),
  );

  app.onError((error, c) => {
    let simError: SimulatorError;
    if (error instanceof SimulatorError) {
      simError = error;
    } else if (error instanceof HTTPException) {
      simError = SimulatorError.answer(
        error.status === 413 ? 'bodyTooLarge' : 'bodyInvalid',
        error.message || 'The request could not be read.',
      );
    } else if (clientClosed((c.env as { incoming?: IncomingMessage } | undefined)?.incoming)) {
      // The client went away while its body was read: nothing was done and nobody reads the
      // answer; the journal says so (nginx's 499), the error log stays for simulator bugs.
      c.set('responseBody', { note: CLIENT_CLOSED_NOTE });
      return c.body(null, CLIENT_CLOSED_STATUS as ContentfulStatusCode);
    } else {
      options.onUnexpectedError?.(error);
      simError = unexpectedError(error);
    }
    return errorResponse(c, simError);
  });

  /** The envelope of a rejection; an unknown path outside the control plane is the service's to word (the catalogue). */
  function errorResponse(c: Context<SimEnv>, error: SimulatorError): Response {
    const answer = catalogued(engine, error, !c.req.path.startsWith('/_sim'));
    if (answer.rejection) c.set('rejection', answer.rejection);
    c.set('responseBody', answer.response);
    // An empty text is no body: a Response would give it a text/plain type the answer never had.
    if (answer.text === '') return c.body(null, answer.status as ContentfulStatusCode, answer.headers);
    return c.body(answer.text, answer.status as ContentfulStatusCode, answer.headers);
  }

  return app;
}
