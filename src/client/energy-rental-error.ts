/** The one error type of the client: callers branch on `kind`, `status` or `code`, not on classes. */
import type { OperationId } from '../models.ts';

/**
 * How a call failed:
 * - `network`: fetch rejected, or the body could not be read;
 * - `timeout`: no complete response within the client's `timeoutMs` (or, from
 *   `waitForOrder`, no terminal status within its `timeoutMs`);
 * - `invalid-body`: a 2xx body that is not JSON, or not an envelope `{ code, msg, time, data }`;
 * - `http`: a non-2xx status (with `code` and `msg` when the body is an envelope);
 * - `api`: a 2xx envelope whose `code` is not a success.
 */
export type EnergyRentalErrorKind = 'network' | 'timeout' | 'invalid-body' | 'http' | 'api';

/** What an {@link EnergyRentalError} carries besides its message. */
export interface EnergyRentalErrorDetails {
  /** The operationId of the failed call, `waitForOrder` for a polling deadline, `waitForEnergy` for a TRON node read or its deadline. */
  operation: OperationId | 'waitForOrder' | 'waitForEnergy';
  kind: EnergyRentalErrorKind;
  /** HTTP status, when a response arrived. */
  status?: number;
  /** The envelope's `code`, when the body was an envelope. */
  code?: number;
  /** The envelope's `msg`, when the body was an envelope. */
  msg?: string;
  /** Seconds to wait, from a `Retry-After` header. */
  retryAfter?: number;
  /** The parsed body, or its raw text when it is not JSON. */
  body?: unknown;
  cause?: unknown;
}

/**
 * A failed call of the Energy Rental API.
 *
 * @example
 *   try {
 *     await client.getPrice({ rentalCount: 65000, period: '1h' });
 *   } catch (error) {
 *     if (error instanceof EnergyRentalError && error.status === 429) {
 *       await sleep((error.retryAfter ?? 1) * 1000);
 *     }
 *   }
 */
export class EnergyRentalError extends Error {
  override readonly name = 'EnergyRentalError';
  readonly operation: EnergyRentalErrorDetails['operation'];
  readonly kind: EnergyRentalErrorKind;
  readonly status?: number;
  readonly code?: number;
  readonly msg?: string;
  readonly retryAfter?: number;
  readonly body?: unknown;

  /** `reason` completes the sentence "<operation> failed: <reason>". */
  constructor(reason: string, details: EnergyRentalErrorDetails) {
    super(`${details.operation} failed: ${reason}`, { cause: details.cause });
    this.operation = details.operation;
    this.kind = details.kind;
    this.status = details.status;
    this.code = details.code;
    this.msg = details.msg;
    this.retryAfter = details.retryAfter;
    this.body = details.body;
  }
}
