import type { BacktestDetail, StratboxClient } from '@stratbox/client';
import type { Trade } from './trade.js';
import { useClient } from '../session/session-context.js';
import type { ErrorView } from '../ui/describe-error.js';
import { type PagedLoad, startPagedLoad } from '../ui/paged-load.js';
import { usePagedLoad } from '../ui/use-paged-load.js';

/** The largest page `GET /api/backtests/:id/trades` serves (the contract's `MAX_TRADES_PAGE`). */
const TRADES_PAGE = 5_000;

export interface AllTrades {
  trades: Trade[];
  /** Stored trades not loaded yet. */
  loading: boolean;
  error: ErrorView | null;
}

/** The `usePagedLoad` key of a run's stored trades. */
export const allTradesKey = (backtestId: string) => `trades:${backtestId}`;

/** Whether the run has stored trades its detail does not carry (so `useAllTrades` loads them). */
export const hasMoreTrades = (backtest: BacktestDetail) => (backtest.trades?.length ?? 0) < (backtest.storedTradeCount ?? backtest.trades?.length ?? 0);

/** Loads every stored trade of a run from `GET /api/backtests/:id/trades`, 5,000 a page. */
export function loadAllTrades(client: StratboxClient, backtestId: string): PagedLoad<Trade, null> {
  return startPagedLoad(async (cursor, signal) => {
    const page = await client.backtests.trades({ params: { id: backtestId }, query: { limit: TRADES_PAGE, ...(cursor ? { cursor } : {}) } }, { signal });
    return { items: page.trades, nextCursor: page.nextCursor, meta: null };
  });
}

/**
 * Every stored trade of a completed run: those the detail carries (the first 1,000) until the
 * rest come from `GET /api/backtests/:id/trades`, 5,000 a page, so the table can sort them all and
 * the charts mark them all in a couple of requests (200 a page made 10,000 trades 50 round trips,
 * ~0.4 s). Opened at the run's address, the load started as soon as the detail came (initial-data.ts).
 */
export function useAllTrades(backtest: BacktestDetail): AllTrades {
  const client = useClient();
  const first = backtest.trades ?? [];
  const more = hasMoreTrades(backtest);
  const load = usePagedLoad(more ? allTradesKey(backtest.id) : null, () => loadAllTrades(client, backtest.id));
  if (!more) return { trades: first, loading: false, error: null };
  return { trades: load.items.length > first.length ? load.items : first, loading: load.loading, error: load.error };
}
