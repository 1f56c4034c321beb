/**
 * Assembles the Hono app: the simulated API, the control plane, one error handler
 * that turns every failure into the error envelope, the journal and the limits.
 */
import type { IncomingMessage } from 'node:http';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import { methodNotAllowed } from 'hono/method-not-allowed';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { SpecValidators } from '../../src/spec/loader.ts';
import { SimulatorError, type Engine } from '../engine/index.ts';
import { API_PATHS_NAMED, API_PREFIX } from './api-operations.ts';
import { apiRoutes } from './api-routes.ts';
import { proxyRoutes, type ProxyContext } from './proxy-routes.ts';
import type { ApiStage } from './api-stages.ts';
import type { SimEnv } from './context.ts';
import { controlGuard, type ControlOptions, type RemoteAddress } from './control-guard.ts';
import { controlRoutes, type ControlContext } from './control-routes.ts';
import { dashboardRoutes } from './dashboard-routes.ts';
import { docsRoutes } from './docs-routes.ts';
import { envelopeTime } from './envelope.ts';
import { applyErrorCatalogue, catalogueKindOf } from './error-catalogue.ts';
import { CLIENT_CLOSED_NOTE, CLIENT_CLOSED_STATUS, clientClosed, unexpectedError } from './error-boundary.ts';
import { exchangeEntry, isJournaled, JOURNAL_BODY_LIMIT, type Journal } from './journal.ts';
import { redactBody, redactKeys, replaceKeys, replaceKeysIn } from './journal-redaction.ts';
import { jsonDepth, MAX_JSON_DEPTH } from './request-params.ts';

export interface AppOptions {
  engine: Engine;
  journal: Journal;
  apiValidators: SpecValidators;
  /** The stages before each API operation (createApiStages), shared with the Node fast path. */
  apiStages: readonly ApiStage[];
  /** Proxy mode (`serve --upstream`): the upstream answers the API instead of the engine. */
  proxy?: ProxyContext | undefined;
  control: ControlContext;
  controlOptions?: ControlOptions;
  remoteAddress?: RemoteAddress;
  /** Largest request body accepted, bytes. */
  maxBodyBytes: number;
  /** Reports unexpected errors (a 500 is a simulator bug). */
  onUnexpectedError?: (error: unknown) => void;
}

/** Pages that hold no data; the data they fetch is guarded like any control call. */
const OPEN_PAGES = new Set(['/_sim/health', '/_sim/ui']);

/**
 * A request body as the journal keeps it. Redacting parses and re-serialises a JSON body,
 * which overflows the stack on deep nesting: such a body (refused anyway) is not kept,
 * since keeping it raw could keep a key.
 */
function journalBody(text: string): string {
  const unkept = `[body not kept: it nests deeper than ${MAX_JSON_DEPTH} levels]`;
  if (jsonDepth(text) > MAX_JSON_DEPTH) return unkept;
  try {
    return redactBody(text).slice(0, JOURNAL_BODY_LIMIT);
  } catch {
    return '[body not kept: it could not be redacted]';
  }
}

/**
 * Creates the app.
 *
 * @example
 *   const app = createApp(options);
 *   const res = await app.request('/v1/tron/price?rentalCount=65000&period=1h', { headers: { 'API-KEY': 'demo-key' } });
 */
export function createApp(options: AppOptions): Hono<SimEnv> {
  const { engine, journal } = options;
  const app = new Hono<SimEnv>();

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
    // What the journal, and all that hears it, must not hold by value (proxy mode).
    const keys = c.get('keyEcho') ?? [];
    const kept = (t: string): string => (keys.length > 0 ? replaceKeys(t, keys) : t);
    const entry = exchangeEntry({
      at: engine.clock.now(),
      method,
      path: kept(path),
      status: c.res.status,
      started,
      operation: c.get('operation'),
      fault: c.get('fault'),
      account: c.get('account')?.walletAddress,
      body: text ? kept(journalBody(text)) : undefined,
    });
    entry.response = replaceKeysIn(redactKeys(c.get('responseBody')), keys);
    const violations = c.get('violations');
    if (violations) entry.violations = violations;
    const refused = c.get('refused');
    if (refused) entry.refused = refused;
    journal.record(entry, q !== -1 ? { query: kept(url.slice(q + 1)) } : undefined);
  });

  // The error catalogue (and `errorStatus: always-200`, its shorthand) is applied last, to
  // the finished response, so that every other layer (the 405 check above all) sees the
  // real status.
  app.use('*', async (c, next) => {
    await next();
    applyErrorCatalogue(c, engine);
  });

  const limitBody = bodyLimit({
    maxSize: options.maxBodyBytes,
    onError: () => {
      throw tooLarge();
    },
  });
  // bodyLimit reads request.body, which makes @hono/node-server build a full Request
  // (a large share of a GET's CPU, bench/README.md); a GET or HEAD carries no body to limit.
  // (a GET's declared oversized body is refused all the same: it is never read, and is
  // drained by the Node server, but every oversized body gets the one answer, 413).
  const tooLarge = (): SimulatorError =>
    new SimulatorError(
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
  app.use(
    '*',
    methodNotAllowed({
      app,
      onMethodNotAllowed: (c, allowed) => {
        throw new SimulatorError(
          'methodNotAllowed',
          `Method ${c.req.method} is not allowed on ${c.req.path}; use ${allowed.join(' or ')}.`,
          {
            Allow: allowed.join(', '),
          },
        );
      },
    }),
  );

  if (!options.proxy) {
    const api = apiRoutes(engine, options.apiValidators, options.apiStages);
    app.route('/', api);
    app.route(API_PREFIX, api);
  }
  app.route('/_sim', controlRoutes(options.control));
  app.route('/_sim', dashboardRoutes(options.control));
  app.route('/docs', docsRoutes());
  // The proxy takes every other path, after the local ones, and decides what may go upstream.
  if (options.proxy) app.route('/', proxyRoutes(options.proxy, options.apiStages));

  // Answered, not thrown: the 405 middleware only looks at a 404 that carries no error.
  app.notFound((c) =>
    errorResponse(
      c,
      new SimulatorError(
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
      simError = new SimulatorError(
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

  function errorResponse(c: Context<SimEnv>, error: SimulatorError): Response {
    const kind = catalogueKindOf(error);
    if (kind) c.set('rejection', kind);
    const body = { code: error.code, msg: error.message, time: envelopeTime(engine), data: null };
    c.set('responseBody', body);
    return c.json(body, error.status as ContentfulStatusCode, error.headers);
  }

  return app;
}
