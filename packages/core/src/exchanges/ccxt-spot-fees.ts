import type { Exchange, Fee, Trade } from 'ccxt';
import type { ExchangeOrder } from '../ports/exchange-gateway.js';

/*
 * Spot fees are often taken in the base asset, and a spot deployment's position depends on them
 * (deployments/spot-positions.ts). Some exchanges answer an order lookup without its fee (Binance's
 * GET /api/v3/order has none; only the order POST's answer lists the fills): for such an order
 * with fills, the fee is read from its trades.
 */

/**
 * The order with the fee of its trades (`fetchOrderTrades`) when it has fills but came without a
 * fee currency; as it is otherwise, or when the trades cannot be read (the fee stays unknown,
 * which the spot position counts conservatively).
 */
export async function withSpotTradeFees(ex: Exchange, order: ExchangeOrder): Promise<ExchangeOrder> {
  if (!(order.filledQuantity > 0) || order.feeCurrency !== null || !order.exchangeOrderId || !ex.has['fetchOrderTrades']) return order;
  let trades: Trade[];
  try {
    trades = await ex.fetchOrderTrades(order.exchangeOrderId, order.symbol);
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
