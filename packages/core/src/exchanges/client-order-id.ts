import { createHash, randomBytes } from 'node:crypto';

/** What a gateway accepts as a client order id: 1 to 36 of [A-Za-z0-9_-]. */
export const CLIENT_ORDER_ID_PATTERN = /^[A-Za-z0-9_-]{1,36}$/;

/**
 * The client order id prefix of one deployment: `sbx` and 8 hex digits of a hash of its id. Every
 * order the deployment places starts with it, so reconciliation can tell the deployment's orders
 * on a shared account from others (a hand-placed order, another deployment's, another bot's).
 */
export function clientOrderPrefix(deploymentId: string): string {
  return `sbx${createHash('sha256').update(deploymentId).digest('hex').slice(0, 8)}`;
}

/**
 * A new client order id, 31 characters of [a-z0-9], which every major exchange accepts (OKX: at
 * most 32 alphanumerics; Binance and Bybit: at most 36): `sbx` and 28 hex digits (112 random
 * bits), or, with a deployment's `prefix` (`clientOrderPrefix`), that prefix and 20 hex digits
 * (80 random bits).
 */
export function newClientOrderId(prefix?: string): string {
  if (prefix === undefined) return `sbx${randomBytes(14).toString('hex')}`;
  return `${prefix}${randomBytes(10).toString('hex')}`;
}
