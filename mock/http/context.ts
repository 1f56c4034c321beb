/**
 * What the HTTP layer keeps per request on the Hono context.
 */
import type { Account } from '../engine/index.ts';
import type { ErrorCatalogueKind } from '../engine/settings.ts';

export interface SimEnv {
  Variables: {
    /** The operationId the request was routed to, for the journal. */
    operation: string;
    /** The account of the request's API-KEY, once authenticated. */
    account: Account;
    /** The body sent, kept so the journal records it without re-parsing. */
    responseBody: unknown;
    /** The injected fault that hit the request, for the journal. */
    fault: string;
    /** Proxy mode: where the upstream's answer breaks the spec, for the journal. */
    violations: { path: string; message: string }[];
    /** Proxy mode: why the request was not forwarded, for the journal. */
    refused: string;
    /**
     * Proxy mode: the keys (with their aliases) a copy of this exchange must not hold by
     * value, the request's own API-KEY above all, which an upstream may echo.
     */
    keyEcho: ReadonlyArray<readonly [key: string, alias: string]>;
    /** The kind of rejection answered, for the error catalogue (settings.errors). */
    rejection: ErrorCatalogueKind;
    /** What a read of the simulated TRON node showed of its address, for coverage. */
    chain: 'delivered' | 'expired';
  };
}
