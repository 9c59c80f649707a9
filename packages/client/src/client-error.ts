import { ERROR_STATUS, type ErrorCode } from '@stratbox/contract';

/**
 * What every failed call throws: the API's error `code` (the same closed set the server uses),
 * the HTTP `status` (0 when the server could not be reached), the message and `details`.
 */
export class StratboxClientError extends Error {
  override readonly name = 'StratboxClientError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly status: number,
    readonly details?: unknown,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function isStratboxClientError(error: unknown): error is StratboxClientError {
  return error instanceof StratboxClientError;
}

/** The code for a status when the body is not a Stratbox error body (e.g. a proxy answered). */
export function codeForStatus(status: number): ErrorCode {
  if (status === 502 || status === 504) return 'UNAVAILABLE';
  const match = (Object.entries(ERROR_STATUS) as Array<[ErrorCode, number]>).find(([, s]) => s === status);
  return match ? match[0] : status >= 500 ? 'INTERNAL' : 'VALIDATION_FAILED';
}
