/**
 * The family of stand-ins as self-test targets: each member read-only and spending one
 * order, and each member with each break that applies to it, with what the suite's
 * failure must name. The gate (`npm test`) runs what fits its budget (FAMILY_GATE_TARGETS);
 * the fidelity run (`npm run test:fidelity`) runs the rest.
 */
import {
  breaksFor,
  FAMILY_BREAKS,
  FAMILY_MEMBERS,
  type FamilyMember,
} from '../contract-tests/stand-ins/family.ts';
import type { SelfTestTarget } from './contract-self-test-reporter.ts';

const SPEND = { CONTRACT_ALLOW_SPEND: '1', CONTRACT_MAX_ORDERS: '1' };

/** What each planted break's failure must name: a case and a phrase of its error. */
export const BREAK_EXPECTATIONS: Record<string, { test: RegExp; error: RegExp }> = {
  'field-removed': { test: /getPrice/, error: /\/data\/trxPrice: must have required property/ },
  'type-changed': { test: /history/, error: /\/data\/createdAt: must be integer/ },
  'number-as-string': { test: /getPrice/, error: /\/data\/rentalCount: must be integer/ },
  'wrong-rounding': {
    test: /half up|half cent up/,
    error: /trxPrice for \d+ × \d+ sun: expected '[\d.]+' to be '[\d.]+'/,
  },
  'wrong-echo': { test: /echoes outOrderNo/, error: /outOrderNo is echoed back/ },
  'auth-dropped': { test: /without an API key/, error: /the call must be rejected/ },
  // A PENDING read as COMPLETED shows either without its txId or, read again while
  // PROCESSING, as a status that went back.
  'status-skipped': {
    test: /terminal status/,
    error: /COMPLETED order carries the delegation txId|status moved from COMPLETED back to/,
  },
  'status-reversed': { test: /terminal status/, error: /status moved from COMPLETED back to PROCESSING/ },
  'txid-missing': { test: /terminal status/, error: /COMPLETED order carries the delegation txId/ },
  'minimum-ignored': { test: /below the 64000 minimum/, error: /the call must be rejected/ },
  'period-ignored': { test: /outside the seven allowed values/, error: /the call must be rejected/ },
  'name-unlike-wallet': { test: /names the account/, error: /expected 'User-000000' to be 'User-/ },
  'usdt-trimmed': { test: /names the account/, error: /USDT shows six decimals/ },
  'id-format': { test: /order/, error: /\/data\/id: must match pattern/ },
  'time-not-numeric': { test: /getPrice/, error: /\/time: must match pattern/ },
};

/** The member that combines every choice: it and its breaks run in the gate. */
export const GATE_MEMBER: FamilyMember = 'all-choices';

/**
 * Members the fidelity run takes read-only and spending but without planted breaks: the
 * rate-limited one is paced at 8 requests a second, and its choices are the plain member's.
 */
export const FIDELITY_ONLY_MEMBERS: FamilyMember[] = ['rate-limited'];

const readOnly = (member: FamilyMember): SelfTestTarget => ({
  name: `family-${member}-read-only`,
  env: { CONTRACT_VARIANT: `family-${member}` },
});
const spending = (member: FamilyMember): SelfTestTarget => ({
  name: `family-${member}-spend`,
  env: { CONTRACT_VARIANT: `family-${member}`, ...SPEND },
});

/** A break that needs no order runs read-only: no lifecycle to wait for. */
const breakTargets = (member: FamilyMember): SelfTestTarget[] =>
  breaksFor(member).map((name) => ({
    name: `family-${member}+${name}`,
    env: {
      CONTRACT_VARIANT: `family-${member}+${name}`,
      ...(FAMILY_BREAKS[name]!.needs === 'none' ? {} : SPEND),
    },
  }));

/** The planted breaks among targets, with what each failure must name. */
export const expectationsOf = (targets: SelfTestTarget[]): Record<string, { test: RegExp; error: RegExp }> =>
  Object.fromEntries(
    targets
      .filter((t) => t.name.includes('+'))
      .map((t) => [t.name, BREAK_EXPECTATIONS[t.name.split('+')[1]!]!]),
  );

/**
 * The gate's targets, within its time budget: the member that combines every choice,
 * read-only and spending, with each of its breaks; and the plain member spending.
 */
export const FAMILY_GATE_TARGETS: SelfTestTarget[] = [
  readOnly(GATE_MEMBER),
  spending(GATE_MEMBER),
  spending('plain'),
  ...breakTargets(GATE_MEMBER),
];
export const FAMILY_GATE_EXPECTATIONS = expectationsOf(FAMILY_GATE_TARGETS);

/** The fidelity run's targets: every member's runs and breaks the gate leaves out. */
export function fidelityTargets(): SelfTestTarget[] {
  const gate = new Set(FAMILY_GATE_TARGETS.map((t) => t.name));
  return FAMILY_MEMBERS.flatMap((m) => [
    readOnly(m),
    spending(m),
    ...(FIDELITY_ONLY_MEMBERS.includes(m) ? [] : breakTargets(m)),
  ]).filter((t) => !gate.has(t.name));
}
