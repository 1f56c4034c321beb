/**
 * The stages every API request passes before its operation runs, in order. Each says
 * when it has nothing to do (`idle`): the Node fast path, which runs none of them, takes
 * a request only while every stage is idle, and declines otherwise. A stage added without
 * `idle` is never idle, so the fast path declines every request rather than skip it.
 */
import type { MiddlewareHandler } from 'hono';
import type { Engine } from '../engine/index.ts';
import type { SimEnv } from './context.ts';
import type { FaultInjector } from './fault-injector.ts';
import { injectFaults } from './inject-faults.ts';
import { rateLimit } from './rate-limit.ts';

export interface ApiStage {
  readonly name: string;
  readonly middleware: MiddlewareHandler<SimEnv>;
  /** Runs after authentication (it needs the account); before it otherwise. */
  readonly afterAuth?: boolean;
  /** True while the stage would only call `next()`; absent means never. */
  readonly idle?: () => boolean;
}

/**
 * The API's stages: injected faults (before authentication, as a broken proxy in front
 * of the service would), then the per-key rate limit.
 *
 * @example
 *   const stages = createApiStages(engine, faults);
 *   stages.every((s) => s.idle?.() ?? false); // true when the fast path may answer
 */
export function createApiStages(engine: Engine, faults: FaultInjector): ApiStage[] {
  return [
    { name: 'faults', middleware: injectFaults(faults, engine), idle: () => !faults.active },
    {
      name: 'rate-limit',
      middleware: rateLimit(engine),
      afterAuth: true,
      idle: () => !engine.settings().rateLimit,
    },
  ];
}

/**
 * Whether every stage is idle now, so a transport that runs none of them answers as the
 * full pipeline would.
 *
 * @example
 *   if (!allIdle(stages)) return false; // the fast path hands the request to Hono
 */
export function allIdle(stages: readonly ApiStage[]): boolean {
  for (const stage of stages) if (!stage.idle?.()) return false;
  return true;
}
