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
export function check<T>(
  validate: ValidateFunction,
  input: Record<string, unknown> | unknown,
  noun = 'Parameter',
): T {
  const original = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
  // Coercion rewrites the object in place; keep the caller's values for the message.
  const data = typeof input === 'object' && input !== null && !Array.isArray(input) ? { ...original } : input;
  if (validate(data)) {
    const name = nonFinite(data as Record<string, unknown>);
    if (name !== undefined) {
      const error = new SimulatorError(
        'parameterInvalid',
        `${noun} '${name}' must be a finite number (got '${String(original[name])}').`,
      );
      error.parameter = name;
      throw error;
    }
    return data as T;
  }
  const { missing, message, belowMinimum, parameter } = describeErrors(validate.errors ?? [], original, noun);
  const error = new SimulatorError(missing ? 'parameterMissing' : 'parameterInvalid', message);
  if (belowMinimum) error.reason = 'belowMinimum';
  if (parameter !== undefined) error.parameter = parameter;
  throw error;
}

/**
 * The first parameter holding a non-finite number. Coercion reads 'Infinity' and '1e400'
 * as Infinity, which ajv's integer and range checks let through; no parameter of either
 * document accepts a non-finite number.
 */
function nonFinite(data: Record<string, unknown>): string | undefined {
  for (const name in data) {
    const value = data[name];
    if (typeof value === 'number' && !Number.isFinite(value)) return name;
  }
  return undefined;
}
