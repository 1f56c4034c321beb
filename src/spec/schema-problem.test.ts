import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { describeSchemaProblems } from './schema-problem.ts';

const validate = new Ajv2020({ allErrors: true }).compile({
  type: 'object',
  additionalProperties: false,
  properties: { seed: { type: 'integer', minimum: 0 }, mode: { enum: ['a', 'b'] } },
});

describe('describeSchemaProblems', () => {
  it('names the one problem of a file that breaks one rule', () => {
    expect(validate({ seed: -1 })).toBe(false);
    expect(describeSchemaProblems(validate.errors ?? [], { seed: -1 })).toBe('/seed: must be >= 0 (got -1)');
  });

  it('names the first problem and counts the others', () => {
    const file = { seed: -1, mode: 'c', extra: true };
    expect(validate(file)).toBe(false);
    expect(describeSchemaProblems(validate.errors ?? [], file)).toBe("/: unknown field 'extra' (and 2 more)");
  });
});
