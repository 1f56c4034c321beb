/**
 * The engine's interface: what it starts from, what it takes and what it tells. The
 * implementation is createEngine in engine.ts.
 */
import type { Account } from './accounts.ts';
import type { AddressRecord } from './address-registry.ts';
import type { Delegation } from './chain.ts';
import type { Clock } from './clock.ts';
import type { NextStep } from './lifecycle.ts';
import type { CreateOrderInput, Order, OrderStatusCode } from './order.ts';
import type { Outcome, OutcomeRules, Rule, RuleInput } from './outcome-rules.ts';
import type { PeriodCode, Quote } from './pricing.ts';
import type { Settings, SettingsPatch } from './settings.ts';
import type { EngineSnapshot, PendingSnapshot } from './snapshot.ts';
import type { EngineEffect } from './effects.ts';

export type { CreateOrderInput } from './order.ts';

/** An account of the starting scenario. Amounts are in smallest units. */
export interface AccountSeed {
  apiKey: string;
  trx?: number;
  usdt?: number;
  referralCount?: number;
}

/** Everything a simulator starts from, and goes back to on reset. */
export interface Scenario {
  settings?: SettingsPatch;
  accounts?: AccountSeed[];
  rules?: RuleInput[];
  activatedAddresses?: string[];
  /** Energy the pool can have delegated at once; null or absent is unlimited. */
  supply?: number | null;
}

export interface EngineOptions {
  clock: Clock;
  seed?: number;
  scenario?: Scenario;
  /** State saved by `snapshot()`, restored over the scenario at start (not on reset). */
  restore?: EngineSnapshot;
  /**
   * Effects logged after `restore` was saved (its `logSeq`), put on it in order before any
   * due step runs; those it holds already are skipped.
   */
  replay?: readonly EngineEffect[];
}

/**
 * One change of the engine's state, told after it is applied. Every change is told, each
 * exactly once and in the order it happened, and each moves `version` by one: a listener
 * sees the whole history of a run (live views, a saver, a log of effects).
 */
export type EngineEvent =
  /** An order was made, its amount frozen on its account's books; the Order holds what it was made with. */
  | { type: 'order'; change: 'created'; order: Order }
  /**
   * An order took a lifecycle step, to its `status` now: PROCESSING (activating its address
   * when it claimed that, taking supply), COMPLETED (its amount spent), FAILED, REFUNDED
   * (its amount released on its account's books).
   */
  | { type: 'order'; change: 'step'; order: Order }
  /** A completed rental of a limited supply ended: its energy went back to the pool. */
  | { type: 'order'; change: 'released'; order: Order }
  | { type: 'account'; change: 'created'; account: Account }
  /** Smallest units booked to each currency of the account (0 when none). */
  | { type: 'account'; change: 'deposit'; account: Account; trx: number; usdt: number }
  /** The settings now; orders and addresses past a lowered bound were evicted with it. */
  | { type: 'settings'; settings: Settings }
  | { type: 'rules'; change: 'added'; rule: Rule }
  | { type: 'rules'; change: 'removed'; id: string }
  | { type: 'rules'; change: 'cleared' }
  | { type: 'supply'; energy: number | null }
  | { type: 'address'; record: AddressRecord }
  /**
   * The whole state was replaced: by the starting scenario (a reset), or by a saved
   * snapshot (`restored`, at creation). Nothing of the state before is left.
   */
  | { type: 'reset'; restored?: EngineSnapshot };

export interface Supply {
  energy: number | null;
  delegated: number;
}

export interface Engine {
  readonly clock: Clock;
  readonly seed: number;
  settings(): Settings;
  updateSettings(patch: SettingsPatch): Settings;
  /** The account of an API key, or undefined. */
  authenticate(apiKey: string): Account | undefined;
  quote(rentalCount: number, period: PeriodCode): Quote;
  /**
   * Creates an order, or returns the existing one for a known outOrderNo (`duplicate: true`).
   * A rejection (a duplicate refused, a balance that cannot pay) throws a SimulatorError
   * before anything changes: no money frozen, nothing drawn from the random source, no
   * event, no new version.
   */
  createOrder(
    account: Account,
    input: CreateOrderInput,
    /** `outcome` forces how this one order ends, as a rule would, without using up a rule. */
    options?: { outcome?: Outcome | undefined },
  ): { order: Order; duplicate: boolean };
  /** Finds an order of this account; with both identifiers, `settings.historyPrefers` names the one that wins. */
  findOrder(account: Account, ref: { orderId?: string | undefined; outOrderNo?: string | undefined }): Order;
  createAccount(input?: Partial<AccountSeed>): { apiKey: string; account: Account };
  deposit(account: Account, amounts: { trx?: number; usdt?: number }): Account;
  accounts(): Account[];
  orders(account: Account, filter?: { status?: OrderStatusCode; limit?: number }): Order[];
  /** The next scheduled step of an open order. */
  nextStep(order: Order): NextStep | undefined;
  readonly rules: Pick<OutcomeRules, 'add' | 'list' | 'remove' | 'clear'>;
  supply(): Supply;
  setSupply(energy: number | null): Supply;
  address(address: string): AddressRecord;
  setAddress(address: string, activated: boolean): AddressRecord;
  addresses(): AddressRecord[];
  /** The delegations of the stored COMPLETED orders (all, or those to `to`), oldest first: chain.ts derives the chain from them. */
  delegations(to?: string): Delegation[];
  /** Runs every lifecycle step due by the clock's now. */
  tick(): void;
  /** Back to the starting scenario, with the random source reseeded. */
  reset(): void;
  /** Every broken invariant; empty when the books and lifecycles are right. */
  checkInvariants(): string[];
  /** The whole state as JSON-ready data, for persistence. */
  snapshot(): EngineSnapshot;
  /**
   * The state of now, with the orders handed out a chunk at a time, so a large state can
   * be written without holding the event loop; later changes do not show in it. Close it
   * when done.
   */
  snapshotLater(): PendingSnapshot;
  /** How many orders are stored now (eviction keeps it at most `maxStoredOrders` when it can). */
  readonly storedOrders: number;
  /** Moves by one with every event, so with every change of state; a saver skips writing when it has not moved. */
  readonly version: number;
  /** Calls `listener` with every event from now on; returns the function that stops it. */
  subscribe(listener: (event: EngineEvent) => void): () => void;
  /**
   * Calls `listener` with the effect of every change from now on, as JSON-ready data, each
   * before the change is told to `subscribe`'s listeners: what a log of effects appends.
   * Returns the function that stops it.
   */
  subscribeEffects(listener: (effect: EngineEffect) => void): () => void;
  /**
   * Sets where each change is written before it takes effect (a log of effects). A change
   * asked for (an order with the steps it made due, an account, a deposit, a rule, the
   * settings, the supply, an address) goes to `write` whole; when that throws, the state
   * is put back to what `readBack` gives, as a restart would, and the error is thrown to
   * the caller: nothing changed. What time made (a lifecycle step, a clock's move, a
   * reset) goes to `append`. Undefined stops it.
   */
  writeAhead(writer: EffectWriter | undefined): void;
  /** Changes since the state began, across restores: the number of the last effect, and a snapshot's `logSeq`. */
  readonly seq: number;
}

/** A log of effects as the engine writes to it (Engine.writeAhead). */
export interface EffectWriter {
  /** Writes the effects of one change whole, or throws and keeps none of them. */
  write(effects: readonly EngineEffect[]): void;
  /** Writes an effect of time's, or keeps it to write before the next. */
  append(effect: EngineEffect): void;
  /** What a restart would read now: the state saved, and the changes written or kept after it. */
  readBack(): { saved: EngineSnapshot | undefined; effects: readonly EngineEffect[] };
}
