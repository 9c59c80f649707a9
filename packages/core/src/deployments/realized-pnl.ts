import type { OrderRecord } from '../ports/store.js';

export interface SymbolPnl {
  symbol: string;
  /** Closed P&L of the fills (average cost), less every fee they paid. */
  realizedPnl: number;
  fees: number;
  /** Orders with a fill in this symbol. */
  filledOrders: number;
}

/**
 * Realized P&L of a deployment's own fills, per symbol (docs/live-deployments.md, "Positions and
 * P&L"). Each order with a fill counts as one fill of `filledQuantity` at `averagePrice`, in the
 * order of its last change (`updatedAt`, then `createdAt`, then id): for a filled order that is
 * its fill. A fill in the direction of the running position (or from flat) moves the average
 * entry price; a fill against it realizes (exit − entry) × quantity for a long, (entry − exit) ×
 * quantity for a short, on the closed part, and a rest beyond flat opens the other side at the
 * fill price. Every fee of the fills is subtracted. Amounts are in the quote (settle) currency:
 * quantity × price, as the live runtime counts them.
 */
export function realizedPnl(symbols: readonly string[], orders: readonly OrderRecord[]): SymbolPnl[] {
  const filled = orders
    .filter((o) => o.filledQuantity > 0 && o.averagePrice !== null)
    .sort((a, b) => compare(a.updatedAt, b.updatedAt) || compare(a.createdAt, b.createdAt) || compare(a.id, b.id));
  return symbols.map((symbol) => {
    let position = 0; // signed: > 0 long, < 0 short
    let entry = 0;
    let gross = 0;
    let fees = 0;
    let count = 0;
    for (const order of filled) {
      if (order.symbol !== symbol) continue;
      count++;
      fees += order.fee;
      const price = order.averagePrice!;
      const signed = order.side === 'buy' ? order.filledQuantity : -order.filledQuantity;
      if (position === 0 || Math.sign(signed) === Math.sign(position)) {
        entry = (entry * Math.abs(position) + price * Math.abs(signed)) / (Math.abs(position) + Math.abs(signed));
        position += signed;
        continue;
      }
      const closed = Math.min(Math.abs(signed), Math.abs(position));
      gross += (price - entry) * closed * Math.sign(position);
      const rest = Math.abs(signed) - closed;
      position += Math.sign(signed) * closed;
      if (rest > 0) {
        position = Math.sign(signed) * rest;
        entry = price;
      } else if (position === 0) {
        entry = 0;
      }
    }
    return { symbol, realizedPnl: gross - fees, fees, filledOrders: count };
  });
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
