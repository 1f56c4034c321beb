/**
 * The engine as the API's response source: the operation table (api-operations.ts) routed
 * by method and path, the account of the API-KEY, the parameters read from the query and,
 * for an order, a form body, checked against spec/openapi.yaml by its precompiled
 * validators, then the operation's result in the success envelope.
 */
import type { SpecValidators, ValidateFunction } from '../../src/spec/loader.ts';
import { SimulatorError, type Engine, type Outcome } from '../engine/index.ts';
import { createRandomSource } from '../engine/random-source.ts';
import {
  API_OPERATIONS,
  isApiPath,
  withoutApiPrefix,
  type ApiOperation,
  type ApiParams,
} from './api-operations.ts';
import { orderRecord } from './api-views.ts';
import { authenticate } from './authenticate.ts';
import { asSent, type SimContext } from './context.ts';
import type { ResponseSource } from './create-app.ts';
import { envelope } from './api-views.ts';
import { methodNotAllowed, notFound } from './error-catalogue.ts';
import { addExtraFields } from './extra-fields.ts';
import { textOf } from './request-body.ts';
import { readParams } from './request-body.ts';
import { check } from './validate.ts';

const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = { 'content-type': 'application/json' };

/**
 * Creates the engine's response source.
 *
 * @example
 *   const source = engineSource(engine, apiValidators);
 *   createApp({ engine, source, … });
 */
export function engineSource(engine: Engine, validators: SpecValidators): ResponseSource {
  const operations = Object.values(API_OPERATIONS) as ApiOperation[];
  // The validator of each operation's parameters, from the spec; the methods of each path.
  const validatorOf = new Map<string, ValidateFunction>();
  const methodsAt = new Map<string, string[]>();
  for (const op of operations) {
    validatorOf.set(op.id, validators.request(op.id));
    // HEAD is answered wherever GET is, as HTTP has it.
    const methods = op.method === 'GET' ? ['GET', 'HEAD'] : [op.method];
    methodsAt.set(op.path, [...(methodsAt.get(op.path) ?? []), ...methods]);
  }

  // The extra fields' generated values draw from a source of their own, seeded from the
  // engine's: the engine's own draws (order ids, outcomes) stay what they are without them.
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
      const method = c.req.method === 'HEAD' ? 'GET' : c.req.method;
      const op = operations.find((o) => o.path === path && o.method === method);
      if (op) return void c.set('operation', op.id);
      const allowed = methodsAt.get(path);
      throw allowed ? methodNotAllowed(c.req.method, sent, allowed) : notFound();
    },
    authenticate: (c) => authenticate(engine, c.req.header('api-key')),
    respond(c) {
      const op = API_OPERATIONS[c.get('operation') as keyof typeof API_OPERATIONS] as ApiOperation;
      const form = op.method === 'POST' ? formText(c) : undefined;
      const params = check<Record<string, unknown>>(
        validatorOf.get(op.id)!,
        readParams([
          [asSent(c).query, 'query string'],
          [form, 'form body'],
        ]),
      );
      const asked = c.get('outcomeAsked');
      const result = op.run(
        engine,
        c.get('account'),
        params as ApiParams[keyof ApiParams] & Record<string, never>,
        // A rejection asked for was answered before the engine; what is left is an order's outcome.
        asked !== undefined ? { outcome: asked as Outcome } : undefined,
      );
      if (result.activation) c.set('activation', true);
      const settings = engine.settings();
      const extras = settings.extraFields[op.id];
      const body = envelope(engine, result.code, result.msg, result.data);
      if (extras !== undefined && extras.length > 0) {
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
      return c.body(text, 200, JSON_TYPE);
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
