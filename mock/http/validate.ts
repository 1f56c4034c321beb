/**
 * Runs a validator compiled from the spec and turns a failure into a SimulatorError.
 */
import type { ValidateFunction } from '../../src/spec/loader.ts';
import { SimulatorError } from '../engine/index.ts';
import { describeErrors } from './validation-message.ts';

/**
 * Validates (and, for coercing validators, converts) `input`; returns the checked value.
 *
 * @example
 *   const query = check(validators.request('getPrice'), { rentalCount: '65000', period: '1h' });
 *   query.rentalCount; // 65000
 */
export function check<T>(validate: ValidateFunction, input: Record<string, unknown> | unknown, noun = 'Parameter'): T {
  const original = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
  // Coercion rewrites the object in place; keep the caller's values for the message.
  const data = typeof input === 'object' && input !== null && !Array.isArray(input) ? { ...original } : input;
  if (validate(data)) return data as T;
  const { missing, message } = describeErrors(validate.errors ?? [], original, noun);
  throw new SimulatorError(missing ? 'parameterMissing' : 'parameterInvalid', message);
}
