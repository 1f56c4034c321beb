/** Outcome rules force what happens to matching orders; they are tried in the order added. */
import type { components } from '../../src/generated/control.ts';

/** A rule as POST /_sim/rules takes it (spec/control.yaml's RuleRequest). */
export type RuleInput = components['schemas']['RuleRequest'];
/** A rule as the control plane lists it (spec/control.yaml's Rule). */
export type Rule = components['schemas']['Rule'];
export type Outcome = Rule['outcome'];

export interface OutcomeRules {
  add(input: RuleInput): Rule;
  list(): Rule[];
  remove(id: string): boolean;
  clear(): void;
  /** Replaces every rule (restoring a snapshot). */
  restore(rules: Rule[]): void;
  /** The first rule matching the order, with one of its uses taken; undefined when none. */
  take(order: { pledgeAddress: string; outOrderNo?: string | undefined }): Rule | undefined;
}

/**
 * Creates an empty rule list.
 *
 * @example
 *   const rules = createOutcomeRules();
 *   rules.add({ match: {}, outcome: 'FAILED', times: 2 }); // fails the next two orders
 */
export function createOutcomeRules(): OutcomeRules {
  let rules: Rule[] = [];
  let nextId = 1;
  return {
    add(input) {
      const rule: Rule = {
        id: `rule-${nextId++}`,
        match: { ...input.match },
        outcome: input.outcome,
        used: 0,
      };
      if (input.delayMs !== undefined) rule.delayMs = input.delayMs;
      if (input.delegationMs !== undefined) rule.delegationMs = input.delegationMs;
      if (input.times !== undefined) rule.times = input.times;
      rules.push(rule);
      return rule;
    },
    list: () => rules.map((r) => ({ ...r, match: { ...r.match } })),
    remove(id) {
      const before = rules.length;
      rules = rules.filter((r) => r.id !== id);
      return rules.length !== before;
    },
    clear() {
      rules = [];
    },
    restore(saved) {
      rules = saved.map((r) => ({ ...r, match: { ...r.match } }));
      nextId = Math.max(
        nextId,
        ...saved.map((r) => Number(r.id.replace(/^rule-/, '')) + 1).filter(Number.isFinite),
      );
    },
    take(order) {
      if (rules.length === 0) return undefined;
      const rule = rules.find(
        (r) =>
          (r.match.pledgeAddress === undefined || r.match.pledgeAddress === order.pledgeAddress) &&
          (r.match.outOrderNo === undefined || r.match.outOrderNo === order.outOrderNo),
      );
      if (!rule) return undefined;
      rule.used++;
      if (rule.times !== undefined && rule.used >= rule.times) rules = rules.filter((r) => r !== rule);
      return rule;
    },
  };
}
