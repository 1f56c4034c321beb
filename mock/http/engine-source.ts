/** The engine as the API's response source: operations routed, parameters checked, results enveloped. */
import type { MiddlewareHandler } from 'hono';
import { API_OPERATION_IDS, type ApiOperationId, type ApiRequestParams } from '../../src/generated/lists.ts';
import type { SpecValidators } from '../../src/spec/loader.ts';
import { SimulatorError, type Account, type Engine, type Outcome } from '../engine/index.ts';
import { createRandomSource } from '../engine/random-source.ts';
import {
  API_OPERATIONS,
  envelope,
  API_OPERATION_LIST,
  findApiOperation,
  isApiPath,
  orderRecord,
  withoutApiPrefix,
  type ApiOperation,
} from './api-operations.ts';
import type { SimContext, SimEnv } from './context.ts';
import type { ResponseSource } from './create-app.ts';
import { methodNotAllowed, notFound } from './error-catalogue.ts';
import { addExtraFields } from './extra-fields.ts';
import { asSent, readParams, textOf } from './request-body.ts';
import { check } from './validate.ts';

const FORM = 'application/x-www-form-urlencoded';

/**
 * The account of `key`; throws `apiKeyMissing` (no key) or `apiKeyUnknown` (no such account).
 *
 * @example
 *   authenticate(engine, request.header('api-key')); // Account, or throws
 */
export function authenticate(engine: Engine, key: string | undefined): Account {
  if (!key)
    throw new SimulatorError(
      'apiKeyMissing',
      "Missing API key: send the account's key in the 'API-KEY' header.",
    );
  const account = engine.authenticate(key);
  if (account) return account;
  throw new SimulatorError(
    'apiKeyUnknown',
    "Unknown API key: the 'API-KEY' header names no account. Check the key, or create an account with POST /_sim/accounts.",
  );
}

/**
 * The step of the control plane's per-account routes: requires a known API-KEY, notes its account.
 *
 * @example
 *   control.get('/orders', requireApiKey(engine), (c) => c.json(list(c.get('account'))));
 */
export function requireApiKey(engine: Engine): MiddlewareHandler<SimEnv> {
  return async (c, next) => {
    c.set('account', authenticate(engine, c.req.header('api-key')));
    await next();
  };
}

/**
 * Creates the engine's response source.
 *
 * @example
 *   const source = engineSource(engine, apiValidators);
 *   createApp({ engine, source, … });
 */
export function engineSource(engine: Engine, validators: SpecValidators): ResponseSource {
  const validatorOf = Object.fromEntries(API_OPERATION_IDS.map((id) => [id, validators.request(id)]));

  // Extra fields draw from a source of their own, so the engine's own draws stay what they are.
  const extraSeed = (engine.seed ^ 0x65787472) >>> 0;
  let extraRandom = createRandomSource(extraSeed);
  engine.subscribe((event) => {
    if (event.type === 'reset') extraRandom = createRandomSource(extraSeed);
  });

  return {
    mode: 'simulator',
    takes: isApiPath,
    route(c) {
      // Routed by the path as sent: another spelling of an API path is no API path.
      const sent = asSent(c).path;
      const path = withoutApiPrefix(sent);
      // HEAD is GET without the body, as HTTP has it.
      const op = findApiOperation(c.req.method === 'HEAD' ? 'GET' : c.req.method, path);
      if (op) return void c.set('operation', op.id);
      // HEAD is answered wherever GET is.
      const allowed = API_OPERATION_LIST.filter((o) => o.path === path).flatMap((o) =>
        o.method === 'GET' ? ['GET', 'HEAD'] : [o.method],
      );
      throw allowed.length > 0 ? methodNotAllowed(c.req.method, sent, allowed) : notFound();
    },
    authenticate: (c) => authenticate(engine, c.req.header('api-key')),
    respond(c) {
      const op = API_OPERATIONS[c.get('operation') as ApiOperationId] as ApiOperation;
      const form = op.method === 'POST' ? formText(c) : undefined;
      const params = check<Record<string, unknown>>(
        validatorOf[op.id]!,
        readParams([
          [asSent(c).query, 'query string'],
          [form, 'form body'],
        ]),
      );
      const asked = c.get('outcomeAsked');
      const result = op.run(
        engine,
        c.get('account'),
        params as ApiRequestParams[keyof ApiRequestParams] & Record<string, never>,
        // A rejection asked for was answered before the engine; what is left is an order's outcome.
        asked !== undefined ? { outcome: asked as Outcome } : undefined,
      );
      if (result.activation) c.set('activation', true);
      const settings = engine.settings();
      const extras = settings.extraFields[op.id];
      const body = envelope(engine, result.code, result.msg, result.data);
      if (extras?.length) {
        const order = result.order;
        addExtraFields(body, extras, {
          params,
          order: order && { ...orderRecord(order, settings), outOrderNo: order.outOrderNo },
          createdAtMs: order?.createdAt,
          now: engine.clock.now(),
          random: extraRandom,
        });
      }
      const text = JSON.stringify(body);
      c.set('response', body);
      c.set('responseText', text);
      return c.body(text, 200, { 'content-type': 'application/json' });
    },
  };
}

/** An order's form body as text; undefined when there is none. Any other content type is refused (415). */
function formText(c: SimContext): string | undefined {
  const text = textOf(c);
  if (text.length === 0) return undefined;
  const type = c.req.header('content-type');
  if (type?.split(';', 1)[0]!.trim().toLowerCase() !== FORM) {
    throw new SimulatorError(
      'contentTypeUnsupported',
      `Unsupported content type '${type ?? 'none'}': send the parameters in the query string or as an ${FORM} body.`,
    );
  }
  return text;
}
