import { ExchangeGatewayError, type ExchangeErrorReason } from '../ports/exchange-gateway.js';
import { maskSecrets } from '../util/mask-secrets.js';

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

const MAX_DETAIL = 200;

/** Fields in which exchanges put the human-readable part of an error answer. */
const MESSAGE_FIELDS = ['msg', 'message', 'retMsg', 'ret_msg', 'err_msg', 'errorMessage', 'error_description', 'sMsg', 'error'] as const;

/** The human-readable message inside a JSON error answer quoted in a ccxt error message, if any. */
function exchangeMessage(text: string): string | null {
  const open = text.indexOf('{');
  const close = text.lastIndexOf('}');
  if (open < 0 || close <= open) return null;
  let body: unknown;
  try {
    body = JSON.parse(text.slice(open, close + 1));
  } catch {
    return null;
  }
  const find = (value: unknown, depth: number): string | null => {
    if (depth > 2 || value === null || typeof value !== 'object') return null;
    if (Array.isArray(value)) return value.length > 0 ? find(value[0], depth + 1) : null;
    const record = value as Record<string, unknown>;
    for (const field of MESSAGE_FIELDS) {
      const found = record[field];
      if (typeof found === 'string' && found.trim()) return found;
      const nested = find(found, depth + 1);
      if (nested) return nested;
    }
    return find(record['data'], depth + 1);
  };
  return find(body, 0);
}

/** The HTTP status ccxt quotes in the messages of errors it raised from a status code (`GET https://... 401 Unauthorized ...`). */
function httpStatusOf(text: string): number | null {
  const match = /\b(?:GET|POST|PUT|DELETE|PATCH)\s+\S+\s+([1-5]\d\d)\b/.exec(text);
  return match ? Number(match[1]) : null;
}

/**
 * What may be shown of a ccxt error: its class, the HTTP status when ccxt names one, and (for
 * final refusals other than a refused key) the exchange's own message taken from its JSON
 * answer, with URLs' query strings removed, every echo of a secret in any encoding masked (see
 * `maskSecrets`) and cut to a couple of hundred characters. The answer's body itself never is:
 * an exchange or a proxy in front of it may echo the key in it, in any form.
 */
export function safeErrorDetail(error: unknown, reason: ExchangeErrorReason, secrets: readonly string[]): string {
  const text = error instanceof Error ? error.message : String(error);
  const className = error instanceof Error && /^[A-Za-z][A-Za-z0-9_]{0,39}$/.test(error.name) ? error.name : 'Error';
  const status = httpStatusOf(text);
  let detail = `${className}${status === null ? '' : `, HTTP ${status}`}`;
  const quoted = reason === 'authentication' || reason === 'unavailable' || reason === 'unknown_outcome' ? null : exchangeMessage(text);
  if (quoted) {
    let shown = quoted.replace(/(https?:\/\/[^\s?#"']+)[?#][^\s"']*/g, '$1');
    shown = maskSecrets(shown, secrets).replace(/\s+/g, ' ').trim();
    if (shown.length > MAX_DETAIL) shown = `${shown.slice(0, MAX_DETAIL)}...`;
    if (shown) detail += `: ${shown}`;
  }
  return detail;
}

const WHAT: Record<ExchangeErrorReason, string> = {
  unavailable: 'is unavailable',
  unknown_outcome: 'did not confirm the order',
  insufficient_funds: 'refused the order: insufficient funds',
  invalid_order: 'refused the request as invalid',
  bad_symbol: 'does not list the symbol',
  order_not_found: 'has no such order',
  authentication: "refused the API key: check the credential's key, secret and permissions",
  not_supported: 'does not support this',
  rejected: 'refused the request',
};

/**
 * An ExchangeGatewayError for a ccxt failure, with a clear message by reason (`binanceusdm
 * refused the order: insufficient funds (InsufficientFunds: Margin is insufficient.)`). The ccxt
 * error is not kept as `cause` (its message holds the exchange's answer and signed URLs); a
 * copy with the safe detail only is.
 */
export function toGatewayError(
  exchangeId: string,
  reason: ExchangeErrorReason,
  error: unknown,
  secrets: readonly string[],
  clientOrderId?: string,
): ExchangeGatewayError {
  const detail = safeErrorDetail(error, reason, secrets);
  return new ExchangeGatewayError(exchangeId, reason, `${exchangeId} ${WHAT[reason]} (${detail})`, {
    cause: new Error(detail),
    ...(clientOrderId === undefined ? {} : { clientOrderId }),
  });
}
