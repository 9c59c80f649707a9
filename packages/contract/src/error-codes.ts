/**
 * The closed set of error codes and the HTTP status each one maps to (docs/api-contract.md, "Errors").
 * Services throw `StratboxError` with one of these codes; the HTTP adapter answers with the
 * status below; the client re-creates the error with the same code.
 */
export const ERROR_STATUS = {
  VALIDATION_FAILED: 400,
  UNAUTHENTICATED: 401,
  PLAN_LIMIT_EXCEEDED: 402,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  NOT_IMPLEMENTED: 501,
  UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

/** The HTTP status for an error code. */
export function statusForCode(code: ErrorCode): number {
  return ERROR_STATUS[code];
}
