import { ExchangeGatewayError, type ExchangeErrorReason } from '../ports/exchange-gateway.js';

/*
 * ccxt's error classes, read by name along the prototype chain (ccxt is not imported here), and
 * what the gateway does with each:
 *
 * - `rate_limited`: RateLimitExceeded, DDoSProtection. The exchange refused the request before
 *   acting on it: wait (all gateways of the client) and send again.
 * - `refused_transient`: InvalidNonce (clock skew) and CancelPending. Not acted on: send again.
 * - `unknown`: RequestTimeout, ExchangeNotAvailable, any other NetworkError, BadResponse and
 *   errors that are not ccxt's (a response that failed to parse). For a read, send again; for
 *   createOrder the order may exist, so look it up, never send again.
 * - `duplicate`: DuplicateOrderId: an order with this client order id exists; look it up.
 * - anything else is final and becomes the `ExchangeErrorReason` given.
 */

export type CcxtErrorKind =
  | { kind: 'rate_limited' }
  | { kind: 'refused_transient' }
  | { kind: 'unknown' }
  | { kind: 'duplicate' }
  | { kind: 'final'; reason: ExchangeErrorReason };

/** The class names of an error and its ancestors (`RequestTimeout`, `NetworkError`, ...). */
export function errorClassNames(error: unknown): Set<string> {
  const names = new Set<string>();
  if (!(error instanceof Error)) return names;
  names.add(error.name);
  for (let proto = Object.getPrototypeOf(error); proto && proto !== Error.prototype; proto = Object.getPrototypeOf(proto)) {
    const ctor = (proto as { constructor?: { name?: string } }).constructor;
    if (ctor?.name) names.add(ctor.name);
  }
  return names;
}

/** What a thrown error means for the gateway; see the file comment. */
export function classifyCcxtError(error: unknown): CcxtErrorKind {
  const names = errorClassNames(error);
  const has = (name: string) => names.has(name);
  if (has('RateLimitExceeded') || has('DDoSProtection')) return { kind: 'rate_limited' };
  if (has('InvalidNonce') || has('CancelPending')) return { kind: 'refused_transient' };
  if (has('OperationFailed') || has('NetworkError')) return { kind: 'unknown' };
  if (has('DuplicateOrderId')) return { kind: 'duplicate' };
  if (!has('BaseError') && !has('ExchangeError')) return { kind: 'unknown' };
  if (has('InsufficientFunds')) return { kind: 'final', reason: 'insufficient_funds' };
  if (has('OrderNotFound')) return { kind: 'final', reason: 'order_not_found' };
  if (has('BadSymbol')) return { kind: 'final', reason: 'bad_symbol' };
  if (has('AuthenticationError') || has('AccountSuspended')) return { kind: 'final', reason: 'authentication' };
  if (has('NotSupported')) return { kind: 'final', reason: 'not_supported' };
  if (has('InvalidOrder') || has('BadRequest') || has('ArgumentsRequired')) return { kind: 'final', reason: 'invalid_order' };
  return { kind: 'final', reason: 'rejected' };
}

/** True for errors a read may simply be sent again after. */
export function isRetryable(kind: CcxtErrorKind): boolean {
  return kind.kind === 'rate_limited' || kind.kind === 'refused_transient' || kind.kind === 'unknown';
}

const MAX_DETAIL = 300;

/**
 * The error's message made safe to show: query strings of URLs removed (they carry signatures,
 * sometimes keys), every given secret replaced by `***`, the leading exchange id dropped, and
 * cut to a few hundred characters.
 */
export function safeErrorDetail(error: unknown, exchangeId: string, secrets: readonly string[]): string {
  let text = error instanceof Error ? error.message : String(error);
  text = text.replace(/(https?:\/\/[^\s?#"']+)[?#][^\s"']*/g, '$1');
  for (const secret of secrets) if (secret.length >= 4) text = text.split(secret).join('***');
  if (text.startsWith(`${exchangeId} `)) text = text.slice(exchangeId.length + 1);
  text = text.replace(/\s+/g, ' ').trim();
  return text.length > MAX_DETAIL ? `${text.slice(0, MAX_DETAIL)}...` : text;
}

const WHAT: Record<ExchangeErrorReason, string> = {
  unavailable: 'is unavailable',
  unknown_outcome: 'did not confirm the order',
  insufficient_funds: 'refused the order: insufficient funds',
  invalid_order: 'refused the request as invalid',
  bad_symbol: 'does not list the symbol',
  order_not_found: 'has no such order',
  authentication: 'refused the API key',
  not_supported: 'does not support this',
  rejected: 'refused the request',
};

/**
 * An ExchangeGatewayError for a ccxt failure. The ccxt error is not kept as `cause` (its
 * message and request may hold signed URLs); a sanitized copy is.
 */
export function toGatewayError(
  exchangeId: string,
  reason: ExchangeErrorReason,
  error: unknown,
  secrets: readonly string[],
  clientOrderId?: string,
): ExchangeGatewayError {
  const detail = safeErrorDetail(error, exchangeId, secrets);
  const className = error instanceof Error ? error.name : 'Error';
  const cause = new Error(`${className}: ${detail}`);
  return new ExchangeGatewayError(exchangeId, reason, `${exchangeId} ${WHAT[reason]}${detail ? ` (${className}: ${detail})` : ''}`, {
    cause,
    ...(clientOrderId === undefined ? {} : { clientOrderId }),
  });
}
