/** The record of one HTTP exchange, handed to `onResponse`: `body` exactly as received. */
import type { OperationId } from '../models.ts';
import type { EnergyRentalError } from './energy-rental-error.ts';

export interface Exchange {
  operationId: OperationId;
  method: string;
  /** The full URL, query string included. */
  url: string;
  /** The headers sent, with the `API-KEY` value replaced by '[redacted]'. */
  requestHeaders: Record<string, string>;
  /** The form body sent, when there was one. */
  requestBody?: string;
  /** Undefined when no response arrived (network error, timeout). */
  status?: number;
  /** Header names lower-cased, as the Fetch API gives them. */
  responseHeaders?: Record<string, string>;
  /** The parsed JSON body, or its raw text when it is not JSON. */
  body?: unknown;
  /** Wall-clock time from sending to the end of the body (or the failure). */
  durationMs: number;
  /** Set when the call failed, whatever the reason. */
  error?: EnergyRentalError;
}
