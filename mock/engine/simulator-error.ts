/** The simulator's one error type, made the error envelope by HTTP `onError`; codes are the kit's choice. */
export const ERROR_CODES = {
  apiKeyMissing: { code: 10001, status: 401 },
  apiKeyUnknown: { code: 10002, status: 401 },
  rateLimited: { code: 10003, status: 429 },
  controlUnauthorized: { code: 10004, status: 401 },
  hostNotAllowed: { code: 10005, status: 403 },
  crossSiteWrite: { code: 10006, status: 403 },
  spendRefused: { code: 10007, status: 403 },
  parameterMissing: { code: 20001, status: 400 },
  parameterInvalid: { code: 20002, status: 400 },
  bodyInvalid: { code: 20003, status: 400 },
  bodyTooLarge: { code: 20004, status: 413 },
  contentTypeUnsupported: { code: 20005, status: 415 },
  insufficientBalance: { code: 30001, status: 402 },
  duplicateOutOrderNo: { code: 30002, status: 409 },
  conflict: { code: 30003, status: 409 },
  orderNotFound: { code: 40401, status: 404 },
  notFound: { code: 40400, status: 404 },
  methodNotAllowed: { code: 40500, status: 405 },
  // Answered for Node's HTTP parser, which refuses these before a request exists.
  requestTimeout: { code: 40800, status: 408 },
  expectationFailed: { code: 41700, status: 417 },
  headersTooLarge: { code: 43100, status: 431 },
  internal: { code: 50000, status: 500 },
  upstreamUnreachable: { code: 50200, status: 502 },
  upstreamTimeout: { code: 50400, status: 504 },
  stateNotWritten: { code: 50700, status: 507 },
} as const;

export type ErrorKind = keyof typeof ERROR_CODES;

export class SimulatorError extends Error {
  readonly kind: ErrorKind;
  readonly code: number;
  readonly status: number;
  /** Extra response headers, such as Retry-After. */
  readonly headers: Record<string, string> | undefined;
  /** A finer kind for the error catalogue: a rentalCount below its minimum, or above the maximum in force. */
  reason?: 'belowMinimum' | 'aboveMaximum';
  /** The parameter a rejection of the request's parameters names, for the catalogue's `{parameter}`. */
  parameter?: string;

  constructor(kind: ErrorKind, message: string, headers?: Record<string, string>) {
    super(message);
    this.name = 'SimulatorError';
    this.kind = kind;
    this.code = ERROR_CODES[kind].code;
    this.status = ERROR_CODES[kind].status;
    this.headers = headers;
  }

  static invalidParameter(message: string): SimulatorError {
    return new SimulatorError('parameterInvalid', message);
  }
}
