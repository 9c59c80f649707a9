import type { BacktestSummary } from '@stratbox/client';
import { useEffect, useState } from 'react';
import { useClient } from '../session/session-context.js';
import { describeError, type ErrorView } from '../ui/describe-error.js';

export interface Candle {
  time: string;
  open: number;
  high: number;
  low: number;
  close: number;
}

export interface CandlesState {
  candles: Candle[];
  source: string | null;
  loading: boolean;
  error: ErrorView | null;
  /** More candles exist than the page shows (`MAX_CANDLES`). */
  truncated: boolean;
}

/** Most candles one chart loads: 20 pages of 5,000 (about 11 years of 1h candles). */
export const MAX_CANDLES = 100_000;
const PAGE = 5000;

/**
 * The candles a backtest used for one symbol, from `GET /api/market-data/candles` (the same
 * source and range as the run), a page of 5,000 at a time, shown as they arrive.
 */
export function useCandles(backtest: BacktestSummary, symbol: string): CandlesState {
  const client = useClient();
  const [state, setState] = useState<CandlesState>({ candles: [], source: null, loading: true, error: null, truncated: false });

  useEffect(() => {
    const controller = new AbortController();
    setState({ candles: [], source: null, loading: true, error: null, truncated: false });
    (async () => {
      let cursor: string | null = null;
      let candles: Candle[] = [];
      do {
        const page = await client.marketData.candles(
          {
            query: {
              symbol,
              timeframe: backtest.timeframe,
              startDate: backtest.startDate,
              endDate: backtest.endDate,
              limit: PAGE,
              ...(cursor ? { cursor } : {}),
            },
          },
          { signal: controller.signal },
        );
        candles = candles.concat(page.candles);
        cursor = page.nextCursor;
        const truncated = cursor !== null && candles.length >= MAX_CANDLES;
        if (controller.signal.aborted) return;
        setState({ candles, source: page.source, loading: cursor !== null && !truncated, error: null, truncated });
        if (truncated) return;
      } while (cursor);
    })().catch((caught: unknown) => {
      if (!controller.signal.aborted) setState((s) => ({ ...s, loading: false, error: describeError(caught) }));
    });
    return () => controller.abort();
  }, [client, backtest.timeframe, backtest.startDate, backtest.endDate, symbol]);
  return state;
}
