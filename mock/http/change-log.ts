/**
 * A change is acknowledged only once it is kept: a request that may change state is
 * refused while the simulator's change log (the log of effects beside `--state`,
 * cli/state-log.ts) cannot be written, and a success whose change the log failed to keep
 * meanwhile is answered 507 instead (the finishing step, exchange.ts). The engine itself
 * writes each change it is asked for before it takes effect.
 */
import type { MiddlewareHandler } from 'hono';
import { SimulatorError } from '../engine/index.ts';
import type { SimEnv } from './context.ts';

/** Where a simulator's changes are kept, as the pipeline sees it. */
export interface ChangeLog {
  /** Failed writes so far: if it moved while a request was answered, the change may not be kept. */
  readonly failures: number;
  /** Why changes cannot be kept now, after writing again what failed before; undefined when they can. */
  check(): Error | undefined;
}

/** Methods that change nothing: answered whatever the log's state. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The step that refuses a request that may change state (507) before anything changes
 * while the log cannot be written.
 *
 * @example
 *   app.use(refuseWhileUnkept(log)); // a POST on a full disk: SimulatorError('stateNotWritten')
 */
export function refuseWhileUnkept(log: ChangeLog | undefined): MiddlewareHandler<SimEnv> {
  return (c, next) => {
    const problem = log && !READS.has(c.req.method) ? log.check() : undefined;
    if (problem) throw notWritten(problem);
    return next();
  };
}

/**
 * The refusal of a change the state log could not take: the engine put it back, or it was
 * never made.
 *
 * @example
 *   throw notWritten(new Error('ENOSPC: no space left on device, write'));
 */
export function notWritten(problem: Error): SimulatorError {
  return new SimulatorError(
    'stateNotWritten',
    `Nothing was changed: the state log cannot be written (${problem.message}). Free the disk or mend --state; changes are taken again once a write succeeds.`,
  );
}

/**
 * The refusal to answer instead of a success when the log failed (its `failures` moved
 * from `before`) while a request that may change state was answered.
 *
 * @example
 *   const before = log.failures; …answer…; const refusal = afterChange(log, 'POST', before);
 */
export function afterChange(
  log: ChangeLog | undefined,
  method: string,
  before: number | undefined,
): SimulatorError | undefined {
  // A change asked for is written before it counts (the engine's writeAhead): what is left
  // is what time made meanwhile (a clock's move, a step), while it is still unwritten.
  if (!log || READS.has(method) || log.failures === before || !log.check()) return undefined;
  return notKept();
}

/**
 * The refusal of a change that stayed in memory unwritten (what time made, or a change the
 * engine could not put back): written once the disk takes it, or lost at a crash.
 */
export function notKept(): SimulatorError {
  return new SimulatorError(
    'stateNotWritten',
    'The change was made in memory but could not be written to the state log, so it is not acknowledged: it is written once the disk takes it, or lost at a crash. Read the state back (order history, GET /_sim/…) before repeating it.',
  );
}
