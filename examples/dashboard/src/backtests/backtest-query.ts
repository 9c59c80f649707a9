import type { BacktestDetail, StratboxClient } from '@stratbox/client';

/** The `useAsync` key of one backtest's detail. */
export const backtestKey = (id: string) => `backtest:${id}`;

/** One backtest's detail (its settings, status, metrics, equity curve and first trades). */
export const loadBacktest = (client: StratboxClient, id: string, signal?: AbortSignal): Promise<BacktestDetail> =>
  client.backtests.get({ params: { id } }, signal ? { signal } : {});
