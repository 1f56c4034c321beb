/**
 * Live validation of the upstream's answers in proxy mode: each violation reported once per
 * (operation, JSON path, rule); an answer that cannot be checked is a violation of its own.
 */
import { checkAnswer, compactJson } from '../../src/spec/response-check.ts';

export interface LiveValidation {
  /** The violations of one answer, the new ones reported; `keep` redacts every text. */
  check(
    operationId: string,
    status: number,
    body: unknown,
    keep?: (text: string) => string,
  ): { path: string; message: string }[];
  /** An answer that could not be checked, as one violation at its root that says why; reported once per operation and rule. */
  unchecked(
    operationId: string,
    status: number,
    why: { rule: string; message: string },
  ): { path: string; message: string }[];
  /** Violations found so far, repeats included. */
  readonly count: number;
}

/**
 * Creates the checker of one proxy run.
 *
 * @example
 *   const validation = createLiveValidation((line) => log.warn(line));
 *   validation.check('getPrice', 200, body); // [] when the answer fits the spec
 */
export function createLiveValidation(report: (line: string) => void): LiveValidation {
  const reported = new Set<string>();
  let count = 0;
  return {
    check(operationId, status, body, keep = (text) => text) {
      const violations = checkAnswer({ operationId, status, body }, { simulator: false });
      count += violations.length;
      for (const v of violations) {
        const key = `${operationId}\u0000${v.path}\u0000${v.keyword}`;
        if (reported.has(key)) continue;
        reported.add(key);
        report(
          keep(
            `spec violation: ${operationId} (HTTP ${status}) at ${v.path}: ${v.message}; expected schema ${compactJson(v.schema)}; actual value ${compactJson(v.actual)}`,
          ),
        );
      }
      return violations.map((v) => ({ path: keep(v.path), message: keep(v.message) }));
    },
    unchecked(operationId, status, why) {
      count++;
      const key = `${operationId}\u0000\u0000unchecked:${why.rule}`;
      if (!reported.has(key)) {
        reported.add(key);
        report(`spec violation: ${operationId} (HTTP ${status}): ${why.message}`);
      }
      return [{ path: '', message: why.message }];
    },
    get count() {
      return count;
    },
  };
}
