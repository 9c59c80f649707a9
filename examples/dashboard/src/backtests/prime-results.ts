import type { BacktestDetail, StratboxClient } from '@stratbox/client';
import { primePagedLoad } from '../ui/paged-load.js';
import { allTradesKey, hasMoreTrades, loadAllTrades } from './use-all-trades.js';
import { candlesKey, loadCandles } from './use-candles.js';

/**
 * Starts loading what a completed run's results show beyond its detail, for the results page to
 * take when it renders: its stored trades the detail does not carry, then the candles of its first
 * symbol (the chart shown first). The trades go first: the server answers in turn, and their second
 * page waits for the first. Anything else loads nothing.
 */
export function primeResults(client: StratboxClient, backtest: BacktestDetail): void {
  if (backtest.status !== 'completed') return;
  if (hasMoreTrades(backtest)) primePagedLoad(allTradesKey(backtest.id), loadAllTrades(client, backtest.id));
  const symbol = backtest.symbols[0];
  if (symbol !== undefined) primePagedLoad(candlesKey(backtest, symbol), loadCandles(client, backtest, symbol));
}
