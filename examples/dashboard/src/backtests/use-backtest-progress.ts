import type { BacktestProgressData, BacktestSummary } from '@stratbox/client';
import { useEffect, useRef, useState } from 'react';
import { useClient } from '../session/session-context.js';
import { describeError, type ErrorView } from '../ui/describe-error.js';
import { isFinished } from './final-status.js';

export interface ProgressState {
  status: BacktestSummary['status'];
  progress: number;
  processedBars: number | null;
  totalBars: number | null;
  /** The subscription was refused or the connection lost for good. */
  error: ErrorView | null;
}

/**
 * A running backtest's progress from `backtest:<id>:progress` (the client reconnects and
 * re-subscribes by itself); `onFinal` is called once with the final event.
 */
export function useBacktestProgress(backtest: BacktestSummary, onFinal: (event: BacktestProgressData) => void): ProgressState {
  const client = useClient();
  const [state, setState] = useState<ProgressState>({
    status: backtest.status,
    progress: backtest.progress,
    processedBars: null,
    totalBars: null,
    error: null,
  });
  const final = useRef(onFinal);
  final.current = onFinal;
  const finished = isFinished(backtest.status);

  useEffect(() => {
    if (finished) return;
    let done = false;
    const stop = client.backtests.watch(
      backtest.id,
      (event) => {
        setState({ status: event.status, progress: event.progress, processedBars: event.processedBars, totalBars: event.totalBars, error: null });
        if (isFinished(event.status) && !done) {
          done = true;
          final.current(event);
        }
      },
      { onError: (error) => setState((s) => ({ ...s, error: describeError(error) })) },
    );
    return stop;
  }, [client, backtest.id, finished]);
  return state;
}
