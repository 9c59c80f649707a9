import type { Trade } from './trade.js';
import { describe, expect, it } from 'vitest';
import { sortTrades } from './sort-trades.js';

const trade = (symbol: string, pnl: number, entryTime: string): Trade => ({
  symbol,
  side: 'long',
  entryTime,
  entryPrice: 1,
  exitTime: entryTime,
  exitPrice: 1,
  quantity: 1,
  pnl,
  fees: 0,
  funding: 0,
});

describe('sortTrades', () => {
  const trades = [trade('ETH', 5, '2025-01-01T00:00:00.000Z'), trade('BTC', -2, '2025-01-02T00:00:00.000Z'), trade('BTC', 5, '2025-01-03T00:00:00.000Z')];

  it('sorts numbers as numbers both ways, ties in the run’s order', () => {
    expect(sortTrades(trades, { column: 'pnl', direction: 'descending' }).map((t) => t.entryTime.slice(8, 10))).toEqual(['01', '03', '02']);
    expect(sortTrades(trades, { column: 'pnl', direction: 'ascending' }).map((t) => t.pnl)).toEqual([-2, 5, 5]);
  });

  it('sorts text and leaves the input alone', () => {
    expect(sortTrades(trades, { column: 'symbol', direction: 'ascending' }).map((t) => t.symbol)).toEqual(['BTC', 'BTC', 'ETH']);
    expect(trades[0]!.symbol).toBe('ETH');
  });
});
