/**
 * The Hono routes of the API: each operation of the table (api-operations.ts) behind the
 * stages every API request passes (api-stages.ts), with its parameters read and checked
 * against the spec.
 */
import { Hono, type MiddlewareHandler } from 'hono';
import { every } from 'hono/combine';
import type { SpecValidators } from '../../src/spec/loader.ts';
import { SimulatorError, type Account, type Engine } from '../engine/index.ts';
import { API_OPERATIONS, type ApiOperation, type ApiOperationId, type ApiParams } from './api-operations.ts';
import type { ApiStage } from './api-stages.ts';
import type { SimEnv } from './context.ts';
import { sendEnvelope } from './envelope.ts';
import { readParams } from './request-params.ts';
import { check } from './validate.ts';

/**
 * The account of an API key, or the rejection both transports give.
 *
 * @example
 *   authenticate(engine, c.req.header('api-key')); // Account, or throws apiKeyMissing / apiKeyUnknown
 */
export function authenticate(engine: Engine, key: string | undefined): Account {
  if (!key)
    throw new SimulatorError(
      'apiKeyMissing',
      "Missing API key: send the account's key in the 'API-KEY' header.",
    );
  const account = engine.authenticate(key);
  if (!account)
    throw new SimulatorError(
      'apiKeyUnknown',
      "Unknown API key: the 'API-KEY' header names no account. Check the key, or create an account with POST /_sim/accounts.",
    );
  return account;
}

/** Requires a known API-KEY and puts its account on the context. */
export function requireApiKey(engine: Engine): MiddlewareHandler<SimEnv> {
  return async (c, next) => {
    c.set('account', authenticate(engine, c.req.header('api-key')));
    await next();
  };
}

/**
 * Builds the routes of the simulated API.
 *
 * @example
 *   app.route('/', apiRoutes(engine, validators, createApiStages(engine, faults)));
 */
export function apiRoutes(
  engine: Engine,
  validators: SpecValidators,
  stages: readonly ApiStage[],
): Hono<SimEnv> {
  const api = new Hono<SimEnv>();
  const [before, after] = [stages.filter((s) => !s.afterAuth), stages.filter((s) => s.afterAuth)];
  const auth = requireApiKey(engine);

  function route<Id extends ApiOperationId>(op: ApiOperation<Id>): void {
    const validate = validators.request(op.id);
    const named: MiddlewareHandler<SimEnv> = async (c, next) => {
      c.set('operation', op.id);
      await next();
    };
    // Faults come before authentication, as a broken proxy in front of the service would.
    const pipeline = every(
      named,
      ...before.map((s) => s.middleware),
      auth,
      ...after.map((s) => s.middleware),
    );
    const handler = async (c: Parameters<MiddlewareHandler<SimEnv>>[0]): Promise<Response> => {
      const params = check<ApiParams[Id]>(validate, await readParams(c, op.method === 'POST'));
      const answer = op.answer(engine, c.get('account'), params);
      return sendEnvelope(c, engine, answer.msg, answer.data(), answer.code);
    };
    if (op.method === 'POST') api.post(op.path, pipeline, handler);
    else api.get(op.path, pipeline, handler);
  }

  for (const op of Object.values(API_OPERATIONS)) route(op);
  return api;
}
