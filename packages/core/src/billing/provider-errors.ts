import { StratboxError, isStratboxError } from '../errors/stratbox-error.js';
import type { Logger } from '../ports/logger.js';

/** The one message a caller sees when the payment provider fails: no internals. */
export const PROVIDER_UNAVAILABLE_MESSAGE = 'The payment provider is unavailable; try again later';

/**
 * Runs a provider call; any failure (network, 5xx, rate limit, refused request) becomes
 * `StratboxError('UNAVAILABLE')` (503). The provider's own error is logged (type, status,
 * code, request id; never keys) and kept as `cause`.
 */
export async function providerCall<T>(logger: Logger | undefined, operation: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (isStratboxError(error)) throw error;
    const e = error as { type?: unknown; statusCode?: unknown; code?: unknown; requestId?: unknown; message?: unknown };
    logger?.warn('Payment provider call failed', {
      operation,
      type: typeof e.type === 'string' ? e.type : undefined,
      statusCode: typeof e.statusCode === 'number' ? e.statusCode : undefined,
      code: typeof e.code === 'string' ? e.code : undefined,
      requestId: typeof e.requestId === 'string' ? e.requestId : undefined,
      message: typeof e.message === 'string' ? e.message.slice(0, 300) : undefined,
    });
    throw new StratboxError('UNAVAILABLE', PROVIDER_UNAVAILABLE_MESSAGE, undefined, { cause: error });
  }
}
