/** An engine's state as one object; a reset and a restore replace it whole. */
import { encodeTronAddress } from '../../src/tron-address.ts';
import { accountFromSnapshot, digestKey, generateApiKey, newAccount, type Account } from './accounts.ts';
import { createAddressRegistry, type AddressRegistry } from './address-registry.ts';
import type { Clock } from './clock.ts';
import type { AccountSeed, Scenario } from './engine-types.ts';
import { deposit } from './ledger.ts';
import { wakeAt } from './lifecycle.ts';
import { Order } from './order.ts';
import { createOrderStore, type OrderStore } from './order-store.ts';
import { createOutcomeRules, type OutcomeRules } from './outcome-rules.ts';
import { createRandomSource, type RandomSource } from './random-source.ts';
import { createScheduler, type Scheduler } from './scheduler.ts';
import { applySettings, DEFAULT_SETTINGS, type Settings } from './settings.ts';
import { SimulatorError } from './simulator-error.ts';
import type { EngineSnapshot } from './snapshot.ts';
import { refuseIfBroken, snapshotProblems } from './snapshot-check.ts';

export interface EngineState {
  random: RandomSource;
  settings: Settings;
  readonly accountsByDigest: Map<string, Account>;
  /** Every account, in the order made (an account's id is its place here, from 1). */
  readonly accounts: Account[];
  readonly registry: AddressRegistry;
  readonly orders: OrderStore;
  readonly rules: OutcomeRules;
  /** Energy the pool can have delegated at once; null is unlimited. */
  supplyEnergy: number | null;
  /** Energy that completed rentals hold now. */
  delegated: number;
  readonly scheduler: Scheduler<Order>;
  /** Accounts and orders made so far: a restore reseeds the random source by it. */
  created: number;
}

/** What every state of one engine is built from. */
export interface StateBasis {
  readonly clock: Clock;
  readonly seed: number;
  readonly scenario: Scenario;
  /** The engine's lifecycle step, called when an order is due. */
  readonly step: (order: Order) => void;
}

type StateParts = Omit<EngineState, 'accountsByDigest' | 'accounts' | 'orders' | 'scheduler'>;

/** A state of `parts`; the registry's bound reads the settings of its own state. */
function makeState(basis: StateBasis, parts: (capacity: () => number) => StateParts): EngineState {
  const made = parts(() => state.settings.maxStoredAddresses);
  const state: EngineState = {
    ...made,
    accountsByDigest: new Map(),
    accounts: [],
    orders: createOrderStore(made.registry),
    scheduler: createScheduler(basis.clock, basis.step),
  };
  return state;
}

function scenarioRules(scenario: Scenario): OutcomeRules {
  const rules = createOutcomeRules();
  for (const rule of scenario.rules ?? []) rules.add(rule);
  return rules;
}

/**
 * The state a scenario starts from: at creation, and again on every reset.
 *
 * @example
 *   const state = scenarioState({ clock, seed: 1, scenario: DEMO_SCENARIO, step });
 *   state.accountsByDigest.size; // 1
 */
export function scenarioState(basis: StateBasis): EngineState {
  const { clock, seed, scenario } = basis;
  const state = makeState(basis, (capacity) => {
    return {
      random: createRandomSource(seed),
      settings: applySettings(DEFAULT_SETTINGS, scenario.settings ?? {}),
      registry: createAddressRegistry(scenario.activatedAddresses ?? [], clock.now(), [], { capacity }),
      rules: scenarioRules(scenario),
      supplyEnergy: scenario.supply ?? null,
      delegated: 0,
      created: 0,
    };
  });
  for (const seedAccount of scenario.accounts ?? []) addAccount(state, seedAccount);
  return state;
}

/**
 * The state a snapshot of valid shape holds, its orders queued; a RestoreError when its parts disagree.
 *
 * @example
 *   const state = restoredState(basis, saved);
 *   state.orders.size; // saved.orders.length
 */
export function restoredState(basis: StateBasis, saved: EngineSnapshot): EngineState {
  refuseIfBroken(snapshotProblems(saved));
  const { clock, seed, scenario } = basis;
  const state = makeState(basis, (capacity) => {
    // The ids the scenario's rules took are not handed out again.
    const rules = scenarioRules(scenario);
    rules.restore(saved.rules);
    return {
      // Reseeded by what was created: deterministic, not identical to an uninterrupted run.
      random: createRandomSource(seed + saved.created),
      settings: applySettings(DEFAULT_SETTINGS, saved.settings),
      registry: createAddressRegistry([], clock.now(), saved.addresses, {
        capacity,
        keep: scenario.activatedAddresses ?? [],
      }),
      rules,
      supplyEnergy: saved.supply.energy,
      delegated: saved.supply.delegated,
      created: saved.created,
    };
  });
  for (const a of saved.accounts) {
    const account = accountFromSnapshot(a);
    state.accountsByDigest.set(account.keyDigest, account);
    state.accounts.push(account);
  }
  for (const o of saved.orders) state.orders.add(Order.fromSnapshot(state.accounts[o.accountId - 1]!, o));
  state.registry.trim();
  for (const order of state.orders.list()) scheduleNext(state, order);
  return state;
}

/**
 * Adds an account to a state, telling no one.
 *
 * @example
 *   const { apiKey, account } = addAccount(state, { trx: 5_000_000 });
 */
export function addAccount(
  state: EngineState,
  input: Partial<AccountSeed>,
): { apiKey: string; account: Account } {
  const apiKey = input.apiKey ?? generateApiKey();
  if (state.accountsByDigest.has(digestKey(apiKey)))
    throw new SimulatorError(
      'conflict',
      'An account with that apiKey exists already; choose another key or omit it to get a generated one.',
    );
  const account = newAccount({
    id: state.accounts.length + 1,
    keyDigest: digestKey(apiKey),
    walletAddress: encodeTronAddress(state.random.bytes(20)),
    referralCount: input.referralCount ?? 0,
  });
  state.created++;
  if (input.trx) deposit(account.ledger, 'TRX', input.trx);
  if (input.usdt) deposit(account.ledger, 'USDT', input.usdt);
  state.accountsByDigest.set(account.keyDigest, account);
  state.accounts.push(account);
  return { apiKey, account };
}

/**
 * Queues an order's next wake-up, whatever its status.
 *
 * @example
 *   scheduleNext(state, order); // PENDING: wakes at createdAt + processingAfter
 */
export function scheduleNext(state: EngineState, order: Order): void {
  const at = wakeAt(order);
  if (at !== undefined) state.scheduler.schedule(at, order);
}
