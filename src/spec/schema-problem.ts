/** An ajv error of a file the kit reads, as `JSON path: rule (got value)`: what a user needs to mend it. */
import type { ErrorObject } from 'ajv/dist/2020.js';

/**
 * Describes one error of validating `root`.
 *
 * @example
 *   describeSchemaProblem(validate.errors![0], parsed); // "/seed: must be >= 0 (got -1)"
 */
export function describeSchemaProblem(error: ErrorObject, root: unknown): string {
  const path = error.instancePath || '/';
  if (error.keyword === 'additionalProperties')
    return `${path}: unknown field '${(error.params as { additionalProperty: string }).additionalProperty}'`;
  if (error.keyword === 'required') return `${path}: ${error.message}`;
  let value: unknown = root;
  for (const segment of error.instancePath.split('/').slice(1))
    value = (value as Record<string, unknown>)?.[segment.replace(/~1/g, '/').replace(/~0/g, '~')];
  const rule =
    error.keyword === 'enum'
      ? `must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`
      : error.message;
  let got: string | undefined;
  try {
    got = JSON.stringify(value);
  } catch {
    // A value nested deeper than the stack reaches: named by its shape instead.
    got = Array.isArray(value) ? 'an array' : 'an object';
  }
  return `${path}: ${rule} (got ${got !== undefined && got.length > 40 ? `${got.slice(0, 40)}…` : got})`;
}

/**
 * The first error of validating `root`, and how many more there are: one line for a user.
 *
 * @example
 *   describeSchemaProblems(validate.errors ?? [], parsed); // "/seed: must be >= 0 (got -1) (and 2 more)"
 */
export function describeSchemaProblems(errors: readonly ErrorObject[], root: unknown): string {
  const first = errors[0] ? describeSchemaProblem(errors[0], root) : '/: does not match its schema';
  return errors.length > 1 ? `${first} (and ${errors.length - 1} more)` : first;
}
