/**
 * The engine as the API's answer source: the operation table (api-operations.ts) routed
 * by method and path, the account of the API-KEY, the parameters read from the query and,
 * for an order, a form body, checked against spec/openapi.yaml by its precompiled
 * validators, then the operation's answer in the success envelope.
 */
import type { SpecValidators, ValidateFunction } from '../../src/spec/loader.ts';
import { SimulatorError, type Engine, type Outcome } from '../engine/index.ts';
import {
  API_OPERATIONS,
  API_PATHS_NAMED,
  withoutApiPrefix,
  type ApiOperation,
  type ApiParams,
} from './api-operations.ts';
import { authenticate } from './authenticate.ts';
import { createRandomSource } from '../engine/random-source.ts';
import { orderRecord } from './api-views.ts';
import { envelopeTime } from './envelope.ts';
import { addExtraFields } from './extra-fields.ts';
import type { CoreAnswer, CoreRequest } from './exchange.ts';
import { addAll } from './request-params.ts';
import { decodeText } from './decode-text.ts';
import type { AnswerSource, Exchange } from './request-core.ts';
import { check } from './validate.ts';

/** The API's paths, with and without the real service's /api prefix. */
const API_NAMESPACE = /^(\/api)?\/v1(\/|$)/;
const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = { 'content-type': 'application/json' };

interface Routed {
  op: ApiOperation;
  validate: ValidateFunction;
}

/**
 * Creates the engine's answer source.
 *
 * @example
 *   const source = engineSource(engine, apiValidators);
 *   createRequestCore({ engine, source, faults, exchanges });
 */
export function engineSource(engine: Engine, validators: SpecValidators): AnswerSource<Routed> {
  const operations = Object.values(API_OPERATIONS) as ApiOperation[];
  // One entry per operation, each with the validator of its parameters from the spec.
  const methodsAt = new Map<string, string[]>();
  const routeList: Routed[] = [];
  for (const op of operations) {
    routeList.push({ op, validate: validators.request(op.id) });
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
    takes: (path) => API_NAMESPACE.test(path),
    route(request, exchange) {
      const path = withoutApiPrefix(exchange.path);
      // HEAD is GET without the body, as HTTP has it.
      const method = request.method === 'HEAD' ? 'GET' : request.method;
      for (const routed of routeList)
        if (routed.op.path === path && routed.op.method === method) {
          exchange.operation = routed.op.id;
          return routed;
        }
      const allowed = methodsAt.get(path);
      if (allowed) {
        throw SimulatorError.answer(
          'methodNotAllowed',
          `Method ${request.method} is not allowed on ${exchange.path}; use ${allowed.join(' or ')}.`,
          { Allow: allowed.join(', ') },
        );
      }
      throw SimulatorError.answer(
        'notFound',
        `No such path. The API is under /v1 (${API_PATHS_NAMED}); the control plane is under /_sim.`,
      );
    },
    authenticate: (request) => authenticate(engine, request.header('api-key')),
    answer(request, exchange, routed) {
      if (routed.op.method !== 'POST') return answerWith(exchange, routed, undefined);
      const read = request.bodyIfRead?.();
      if (read !== undefined || !request.hasBody)
        return answerWith(exchange, routed, formText(request, exchange, read));
      return request.body().then((bytes) => answerWith(exchange, routed, formText(request, exchange, bytes)));
    },
  };

  /** The operation's answer to the parameters of the query and, for an order, the form body. */
  function answerWith(exchange: Exchange, { op, validate }: Routed, form: string | undefined): CoreAnswer {
    const params = check<Record<string, unknown>>(validate, readParams(exchange.query, form));
    const answer = op.answer(
      engine,
      exchange.account!,
      params as ApiParams[keyof ApiParams] & Record<string, never>,
      // The core took a rejection asked for before the engine; what is left is an order's outcome.
      exchange.outcomeAsked !== undefined ? { outcome: exchange.outcomeAsked as Outcome } : undefined,
    );
    if (answer.activation) exchange.activation = true;
    const settings = engine.settings();
    const extras = settings.extraFields[op.id];
    const body = { code: answer.code, msg: answer.msg, time: envelopeTime(engine), data: answer.data };
    if (extras !== undefined && extras.length > 0) {
      const order = answer.order;
      addExtraFields(body, extras, {
        params,
        order: order && { ...orderRecord(order, settings), outOrderNo: order.outOrderNo },
        createdAtMs: order?.createdAt,
        now: engine.clock.now(),
        random: extraRandom,
      });
    }
    return { status: 200, headers: JSON_TYPE, body: JSON.stringify(body) };
  }
}

/** An order's form body as text; undefined when there is none. Any other content type is refused (415). */
function formText(
  request: CoreRequest,
  exchange: Exchange,
  bytes: Uint8Array | undefined,
): string | undefined {
  if (bytes === undefined || bytes.byteLength === 0) return undefined;
  const type = request.header('content-type');
  // The exact type, as clients send it, is told without splitting and lower-casing it.
  if (type !== FORM && type?.split(';', 1)[0]!.trim().toLowerCase() !== FORM) {
    throw SimulatorError.answer(
      'contentTypeUnsupported',
      `Unsupported content type '${type ?? 'none'}': send the parameters in the query string or as an ${FORM} body.`,
    );
  }
  return (exchange.bodyText = decodeText(bytes));
}

/**
 * The parameters of the query string and a form body in one object. A parameter given
 * twice with different values is refused: guessing which one the caller meant would hide
 * a bug in their client.
 */
function readParams(query: string | undefined, form: string | undefined): Record<string, string> {
  // No prototype: a parameter named 'toString' or '__proto__' is just a parameter.
  const params = Object.create(null) as Record<string, string>;
  if (query !== undefined) addAll(params, new URLSearchParams(query), 'query string');
  if (form !== undefined) addAll(params, new URLSearchParams(form), 'form body');
  return params;
}
