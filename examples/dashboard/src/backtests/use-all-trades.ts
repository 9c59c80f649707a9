import type { BacktestDetail } from '@stratbox/client';
import type { Trade } from './trade.js';
import { useEffect, useState } from 'react';
import { useClient } from '../session/session-context.js';
import { describeError, type ErrorView } from '../ui/describe-error.js';

/** The largest page `GET /api/backtests/:id/trades` serves (the contract's `MAX_TRADES_PAGE`). */
const TRADES_PAGE = 5_000;

export interface AllTrades {
  trades: Trade[];
  /** Stored trades not loaded yet. */
  loading: boolean;
  error: ErrorView | null;
}

/**
 * Every stored trade of a completed run: those the detail carries (the first 1,000), then the
 * rest from `GET /api/backtests/:id/trades`, 5,000 a page, so the table can sort them all and the
 * charts mark them all in a couple of requests (200 a page made 10,000 trades 50 round trips, ~0.4 s).
 */
export function useAllTrades(backtest: BacktestDetail): AllTrades {
  const client = useClient();
  const first = backtest.trades ?? [];
  const stored = backtest.storedTradeCount ?? first.length;
  const [state, setState] = useState<AllTrades>({ trades: first, loading: first.length < stored, error: null });

  useEffect(() => {
    if (first.length >= stored) {
      setState({ trades: first, loading: false, error: null });
      return;
    }
    const controller = new AbortController();
    (async () => {
      let trades: Trade[] = [];
      let cursor: string | null = null;
      do {
        const page = await client.backtests.trades(
          { params: { id: backtest.id }, query: { limit: TRADES_PAGE, ...(cursor ? { cursor } : {}) } },
          { signal: controller.signal },
        );
        trades = trades.concat(page.trades);
        cursor = page.nextCursor;
        if (controller.signal.aborted) return;
        setState({ trades: trades.length > first.length ? trades : first, loading: cursor !== null, error: null });
      } while (cursor);
    })().catch((caught: unknown) => {
      if (!controller.signal.aborted) setState((s) => ({ ...s, loading: false, error: describeError(caught) }));
    });
    return () => controller.abort();
  }, [client, backtest.id, first, stored]);
  return state;
}
