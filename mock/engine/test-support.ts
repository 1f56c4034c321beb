/** Helpers shared by the engine's tests. */
import { SimulatorError } from './simulator-error.ts';

/** Runs `run` and returns the SimulatorError it throws; fails when it throws nothing or something else. */
export function rejection(run: () => unknown): SimulatorError {
  try {
    run();
  } catch (error) {
    if (error instanceof SimulatorError) return error;
    throw error;
  }
  throw new Error('expected a SimulatorError, but nothing was thrown');
}
