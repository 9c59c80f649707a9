import type { Exchange } from 'ccxt';
import type { ExchangeOrder } from '../ports/exchange-gateway.js';
import { toExchangeOrder } from './ccxt-mapping.js';

/**
 * The account's private order stream through ccxt's pro class (`watchOrders`), where the instance
 * has one (`has.watchOrders`, e.g. `ccxt.pro.binanceusdm`); null otherwise (a REST-only class,
 * an exchange without it). Each call resolves with the orders that changed since the previous
 * call (ccxt's `newUpdates`), mapped to core's type, and rejects when the connection fails or
 * drops: the caller then falls back to REST and calls again to reconnect. Only orders are
 * watched: the position and balance snapshots ccxt would otherwise fetch alongside are turned
 * off (their promises would reject unheard when the stream drops).
 */
export function ccxtOrderWatch(ex: Exchange): ((symbol?: string) => Promise<ExchangeOrder[]>) | null {
  const has = ex.has['watchOrders'] === true;
  const watch = (ex as { watchOrders?: unknown }).watchOrders;
  if (!has || typeof watch !== 'function') return null;
  let prepared: Promise<void> | undefined;
  const prepare = async () => {
    ex.options['watchPositions'] = { ...(ex.options['watchPositions'] as object | undefined), fetchPositionsSnapshot: false };
    ex.options['watchBalance'] = { ...(ex.options['watchBalance'] as object | undefined), fetchBalanceSnapshot: false };
    // A stream at a ws:// address (a local double) needs ccxt's plain HTTP agent, loaded once.
    const loadAgent = (ex as { loadHttpProxyAgent?: () => Promise<unknown> }).loadHttpProxyAgent;
    if (typeof loadAgent === 'function') await loadAgent.call(ex);
  };
  return async (symbol) => {
    prepared ??= prepare();
    await prepared;
    const orders = await ex.watchOrders(symbol);
    return orders.map((o) => toExchangeOrder(o));
  };
}
