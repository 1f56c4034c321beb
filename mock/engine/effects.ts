/**
 * Each change of state as JSON-ready data, and how to put it back (cli/state-log.ts). An effect says
 * what the change left, never the command: a restore reseeds the random source.
 */
import { accountFromSnapshot, accountSnapshot, type Account, type AccountSnapshot } from './accounts.ts';
import type { AddressRecord } from './address-registry.ts';
import { scenarioState, type EngineState, type StateBasis } from './engine-state.ts';
import type { EngineEvent } from './engine-types.ts';
import { Order, type OrderSnapshot } from './order.ts';
import type { Rule } from './outcome-rules.ts';
import type { Settings } from './settings.ts';
import { RestoreError } from './snapshot-check.ts';

/** What one change left, numbered: `seq` counts the changes since the state began; `at` is the clock's now. */
export type EngineEffect = { seq: number; at: number } & EffectBody;

export type EffectBody =
  | {
      type: 'order';
      change: 'created' | 'step' | 'released';
      order: OrderSnapshot;
      account: AccountSnapshot;
      delegated: number;
      created: number;
    }
  | { type: 'account'; change: 'created' | 'deposit'; account: AccountSnapshot; created: number }
  | { type: 'settings'; settings: Settings }
  | { type: 'rules'; change: 'added'; rule: Rule }
  | { type: 'rules'; change: 'removed'; id: string }
  | { type: 'rules'; change: 'cleared' }
  | { type: 'supply'; energy: number | null }
  | { type: 'address'; record: AddressRecord }
  /** The oldest finished orders were evicted down to `cap`. */
  | { type: 'evicted'; cap: number }
  | { type: 'reset' }
  /** A manual clock was moved to `at`: a restart resumes from the last effect's time. */
  | { type: 'clock' };

/**
 * The effect of an event, read from the state while the event is told.
 *
 * @example
 *   engine.subscribe((event) => log(effectOf(state, event)));
 */
export function effectOf(state: EngineState, event: EngineEvent): EffectBody {
  switch (event.type) {
    case 'order':
      return {
        type: 'order',
        change: event.change,
        order: event.order.toSnapshot(),
        account: accountSnapshot(event.order.account),
        delegated: state.delegated,
        created: state.created,
      };
    case 'account':
      return {
        type: 'account',
        change: event.change,
        account: accountSnapshot(event.account),
        created: state.created,
      };
    case 'rules':
    case 'settings':
    case 'supply':
    case 'address':
      return structuredClone(event);
    case 'reset':
      return { type: 'reset' };
  }
}

/**
 * Puts one effect on a state, repeating only what follows from the state alone (a claim, a rule's use,
 * an eviction), scheduling nothing; a reset returns a new state, a misfit throws a RestoreError.
 *
 * @example
 *   state = applyEffect(basis, state, effect);
 */
export function applyEffect(basis: StateBasis, state: EngineState, effect: EffectBody): EngineState {
  switch (effect.type) {
    case 'order': {
      const saved = effect.order;
      const account = accountOf(state, saved.accountId);
      let order = state.orders.get(saved.id);
      if (!order) {
        if (effect.change !== 'created') throw new RestoreError(`order ${saved.id} is not stored`);
        // As createOrder did: the activation claim, a rule's use, then the order itself.
        if (saved.activates) state.registry.claim(saved.pledgeAddress, saved.id);
        if (saved.forced) {
          const rule = state.rules.take(saved);
          if (!rule) throw new RestoreError(`order ${saved.id} was forced by a rule, and no rule matches it`);
        }
        order = Order.fromSnapshot(account, saved);
        state.orders.add(order);
      } else {
        if (order.account !== account) throw new RestoreError(`order ${saved.id} is of another account`);
        if (effect.change === 'step' && saved.status === 'PROCESSING' && saved.activates)
          state.registry.activateClaimed(saved.pledgeAddress, saved.id, saved.processingAt);
        order.restoreProgress(saved);
      }
      setBooks(account, effect.account);
      state.delegated = effect.delegated;
      state.created = effect.created;
      return state;
    }
    case 'account': {
      if (effect.change === 'deposit') {
        setBooks(accountOf(state, effect.account.id), effect.account);
        return state;
      }
      const account = accountFromSnapshot(effect.account);
      if (account.id !== state.accounts.length + 1 || state.accountsByDigest.has(account.keyDigest))
        throw new RestoreError(`account ${account.id} does not follow the ${state.accounts.length} stored`);
      state.accountsByDigest.set(account.keyDigest, account);
      state.accounts.push(account);
      state.created = effect.created;
      return state;
    }
    case 'settings':
      state.settings = effect.settings;
      state.orders.evict(effect.settings.maxStoredOrders);
      state.registry.trim();
      return state;
    case 'rules':
      if (effect.change === 'added') state.rules.restore([...state.rules.list(), effect.rule]);
      else if (effect.change === 'removed') state.rules.remove(effect.id);
      else state.rules.clear();
      return state;
    case 'supply':
      state.supplyEnergy = effect.energy;
      return state;
    case 'address': {
      const { address, activated, activatedAt } = effect.record;
      state.registry.set(address, activated, activatedAt ?? 0);
      return state;
    }
    case 'evicted':
      state.orders.evict(effect.cap);
      return state;
    case 'reset':
      state.scheduler.clear();
      return scenarioState(basis);
    case 'clock':
      return state;
  }
}

function accountOf(state: EngineState, id: number): Account {
  const account = state.accounts[id - 1];
  if (!account) throw new RestoreError(`account ${id} is not stored`);
  return account;
}

/** The books an effect says an account has now. */
function setBooks(account: Account, saved: AccountSnapshot): void {
  if (saved.keyDigest !== account.keyDigest)
    throw new RestoreError(`account ${account.id} has another key than the one stored`);
  Object.assign(account.ledger.TRX, saved.ledger.TRX);
  Object.assign(account.ledger.USDT, saved.ledger.USDT);
  Object.assign(account.evictedSpent, saved.evictedSpent);
  account.referralCount = saved.referralCount;
}
