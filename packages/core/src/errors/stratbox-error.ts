import { ERROR_STATUS, type ErrorBody, type ErrorCode } from '@stratbox/contract';

/**
 * The one error class services throw. Its `code` is one of the closed set of docs/api-contract.md and
 * decides the HTTP status; `message` is safe to show to the caller; `details` is optional
 * structured data (validation problems, plan counters).
 */
export class StratboxError extends Error {
  override readonly name = 'StratboxError';
  readonly code: ErrorCode;
  readonly details: unknown;

  constructor(code: ErrorCode, message: string, details?: unknown, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.details = details;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }

  toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message, ...(this.details === undefined ? {} : { details: this.details }) } };
  }
}

export function isStratboxError(error: unknown): error is StratboxError {
  return error instanceof StratboxError;
}

/** `Strategy str_x not found`: the same answer for a missing record and another user's. */
export function notFound(kind: string, id: string): StratboxError {
  return new StratboxError('NOT_FOUND', `${kind} ${id} not found`);
}

/**
 * Turns anything thrown into a status and a body safe to send: a StratboxError keeps its code
 * and message; anything else becomes INTERNAL with no internals in the message.
 */
export function toErrorResponse(error: unknown): { status: number; body: ErrorBody } {
  if (isStratboxError(error)) return { status: error.status, body: error.toBody() };
  return { status: 500, body: { error: { code: 'INTERNAL', message: 'Internal error' } } };
}
