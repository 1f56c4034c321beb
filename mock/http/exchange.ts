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
  /** Announces one finished exchange to every listener, in the order they subscribed. */
  finish(exchange: ExchangeFinished): void;
  /** Listens to every finished exchange; answers how to stop. */
  subscribe(listener: (exchange: ExchangeFinished) => void): () => void;
}

export interface ExchangeEventsOptions {
  /** Hears what a listener throws; the other listeners are still served. */
  onListenerError?: ((error: unknown) => void) | undefined;
}

/**
 * Creates the hub of one simulator's finished exchanges: each is told to every listener
 * as it finishes, so a journal read after an answer always holds it.
 *
 * @example
 *   const exchanges = createExchangeEvents();
 *   exchanges.subscribe((x) => journal.record(x));
 *   exchanges.finish(x); // journal.record(x) has run
 */
export function createExchangeEvents(options: ExchangeEventsOptions = {}): ExchangeEvents {
  const listeners = new Set<(exchange: ExchangeFinished) => void>();
  return {
    finish(exchange) {
      for (const listener of listeners) {
        try {
          listener(exchange);
        } catch (error) {
          // A reporter that throws too must not cost the other listeners their turn.
          try {
            options.onListenerError?.(error);
          } catch {
            // Nothing left to tell it to.
          }
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/**
 * The header of an in-process answer whose connection an injected fault cut: never sent
 * over a socket (it is gone); the simulator's fetch rejects on it, as a real fetch does.
 */
export const DROPPED_HEADER = 'x-energy-sim-dropped';
/** With DROPPED_HEADER: how the connection was cut (`close`, `reset` or `garbage`), for the error the fetch rejects with. */
export const DROPPED_HOW_HEADER = 'x-energy-sim-dropped-how';
