import type { Fee, Market, Order, Position } from 'ccxt';
import type { CreateOrderRequest, ExchangeMarket, ExchangeOrder, ExchangeOrderStatus, ExchangeOrderType, ExchangePosition } from '../ports/exchange-gateway.js';

/* ccxt's unified structures to core's types. ccxt is a type import only. */

const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);
const iso = (ms: unknown): string | null => {
  const n = num(ms);
  return n === null ? null : new Date(n).toISOString();
};

/** ccxt's status and fill to ours: an open order with fills is partially filled; expired is cancelled. */
function toStatus(status: string | undefined, filled: number): ExchangeOrderStatus {
  switch (status) {
    case 'closed':
      return 'filled';
    case 'canceled':
    case 'cancelled':
    case 'expired':
      return 'cancelled';
    case 'rejected':
      return 'rejected';
    default:
      return filled > 0 ? 'partially_filled' : 'open';
  }
}

/** ccxt's order type (`market`, `limit`, `stop_market`, `STOP`, ...) and trigger price to ours. */
function toType(type: string | undefined, triggerPrice: number | null, requested?: ExchangeOrderType): ExchangeOrderType {
  const t = (type ?? '').toLowerCase();
  if (t.includes('stop') || (triggerPrice !== null && t !== 'limit')) return 'stop';
  if (t === 'limit') return 'limit';
  if (t === 'market') return 'market';
  return requested ?? 'market';
}

/**
 * One ccxt order in core's types. Fields the exchange left out (some answer createOrder with
 * little more than the id) are taken from `request` when given.
 */
export function toExchangeOrder(order: Order, request?: CreateOrderRequest): ExchangeOrder {
  const filled = num(order.filled) ?? 0;
  const trigger = num(order.triggerPrice) ?? num(order.stopPrice) ?? num(order.stopLossPrice) ?? null;
  const type = toType(order.type ?? undefined, trigger, request?.type);
  const quantity = num(order.amount) ?? request?.quantity ?? 0;
  const cost = num(order.cost);
  const average =
    num(order.average) ?? (filled > 0 && cost !== null && cost > 0 ? cost / filled : null) ?? (filled > 0 && type === 'market' ? num(order.price) : null);
  // ccxt fills `fees` (every fee) as well as `fee` (the first), though its type lists only `fee`.
  const listed = (order as Order & { fees?: Fee[] }).fees;
  const fees: Fee[] = listed && listed.length > 0 ? listed : order.fee ? [order.fee] : [];
  const feeCurrency = fees.find((f) => f?.currency)?.currency ?? null;
  const fee = fees.filter((f) => (f?.currency ?? null) === feeCurrency).reduce((sum, f) => sum + (num(f?.cost) ?? 0), 0);
  return {
    exchangeOrderId: String(order.id ?? ''),
    clientOrderId: order.clientOrderId ?? request?.clientOrderId ?? null,
    symbol: order.symbol ?? request?.symbol ?? '',
    side: order.side === 'sell' || order.side === 'buy' ? order.side : (request?.side ?? 'buy'),
    type,
    status: toStatus(order.status ?? undefined, filled),
    quantity,
    price: type === 'limit' ? (num(order.price) ?? request?.price ?? null) : null,
    stopPrice: type === 'stop' ? (trigger ?? request?.stopPrice ?? null) : null,
    reduceOnly: typeof order.reduceOnly === 'boolean' ? order.reduceOnly : (request?.reduceOnly ?? false),
    filledQuantity: filled,
    averagePrice: average,
    fee,
    feeCurrency,
    createdAt: iso(order.timestamp),
    updatedAt: iso(order.lastUpdateTimestamp ?? order.lastTradeTimestamp ?? order.timestamp),
  };
}

/** ccxt's precision modes (`exchange.precisionMode`) that say how to read `market.precision`. */
const DECIMAL_PLACES = 2;
const TICK_SIZE = 4;

/** A precision value as a step: a tick size as it is, a number of decimals as 10^-n. */
function toStep(value: unknown, precisionMode: number): number | null {
  const n = num(value);
  if (n === null) return null;
  if (precisionMode === TICK_SIZE) return n;
  if (precisionMode === DECIMAL_PLACES) return 10 ** -n;
  return null;
}

/** A ccxt market in core's types; `precisionMode` is the exchange's `precisionMode`. */
export function toExchangeMarket(market: NonNullable<Market>, precisionMode: number): ExchangeMarket {
  const type = market.type === 'spot' || market.type === 'swap' || market.type === 'future' || market.type === 'option' ? market.type : 'spot';
  return {
    symbol: market.symbol,
    base: market.base,
    quote: market.quote,
    settle: market.settle ?? null,
    type,
    linear: type === 'spot' ? null : (market.linear ?? null),
    contractSize: type === 'spot' ? null : (num(market.contractSize) ?? null),
    amountStep: toStep(market.precision?.amount, precisionMode),
    priceStep: toStep(market.precision?.price, precisionMode),
    minQuantity: num(market.limits?.amount?.min),
    minCost: num(market.limits?.cost?.min),
    active: market.active !== false,
  };
}

/** A ccxt position in core's types, or null for a flat one. */
export function toExchangePosition(position: Position): ExchangePosition | null {
  const contracts = Math.abs(num(position.contracts) ?? 0);
  if (!(contracts > 0) || !position.symbol) return null;
  return {
    symbol: position.symbol,
    side: position.side === 'short' ? 'short' : 'long',
    quantity: contracts,
    entryPrice: num(position.entryPrice),
    markPrice: num(position.markPrice),
    unrealizedPnl: num(position.unrealizedPnl),
    leverage: num(position.leverage),
    liquidationPrice: num(position.liquidationPrice),
  };
}
