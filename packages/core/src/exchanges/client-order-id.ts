import { randomBytes } from 'node:crypto';

/** What a gateway accepts as a client order id: 1 to 36 of [A-Za-z0-9_-]. */
export const CLIENT_ORDER_ID_PATTERN = /^[A-Za-z0-9_-]{1,36}$/;

/**
 * A new client order id: `sbx` and 28 hex digits (112 random bits), 31 characters of
 * [a-z0-9], which every major exchange accepts (OKX: at most 32 alphanumerics; Binance and
 * Bybit: at most 36).
 */
export function newClientOrderId(): string {
  return `sbx${randomBytes(14).toString('hex')}`;
}
