/** The engine's interface; createEngine in engine.ts implements it. */
import type { components } from '../../src/generated/control.ts';
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
  /** Effects logged after `restore` was saved (its `logSeq`), put on it in order. */
  replay?: readonly EngineEffect[];
}

/** One change of the engine's state, told once, in order, after it is applied; each moves `version`. */
export type EngineEvent =
  /** Made; took a lifecycle step to its `status` now; or, completed, gave its energy back to the pool. */
  | { type: 'order'; change: 'created' | 'step' | 'released'; order: Order }
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
  /** The whole state was replaced: by the scenario (a reset), or by a saved snapshot (`restored`). */
  | { type: 'reset'; restored?: EngineSnapshot };

export type Supply = components['schemas']['Supply'];

export interface Engine {
  readonly clock: Clock;
  readonly seed: number;
  settings(): Settings;
  updateSettings(patch: SettingsPatch): Settings;
  /** The account of an API key, or undefined. */
  authenticate(apiKey: string): Account | undefined;
  quote(rentalCount: number, period: PeriodCode): Quote;
  /**
   * Creates an order, or returns a known outOrderNo's (`duplicate`); `outcome` forces its end as a rule
   * would. A rejection throws before anything changes.
   */
  createOrder(
    account: Account,
    input: CreateOrderInput,
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
  /** The delegations of the stored COMPLETED orders (all, or those to `to`), oldest first. */
  delegations(to?: string): Delegation[];
  /** Runs every lifecycle step due by the clock's now. */
  tick(): void;
  /** Back to the starting scenario, with the random source reseeded. */
  reset(): void;
  /** Every broken invariant; empty when the books and lifecycles are right. */
  checkInvariants(): string[];
  /** The whole state as JSON-ready data, for persistence. */
  snapshot(): EngineSnapshot;
  /** The state of now, its orders read out a chunk at a time; close it when done. */
  snapshotLater(): PendingSnapshot;
  readonly storedOrders: number;
  /** Moves by one with every event. */
  readonly version: number;
  /** Calls `listener` with every event from now on; returns the function that stops it. */
  subscribe(listener: (event: EngineEvent) => void): () => void;
  /** Calls `listener` with the effect of every change, before `subscribe`'s listeners hear it. */
  subscribeEffects(listener: (effect: EngineEffect) => void): () => void;
  /** Where changes are written first: one asked for to `write` (undone if it throws), time's to `append`. */
  writeAhead(writer: EffectWriter | undefined): void;
  /** Changes since the state began, across restores: a snapshot's `logSeq`. */
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
