/** What the pipeline keeps of a request (types only): the variables the steps set and exchange.ts reads. */
import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import type { Account, SimulatorError } from '../engine/index.ts';
import type { ErrorCatalogueKind } from '../engine/settings.ts';
import type { PreferOutcome } from './prefer-outcome.ts';
import type { GuardedRequest } from './request-guard.ts';

export interface SimEnv {
  /** Set by @hono/node-server for a request that came over a socket; absent in process. */
  Bindings: {
    incoming?: IncomingMessage;
    /** The socket's Host and cross-site check (request-guard.ts), given by the Node server. */
    guard?: (request: GuardedRequest) => SimulatorError | null;
  };
  Variables: {
    /** The request is the API's: the answer source's steps run for it. */
    api: true;
    /** The body's bytes, read by the body-limit step (request-body.ts). */
    body: Uint8Array;
    operation: string;
    account: Account;
    /** What the request's `Prefer: outcome=…` asked for, once accepted. */
    outcomeAsked: PreferOutcome;
    /** The injected fault that hit the request, and what it did (ExchangeFinished's faultKind). */
    fault: string;
    faultKind: string;
    /** The order this request created activates its address. */
    activation: true;
    /** The response body as a value, for the journal; redacted before it is kept. */
    response: unknown;
    /** The response body as the text sent, kept as it is when hiding changes nothing. */
    responseText: string;
    /** Proxy mode: where the upstream's answer breaks the spec. */
    violations: { path: string; message: string }[];
    refused: string;
    /** Proxy mode: the keys (with their aliases) a copy of this exchange must not hold. */
    keys: ReadonlyArray<readonly [key: string, alias: string]>;
    /** The kind of rejection answered, for the error catalogue (settings.errors). */
    rejection: ErrorCatalogueKind;
    /** What a read of the simulated TRON node showed of its address, for coverage. */
    chain: 'delivered' | 'expired';
  };
}

export type SimContext = Context<SimEnv>;
