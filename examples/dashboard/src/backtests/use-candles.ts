import type { BacktestSummary, StratboxClient } from '@stratbox/client';
import { useClient } from '../session/session-context.js';
import type { ErrorView } from '../ui/describe-error.js';
import { type PagedLoad, startPagedLoad } from '../ui/paged-load.js';
import { usePagedLoad } from '../ui/use-paged-load.js';

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

type Range = Pick<BacktestSummary, 'timeframe' | 'startDate' | 'endDate'>;

/** The `usePagedLoad` key of the candles one symbol of a run was tested on. */
export const candlesKey = (backtest: Range, symbol: string) => `candles:${symbol}:${backtest.timeframe}:${backtest.startDate}:${backtest.endDate}`;

/** Loads the candles of `symbol` over the run's range and timeframe from `GET /api/market-data/candles`, 5,000 a page, up to `MAX_CANDLES`. */
export function loadCandles(client: StratboxClient, backtest: Range, symbol: string): PagedLoad<Candle, { source: string }> {
  return startPagedLoad(
    async (cursor, signal) => {
      const query = {
        symbol,
        timeframe: backtest.timeframe,
        startDate: backtest.startDate,
        endDate: backtest.endDate,
        limit: PAGE,
        ...(cursor ? { cursor } : {}),
      };
      const page = await client.marketData.candles({ query }, { signal });
      return { items: page.candles, nextCursor: page.nextCursor, meta: { source: page.source } };
    },
    { max: MAX_CANDLES },
  );
}

/**
 * The candles a backtest used for one symbol (the same source and range as the run), a page of
 * 5,000 at a time, shown as they arrive. Opened at the run's address, the first symbol's load
 * started as soon as the detail came (initial-data.ts).
 */
export function useCandles(backtest: BacktestSummary, symbol: string): CandlesState {
  const client = useClient();
  const load = usePagedLoad(candlesKey(backtest, symbol), () => loadCandles(client, backtest, symbol));
  return { candles: load.items, source: load.meta?.source ?? null, loading: load.loading, error: load.error, truncated: load.truncated };
}
