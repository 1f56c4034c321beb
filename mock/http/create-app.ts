/**
 * The one pipeline every request passes, over a socket or in process: guard, finishing step,
 * body limit, control guard, change log, TRON node, the API's steps, 405, routes; one error handler.
 */
import { Hono, type MiddlewareHandler } from 'hono';
import { methodNotAllowed as allowedOnly } from 'hono/method-not-allowed';
import type { components } from '../../src/generated/control.ts';
import { digestKey } from '../engine/accounts.ts';
import { SimulatorError, type Account, type Engine } from '../engine/index.ts';
import type { SimContext, SimEnv } from './context.ts';
import { controlGuard, type ControlOptions, type RemoteAddress } from './control-guard.ts';
import { controlRoutes, type ControlContext } from './control-routes.ts';
import { dashboardRoutes } from './dashboard-routes.ts';
import { docsRoutes } from './docs-routes.ts';
import { tronNodeRoutes } from './tron-node-routes.ts';
import { tronNodeForward, type NodeAnswer } from './tron-node-forward.ts';
import { errorResponse, methodNotAllowed, notFound } from './error-catalogue.ts';
import { finishExchange, refuseWhileUnkept, type ChangeLog, type ExchangeEvents } from './exchange.ts';
import { injectFaults, type FaultInjector } from './fault-injector.ts';
import { askedRejection, isRejection, preferredOutcome } from './prefer-outcome.ts';
import { createRateLimiter } from './rate-limit.ts';
import { guardSocket } from './request-guard.ts';
import { limitBody } from './request-body.ts';

/** Where the API's responses come from, by mode; a proxy or a replay also says what it did, for /_sim/health. */
export type ResponseSource = (
  | { readonly mode: 'simulator' }
  | { readonly mode: 'proxy' | 'replay'; stats(): components['schemas']['ProxyStats'] }
) & {
  /** Whether a path (as the app routes it) is this source's to answer; the rest is the control plane's or nobody's. */
  takes(path: string): boolean;
  /** Names the request's operation (the `operation` variable), or throws the SimulatorError that refuses it. */
  route(c: SimContext): void;
  /** The account of the request's key; only a source with accounts of its own has it. */
  authenticate?(c: SimContext): Account;
  /** The response, or a thrown SimulatorError; notes on the context what the journal keeps of it. */
  respond(c: SimContext): Promise<Response> | Response;
};

interface AppOptions {
  engine: Engine;
  source: ResponseSource;
  faults: FaultInjector;
  exchanges: ExchangeEvents;
  control: ControlContext;
  controlOptions?: ControlOptions | undefined;
  remoteAddress?: RemoteAddress | undefined;
  maxBodyBytes: number;
  /** Reports unexpected errors (a 500 is a simulator bug). */
  onUnexpectedError?: ((error: unknown) => void) | undefined;
  /** Where changes are kept: a change is answered as made only once it is. */
  changeLog?: ChangeLog | undefined;
  /** In proxy and replay mode, what answers the TRON node's reads (tron-node-forward.ts). */
  node?: NodeAnswer | undefined;
}

/** Pages that hold no data; what they fetch is guarded like any control call. */
const OPEN_PAGES = new Set(['/_sim/health', '/_sim/ui']);

/**
 * Creates the app.
 *
 * @example
 *   const app = createApp(options);
 *   const res = await app.request('/v1/tron/price?rentalCount=65000&period=1h', { headers: { 'API-KEY': 'demo-key' } });
 */
export function createApp(options: AppOptions): Hono<SimEnv> {
  const { engine, source } = options;
  const app = new Hono<SimEnv>();
  app.use(guardSocket(engine));
  app.use(finishExchange(options));
  app.use(limitBody(options.maxBodyBytes));
  const guard = controlGuard(options.controlOptions ?? {}, options.remoteAddress);
  app.use('/_sim/*', (c, next) =>
    OPEN_PAGES.has(c.req.path) || c.req.path.startsWith('/_sim/ui/') ? next() : guard(c, next),
  );
  app.use(refuseWhileUnkept(options.changeLog));
  if (options.node) app.use(tronNodeForward(options.node));
  for (const step of apiSteps(engine, source, options.faults)) app.use(step);
  app.use(
    allowedOnly({
      app,
      onMethodNotAllowed: (c, allowed) => {
        throw methodNotAllowed(c.req.method, c.req.path, allowed);
      },
    }),
  );

  app.route('/_sim', controlRoutes(options.control));
  app.route('/_sim', dashboardRoutes(options.control));
  app.route('/docs', docsRoutes());
  // The TRON node under java-tron's paths: the engine's chain, in simulator mode only.
  if (source.mode === 'simulator') app.route('/', tronNodeRoutes(engine, options.faults));

  // Answered, not thrown: the 405 step looks only at a 404 that carries no error.
  app.notFound((c) => errorResponse(c, engine, notFound()));
  app.onError((error, c) => errorResponse(c, engine, error, options.onUnexpectedError));
  return app;
}

/**
 * The API's steps over `source`, in order: route and `Prefer: outcome=…`, faults, then the asked
 * rejection, authentication, rate limit and the source's response. A refusal throws; a request
 * the source does not take passes them all.
 */
function apiSteps(
  engine: Engine,
  source: ResponseSource,
  faults: FaultInjector,
): MiddlewareHandler<SimEnv>[] {
  const limiter = createRateLimiter(engine);
  const onlyApi =
    (step: MiddlewareHandler<SimEnv>): MiddlewareHandler<SimEnv> =>
    (c, next) =>
      c.get('api') ? step(c, next) : next();
  return [
    (c, next) => {
      if (!source.takes(c.req.path)) return next();
      c.set('api', true);
      source.route(c);
      refuseTwoKeys(c);
      const header = c.req.header('prefer');
      const asked =
        header === undefined ? undefined : preferredOutcome(header, source.mode, c.get('operation'));
      if (asked !== undefined) c.set('outcomeAsked', asked);
      return next();
    },
    onlyApi(injectFaults(faults, engine)),
    onlyApi(async (c) => {
      // A rejection asked for is the response, whoever asks; an order's outcome goes on to the engine.
      const asked = c.get('outcomeAsked');
      if (asked !== undefined && isRejection(asked)) throw askedRejection(asked);
      // Faults come before authentication, as a broken proxy in front of the service would.
      if (source.authenticate) c.set('account', source.authenticate(c));
      if (engine.settings().rateLimit)
        limiter.check(c.get('account')?.keyDigest ?? digestKey(c.req.header('api-key') ?? ''));
      return source.respond(c);
    }),
  ];
}

/** Refuses a request with more than one API-KEY: Node and fetch join them into one ambiguous value. */
function refuseTwoKeys(c: SimContext): void {
  const raw = c.env?.incoming?.rawHeaders ?? [];
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === 'api-key') count++;
  if (count < 2 && !c.req.header('api-key')?.includes(',')) return;
  const message = "More than one API-KEY header: send the account's key once, in one 'API-KEY' header.";
  throw Object.assign(new SimulatorError('parameterInvalid', message), { parameter: 'API-KEY' });
}
