import { toErrorResponse, type ErrorCode, type Logger } from '@stratbox/core';

/** A server message's JSON for an error answer (`{ type: 'error', id, error }`). */
export function errorMessage(id: string | null, code: ErrorCode, message: string, details?: unknown): string {
  return JSON.stringify({ type: 'error', id, error: details === undefined ? { code, message } : { code, message, details } });
}

/** An error answer for anything thrown: a StratboxError keeps its code and message, anything else is INTERNAL and logged. */
export function thrownErrorMessage(id: string | null, error: unknown, logger: Logger, context: Record<string, unknown>): string {
  const { body } = toErrorResponse(error);
  if (body.error.code === 'INTERNAL') {
    logger.error('Unhandled error in WebSocket handler', {
      ...context,
      error: error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : String(error),
    });
  }
  return errorMessage(id, body.error.code, body.error.message, body.error.details);
}
