import type { Trade } from './trade.js';

export type TradeColumn = 'symbol' | 'side' | 'entryTime' | 'entryPrice' | 'exitTime' | 'exitPrice' | 'quantity' | 'pnl' | 'fees' | 'funding' | 'exitReason';
export interface TradeSort {
  column: TradeColumn;
  direction: 'ascending' | 'descending';
}

/** Trades sorted by one column (ties keep the run's order: by entry); the input is left as it is. */
export function sortTrades(trades: Trade[], sort: TradeSort): Trade[] {
  const sign = sort.direction === 'ascending' ? 1 : -1;
  return trades
    .map((trade, index) => ({ trade, index }))
    .sort((a, b) => {
      const x = a.trade[sort.column] ?? '';
      const y = b.trade[sort.column] ?? '';
      const order = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
      return order === 0 ? a.index - b.index : sign * order;
    })
    .map(({ trade }) => trade);
}
