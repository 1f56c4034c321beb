/**
 * A change is acknowledged only once it is kept: the request core and the control plane
 * ask the simulator's change log (the log of effects beside `--state`, cli/state-log.ts)
 * before a request that may change state, and look at it again before answering. The
 * engine itself writes each change it is asked for before it takes effect.
 */
import { SimulatorError } from '../engine/index.ts';

/** Where a simulator's changes are kept, as the request core and the control plane see it. */
export interface ChangeLog {
  /** Failed writes so far: if it moved while a request was answered, the change may not be kept. */
  readonly failures: number;
  /** Why changes cannot be kept now, after writing again what failed before; undefined when they can. */
  check(): Error | undefined;
}

/** Methods that change nothing: answered whatever the log's state. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * For a request that may change state: refuses it (507) before anything changes while the
 * log cannot be written, else returns the failure count to compare after the answer.
 *
 * @example
 *   const before = beforeChange(log, 'POST'); // throws SimulatorError('stateNotWritten') on a full disk
 *   …answer…
 *   const refusal = afterChange(log, before);   // a 507 to answer instead of a success, or undefined
 */
export function beforeChange(log: ChangeLog | undefined, method: string): number | undefined {
  if (!log || READS.has(method)) return undefined;
  const problem = log.check();
  if (problem) throw notWritten(problem);
  return log.failures;
}

/**
 * The refusal of a change the state log could not take: the engine put it back, or it was
 * never made.
 *
 * @example
 *   throw notWritten(new Error('ENOSPC: no space left on device, write'));
 */
export function notWritten(problem: Error): SimulatorError {
  return SimulatorError.answer(
    'stateNotWritten',
    `Nothing was changed: the state log cannot be written (${problem.message}). Free the disk or mend --state; changes are taken again once a write succeeds.`,
  );
}

/** The refusal to answer instead of a success when the log failed while the request was answered. */
export function afterChange(
  log: ChangeLog | undefined,
  before: number | undefined,
): SimulatorError | undefined {
  // A change asked for is written before it counts (the engine's writeAhead): what is left
  // is what time made meanwhile (a clock's move, a step), while it is still unwritten.
  if (!log || before === undefined || log.failures === before || !log.check()) return undefined;
  return notKept();
}

/**
 * The refusal of a change that stayed in memory unwritten (what time made, or a change the
 * engine could not put back): written once the disk takes it, or lost at a crash.
 */
export function notKept(): SimulatorError {
  return SimulatorError.answer(
    'stateNotWritten',
    'The change was made in memory but could not be written to the state log, so it is not acknowledged: it is written once the disk takes it, or lost at a crash. Read the state back (order history, GET /_sim/…) before repeating it.',
  );
}
