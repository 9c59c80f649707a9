import { useEffect, useRef, useState } from 'react';
import { describeError, type ErrorView } from './describe-error.js';
import { isFinished, type RunStatus } from './final-status.js';

/** Subscribes `handler` to a run's progress channel (the client's `backtests.watch`, `optimizations.watch`); returns what stops it. */
export type WatchRun<E> = (id: string, handler: (event: E) => void, options: { onError(error: unknown): void }) => () => void;

export interface RunProgressSource<E extends { status: RunStatus }, S extends { status: RunStatus }> {
  id: string;
  /** What the page shows before the first event: the run as loaded. */
  initial: S;
  watch: WatchRun<E>;
  /** What an event shows. */
  view(event: E): S;
}

/** A run's progress, and why the live progress stopped (the subscription was refused or the connection lost for good). */
export type RunProgress<S> = S & { error: ErrorView | null };

/**
 * A queued or running run's live progress (the client reconnects and re-subscribes by itself),
 * starting from the run as loaded; `onFinal` is called once, with the final event. A run loaded
 * finished is not watched.
 */
export function useRunProgress<E extends { status: RunStatus }, S extends { status: RunStatus }>(
  run: RunProgressSource<E, S>,
  onFinal: (event: E) => void,
): RunProgress<S> {
  const [state, setState] = useState<RunProgress<S>>(() => ({ ...run.initial, error: null }));
  const final = useRef(onFinal);
  final.current = onFinal;
  const view = useRef(run.view);
  view.current = run.view;
  const finished = isFinished(run.initial.status);
  const { id, watch } = run;

  useEffect(() => {
    if (finished) return;
    let done = false;
    return watch(
      id,
      (event) => {
        setState({ ...view.current(event), error: null });
        if (isFinished(event.status) && !done) {
          done = true;
          final.current(event);
        }
      },
      { onError: (error) => setState((s) => ({ ...s, error: describeError(error) })) },
    );
  }, [watch, id, finished]);
  return state;
}
