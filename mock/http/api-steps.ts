/**
 * The API's steps of the pipeline, in order: route, `Prefer: outcome=…`, faults, the asked
 * rejection, authentication, rate limit, the source's response. A refusal throws.
 */
import type { Socket } from 'node:net';
import type { MiddlewareHandler } from 'hono';
import { digestKey } from '../engine/accounts.ts';
import { SimulatorError, type Engine } from '../engine/index.ts';
import type { SimContext, SimEnv } from './context.ts';
import type { ResponseSource } from './create-app.ts';
import { envelope } from './api-views.ts';
import { DROPPED_HEADER } from './exchange.ts';
import type { Fault, FaultHit, FaultInjector } from './fault-injector.ts';
import { askedRejection, isRejection, preferredOutcome } from './prefer-outcome.ts';
import { createRateLimiter } from './rate-limit.ts';

/**
 * The API's steps over `source`; each passes a request the source does not take straight on.
 *
 * @example
 *   for (const step of apiSteps(engine, source, faults)) app.use(step);
 */
export function apiSteps(
  engine: Engine,
  source: ResponseSource,
  faults: FaultInjector,
): MiddlewareHandler<SimEnv>[] {
  const limiter = createRateLimiter(engine);
  const steps: MiddlewareHandler<SimEnv>[] = [
    (c, next) => {
      const header = c.req.header('prefer');
      const asked =
        header === undefined ? undefined : preferredOutcome(header, source.mode, c.get('operation'));
      if (asked !== undefined) c.set('outcomeAsked', asked);
      return next();
    },
    injectFaults(faults, engine),
    (c, next) => {
      // A rejection asked for is the response, whoever asks; an order's outcome goes on to the engine.
      const asked = c.get('outcomeAsked');
      if (asked !== undefined && isRejection(asked)) throw askedRejection(asked);
      return next();
    },
    (c, next) => {
      // Faults come before authentication, as a broken proxy in front of the service would.
      if (source.authenticate) c.set('account', source.authenticate(c));
      return next();
    },
    (c, next) => {
      if (engine.settings().rateLimit)
        limiter.check(c.get('account')?.keyDigest ?? digestKey(c.req.header('api-key') ?? ''));
      return next();
    },
    ((c) => source.respond(c)) as MiddlewareHandler<SimEnv>,
  ];
  const route: MiddlewareHandler<SimEnv> = (c, next) => {
    if (source.takes(c.req.path)) {
      c.set('api', true);
      source.route(c);
      refuseTwoKeys(c);
    }
    return next();
  };
  return [
    route,
    ...steps.map(
      (step): MiddlewareHandler<SimEnv> =>
        (c, next) =>
          c.get('api') ? step(c, next) : next(),
    ),
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

/** How a drip fault sends a body when it does not say (FaultSpec's dripChunks and dripMs). */
const DRIP_CHUNKS = 10;
const DRIP_MS = 1000;

const MALFORMED_BODY =
  '{"code":0,"msg":"Get price successfully","data":{"sun":65,,}<!-- injected fault: not JSON';
const JSON_TYPE = { 'content-type': 'application/json' };

/**
 * The fault step, after routing: the first fault hitting `operation` waits its latency, then
 * answers instead, cuts the connection, or alters the later steps' answer.
 *
 * @example
 *   node.use(injectFaults(faults, engine, () => 'tronNode'));
 */
export function injectFaults(
  faults: FaultInjector,
  engine: Engine,
  operation: (c: SimContext) => string = (c) => c.get('operation') ?? '',
): MiddlewareHandler<SimEnv> {
  return (c, next) => {
    const hit = faults.active ? faults.take(operation(c)) : undefined;
    return hit === undefined ? next() : deliver(c, next, hit, engine);
  };
}

/** What a fault that hit does, once its latency has passed. */
async function deliver(
  c: SimContext,
  next: () => Promise<void>,
  hit: FaultHit,
  engine: Engine,
): Promise<Response | undefined> {
  const { fault } = hit;
  c.set('fault', fault.id);
  c.set('faultKind', faultKindOf(fault));
  if (hit.latencyMs > 0) await new Promise<void>((resolve) => setTimeout(resolve, hit.latencyMs));
  switch (fault.response) {
    case 'status': {
      const status = fault.status ?? 503;
      const headers: Record<string, string> = {};
      const retryAfter =
        fault.withRetryAfter === false ? undefined : (fault.retryAfter ?? (status === 429 ? 1 : undefined));
      if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
      if (fault.withBody === false) return new Response(null, { status, headers });
      const body = envelope(
        engine,
        status === 429 ? 10003 : 50000,
        `Injected fault ${fault.id}: HTTP ${status}. Remove it with DELETE /_sim/faults/${fault.id}.`,
        null,
      );
      c.set('response', body);
      return new Response(JSON.stringify(body), { status, headers: { ...JSON_TYPE, ...headers } });
    }
    case 'malformed':
      c.set('response', MALFORMED_BODY);
      return new Response(MALFORMED_BODY, { status: 200, headers: JSON_TYPE });
    case 'drop':
      return cut(c, fault.id, 'close');
    case 'reset':
      return cut(c, fault.id, 'reset');
    case 'garbage': {
      const bytes = hit.garbage ?? new Uint8Array(0);
      const note = `[${bytes.byteLength} random bytes instead of an answer, then the connection closed]`;
      c.set('response', note);
      return cut(c, fault.id, bytes);
    }
    case 'drip':
      await next();
      if (c.res.body !== null) {
        const body = new Uint8Array(await c.res.arrayBuffer());
        c.res = new Response(dripStream(body, fault), c.res);
      }
      return;
    case 'truncated': {
      await next();
      // Only what the source answered is cut; a rejection before it goes whole.
      if (c.error !== undefined || c.res.body === null) return;
      const text = await c.res.text();
      const half = text.slice(0, Math.floor(text.length / 2));
      c.set('response', half);
      c.res = new Response(half, c.res);
      return;
    }
    default:
      await next();
      return undefined;
  }
}

/** A cut connection: over a socket, cut as the fault says; in process, a 599 that makes `sim.fetch` reject. */
async function cut(c: SimContext, fault: string, how: 'close' | 'reset' | Uint8Array): Promise<Response> {
  const socket: Socket | undefined = c.env?.incoming?.socket;
  if (socket) {
    if (how === 'reset') socket.resetAndDestroy();
    else if (how instanceof Uint8Array && how.byteLength > 0)
      await new Promise<void>((resolve) => socket.end(how, () => resolve()));
    socket.destroy();
  }
  const named = how instanceof Uint8Array ? 'garbage' : how;
  return new Response(null, { status: 599, headers: { [DROPPED_HEADER]: `${named} ${fault}` } });
}

/**
 * A stream of a body in at most `dripChunks` near-equal pieces, the first at once, the last
 * `dripMs` after it; cancelling it (a client gone) stops the timers.
 */
function dripStream(body: Uint8Array, fault: Fault): ReadableStream<Uint8Array> {
  const count = Math.max(1, Math.min(fault.dripChunks ?? DRIP_CHUNKS, body.byteLength));
  const ms = fault.dripMs ?? DRIP_MS;
  const piece = (i: number): Uint8Array =>
    body.subarray(Math.floor((i * body.byteLength) / count), Math.floor(((i + 1) * body.byteLength) / count));
  const wait = (i: number): number => (i === 0 ? 0 : ms / (count - 1));
  let timer: ReturnType<typeof setTimeout> | undefined;
  let next = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next >= count) return controller.close();
      const i = next++;
      return new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          controller.enqueue(piece(i));
          if (next >= count) controller.close();
          resolve();
        }, wait(i));
      });
    },
    cancel() {
      clearTimeout(timer);
    },
  });
}

/** What a fault does, as FaultSpec's kinds name it: its status, its response, or `latency`. */
function faultKindOf(fault: { response?: string | undefined; status?: number | undefined }): string {
  if (fault.response === 'status') return String(fault.status ?? 503);
  return fault.response ?? 'latency';
}
