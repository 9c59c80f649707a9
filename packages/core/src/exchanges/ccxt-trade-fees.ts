import type { Exchange, Fee, Trade } from 'ccxt';
import { errorClassNames } from './ccxt-errors.js';
import type { ExchangeOrder } from '../ports/exchange-gateway.js';

/*
 * Some exchanges answer an order lookup without its fee: Binance's spot GET /api/v3/order has
 * none (only the order POST's answer lists the fills), and its USDT-M futures orders never carry
 * one (the commission is on the account's trades, GET /fapi/v1/userTrades). A deployment needs
 * the fee: spot fees are often taken in the base asset, which its position depends on
 * (deployments/spot-positions.ts), and realized P&L and the drift report count every fee. For
 * such an order with fills, the fee is read from its trades.
 */

/**
 * The order with the fee of its trades (`fetchOrderTrades`) when it has fills but came without a
 * fee currency; as it is otherwise, or when the trades cannot be read (the fee stays unknown,
 * which the spot position counts conservatively, and P&L as zero).
 */
export async function withTradeFees(ex: Exchange, order: ExchangeOrder): Promise<ExchangeOrder> {
  if (!(order.filledQuantity > 0) || order.feeCurrency !== null || !order.exchangeOrderId) return order;
  let trades: Trade[];
  try {
    const found = await orderTrades(ex, order.exchangeOrderId, order.symbol);
    if (found === null) return order;
    trades = found;
  } catch {
    return order;
  }
  const fees: Fee[] = trades.flatMap((t) => {
    const listed = (t as Trade & { fees?: Fee[] }).fees;
    return listed && listed.length > 0 ? listed : t.fee ? [t.fee] : [];
  });
  const currency = fees.find((f) => f?.currency)?.currency ?? null;
  if (currency === null) return order;
  const fee = fees.filter((f) => f?.currency === currency).reduce((sum, f) => sum + (Number.isFinite(Number(f?.cost)) ? Number(f?.cost) : 0), 0);
  return { ...order, fee, feeCurrency: currency };
}

/**
 * The trades of one order: `fetchOrderTrades` where ccxt offers it for the market, else (ccxt's
 * Binance offers it for spot only) the account's trades of the symbol asked by order id
 * (`fetchMyTrades` with `orderId`, as Binance's futures GET /fapi/v1/userTrades takes it), kept
 * to that order's. Null when the exchange offers neither.
 */
async function orderTrades(ex: Exchange, orderId: string, symbol: string): Promise<Trade[] | null> {
  if (ex.has['fetchOrderTrades']) {
    try {
      return await ex.fetchOrderTrades(orderId, symbol);
    } catch (error) {
      if (!errorClassNames(error).has('NotSupported')) throw error;
    }
  }
  if (!ex.has['fetchMyTrades']) return null;
  const trades = await ex.fetchMyTrades(symbol, undefined, undefined, { orderId });
  return trades.filter((t) => t.order === undefined || String(t.order) === orderId);
}
