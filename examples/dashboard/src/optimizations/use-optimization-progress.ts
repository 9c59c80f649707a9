import type { OptimizationProgressData, OptimizationSummary } from '@stratbox/client';
import { useEffect, useRef, useState } from 'react';
import { isFinished } from '../backtests/final-status.js';
import { useClient } from '../session/session-context.js';
import { describeError, type ErrorView } from '../ui/describe-error.js';

export interface OptimizationProgress {
  status: OptimizationSummary['status'];
  progress: number;
  trialsDone: number;
  trialsTotal: number;
  /** The best trial so far: its parameters and objective. */
  best: { params: Record<string, string>; objective: number } | null;
  /** The subscription was refused or the connection lost for good. */
  error: ErrorView | null;
}

/**
 * A running optimization's progress from `optimization:<id>:progress` (the client reconnects and
 * re-subscribes by itself), starting from the detail as loaded; `onFinal` is called once with the
 * final event.
 */
export function useOptimizationProgress(optimization: OptimizationSummary, onFinal: (event: OptimizationProgressData) => void): OptimizationProgress {
  const client = useClient();
  const [state, setState] = useState<OptimizationProgress>({
    status: optimization.status,
    progress: optimization.progress,
    trialsDone: optimization.trialsDone,
    trialsTotal: optimization.trialsTotal,
    best: optimization.best,
    error: null,
  });
  const final = useRef(onFinal);
  final.current = onFinal;
  const finished = isFinished(optimization.status);

  useEffect(() => {
    if (finished) return;
    let done = false;
    return client.optimizations.watch(
      optimization.id,
      (event) => {
        setState({ ...event, error: null });
        if (isFinished(event.status) && !done) {
          done = true;
          final.current(event);
        }
      },
      { onError: (error) => setState((s) => ({ ...s, error: describeError(error) })) },
    );
  }, [client, optimization.id, finished]);
  return state;
}
