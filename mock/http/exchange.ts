/**
 * The shapes every transport and the request core share: a request as plain fields (no
 * WHATWG Request, no Node message), an answer as plain fields, and the record of one
 * finished exchange that observers (the journal, and through it the dashboard, the live
 * events and request logs) hear. Plain objects, so that the Node transport builds no
 * Request or Response on the hot path, and the in-process and MSW transports build them
 * only at their edge.
 */
import type { components } from '../../src/generated/control.ts';

/** A request as the core reads it. */
export interface CoreRequest {
  /** Upper case, as sent. */
  readonly method: string;
  /** The request target as sent: the path and the query (origin form). */
  readonly target: string;
  /** A header by its lower-case name; undefined when absent. */
  header(name: string): string | undefined;
  /** Whether the request declared a body (a Content-Length or a Transfer-Encoding). */
  readonly hasBody: boolean;
  /**
   * The body's bytes, read once up to the simulator's limit: past it the promise rejects
   * with a `bodyTooLarge` SimulatorError (413). Empty when none was sent.
   */
  body(): Promise<Uint8Array>;
  /** The body's bytes once `body()` has read them; undefined before (or when it failed). */
  bodyIfRead?(): Uint8Array | undefined;
  /** The connection it came on, for what may be kept per connection; undefined in process. */
  readonly connection?: object | undefined;
  /** When it arrived (performance.now()). */
  readonly started: number;
  /**
   * Whether its observers may hear it at the end of the event-loop turn rather than before
   * its answer resolves: a server's requests, whose callers are in other processes or see
   * the answer a turn later anyway. In-process callers (`sim.fetch`, MSW) leave it unset,
   * so a journal listener has heard an exchange once its answer is back.
   */
  readonly observeLater?: boolean;
}

/** An answer as the core gives it; a transport writes it. */
export interface CoreAnswer {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  /** JSON text, bytes, or nothing. */
  body: string | Uint8Array | null;
  /** An injected fault cut the connection (its id): a socket is destroyed, an in-process fetch rejects. */
  dropped?: string | undefined;
  /** How a dropped connection is cut: closed (absent), reset (a TCP RST), or these bytes sent first. */
  cut?: 'reset' | Uint8Array | undefined;
  /** An injected slow drip: the body goes in `chunks` pieces spread over `ms` (real time). */
  drip?: { chunks: number; ms: number } | undefined;
}

/** One finished exchange as its observers hear it (spec/control.yaml's ExchangeFinished). */
export type ExchangeFinished = components['schemas']['ExchangeFinished'];

/** Where exchanges are announced once finished. */
export interface ExchangeEvents {
  /**
   * Announces one finished exchange to every listener: at once, after any still pending,
   * or with `later`, at the end of the event-loop turn (see createExchangeEvents).
   */
  finish(exchange: ExchangeFinished, later?: boolean): void;
  /** Listens to every finished exchange; answers how to stop. */
  subscribe(listener: (exchange: ExchangeFinished) => void): () => void;
  /**
   * Hands every exchange finished so far to the listeners now. Whatever reads what the
   * listeners keep (the journal, the call counts) calls it first, so it never sees less
   * than every exchange answered before it.
   */
  flush(): void;
}

export interface ExchangeEventsOptions {
  /** Hears what a listener throws; the other listeners and exchanges are still served. */
  onListenerError?: ((error: unknown) => void) | undefined;
}

/**
 * Exchanges kept at most before they are handed over at once, whatever the turn: bounds
 * what a burst holds and how late a listener hears it.
 */
export const MAX_PENDING_EXCHANGES = 256;

/** The next macrotask: setImmediate where the runtime has it (Node), a zero timeout elsewhere. */
const nextTurn: (run: () => void) => void =
  typeof globalThis.setImmediate === 'function'
    ? (run) => void globalThis.setImmediate(run)
    : (run) => void setTimeout(run, 0);

/**
 * Creates the hub of one simulator's finished exchanges. Listeners hear them in order. An
 * exchange finished `later` (a server's) waits for the end of the event-loop turn that
 * answered it, or for a reader's flush, or for an exchange finished at once: a busy server
 * answers every request of a turn before it journals and counts them, and the observers'
 * code and data stay warm over the batch. Handing over each as it finished cost an order
 * ~4.5 µs more CPU in `npm run bench` (bench/README.md).
 *
 * @example
 *   const exchanges = createExchangeEvents();
 *   exchanges.subscribe((x) => journal.record(x));
 *   exchanges.finish(x, true);
 *   exchanges.flush(); // journal.record(x) has run
 */
export function createExchangeEvents(options: ExchangeEventsOptions = {}): ExchangeEvents {
  const listeners = new Set<(exchange: ExchangeFinished) => void>();
  let pending: ExchangeFinished[] = [];
  let scheduled = false;
  let flushing = false;

  function flush(): void {
    // A listener that reads (and so flushes) while a batch is handed over: the batch under
    // way goes on in order.
    if (flushing || pending.length === 0) return;
    flushing = true;
    try {
      // Exchanges finished by a listener meanwhile make the next batch.
      while (pending.length > 0) {
        const batch = pending;
        pending = [];
        // One listener over the whole batch, then the next: each still hears every exchange
        // in order, with its own code and data warm.
        for (const listener of listeners)
          for (const exchange of batch) {
            try {
              listener(exchange);
            } catch (error) {
              // A reporter that throws too must not cost the rest of the batch its turn.
              try {
                options.onListenerError?.(error);
              } catch {
                // Nothing left to tell it to.
              }
            }
          }
      }
    } finally {
      flushing = false;
    }
  }

  return {
    finish(exchange, later = false) {
      pending.push(exchange);
      if (!later || pending.length >= MAX_PENDING_EXCHANGES) flush();
      else if (!scheduled) {
        scheduled = true;
        nextTurn(() => {
          scheduled = false;
          flush();
        });
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    flush,
  };
}

/**
 * The header of an in-process answer whose connection an injected fault cut: never sent
 * over a socket (it is gone); the simulator's fetch rejects on it, as a real fetch does.
 */
export const DROPPED_HEADER = 'x-energy-sim-dropped';
/** With DROPPED_HEADER: how the connection was cut (`close`, `reset` or `garbage`), for the error the fetch rejects with. */
export const DROPPED_HOW_HEADER = 'x-energy-sim-dropped-how';
