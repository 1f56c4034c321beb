import { describe, expect, it } from 'vitest';
import { COVERAGE_FORMAT } from '../generated/lists.ts';
import { checkRequired, mergeCoverage, readCoverageFile, type CoverageFile } from './coverage-file.ts';

const file = (over: Partial<CoverageFile>): CoverageFile => ({
  format: COVERAGE_FORMAT as CoverageFile['format'],
  exercised: {},
  never: [],
  ...over,
});
const DUPLICATE = { id: 'rejection:duplicateOutOrderNo', reason: 'return-existing' };

describe('merging coverage files', () => {
  it('adds the counts up and joins the parameter names', () => {
    const merged = mergeCoverage([
      file({ exercised: { 'op:getPrice': 2 }, parameters: { getPrice: ['period'] }, unclassified: 1 }),
      file({
        exercised: { 'op:getPrice': 1, 'status:FAILED': 1 },
        parameters: { getPrice: ['rentalCount'] },
      }),
    ]);
    expect(merged.exercised).toEqual({ 'op:getPrice': 3, 'status:FAILED': 1 });
    expect(merged.parameters).toEqual({ getPrice: ['period', 'rentalCount'] });
    expect(merged.unclassified).toBe(1);
    expect(merged.never).not.toContain('op:getPrice');
    expect(merged.never).toContain('status:REFUNDED');
  });

  it('keeps an id impossible only when every file says so', () => {
    const both = mergeCoverage([file({ impossible: [DUPLICATE] }), file({ impossible: [DUPLICATE] })]);
    expect(both.impossible).toEqual([DUPLICATE]);
    expect(both.never).not.toContain(DUPLICATE.id);
    const one = mergeCoverage([file({ impossible: [DUPLICATE] }), file({})]);
    expect(one.impossible).toEqual([]);
    expect(one.never).toContain(DUPLICATE.id);
  });

  it('names what a --require misses, once each', () => {
    const merged = mergeCoverage([file({ exercised: { 'op:createOrder': 1 } })]);
    expect(checkRequired(merged, ['createOrder', 'REFUNDED', 'status:REFUNDED', 'nope'])).toEqual({
      missing: ['status:REFUNDED'],
      unresolved: [{ ok: false, name: 'nope', problem: 'unknown', candidates: [] }],
    });
  });

  it('refuses a file that breaks the format, naming the field and the rule', () => {
    expect(() => readCoverageFile({ format: COVERAGE_FORMAT, exercised: {}, never: 'x' }, 'a.json')).toThrow(
      'a.json: /never: must be array (got "x")',
    );
    expect(() => readCoverageFile([], 'b.json')).toThrow('b.json: /: must be object (got [])');
    expect(() =>
      readCoverageFile({ format: COVERAGE_FORMAT, exercised: { 'op:getPrice': 0 }, never: [] }, 'c.json'),
    ).toThrow(
      'c.json: /exercised/op:getPrice: must be >= 1 (got 0); is it a file the coverage reporter wrote, or what GET /_sim/coverage answered?',
    );
    expect(() =>
      readCoverageFile(
        { format: COVERAGE_FORMAT, exercised: {}, never: [], values: { apiKey: 'x' } },
        'd.json',
      ),
    ).toThrow("d.json: /: unknown field 'values'");
  });
});
