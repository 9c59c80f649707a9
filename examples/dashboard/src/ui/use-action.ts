import { useState } from 'react';
import { describeError, type ErrorView } from './describe-error.js';

/** Where an action stands. */
export interface ActionState {
  /** The label of the run under way (`run`'s second argument), or null when none runs. */
  running: string | null;
  /** What the last run threw, as a person reads it; null after a success. */
  error: ErrorView | null;
}

export interface ActionOptions {
  /**
   * Keeps the last error shown while a new run is under way (it goes on success, or is replaced):
   * for a form whose problems are marked in place, so the marks do not blink off and on. By
   * default a run clears it as it starts.
   */
  keepError?: boolean;
}

/** Runs `work`, busy until it settles; resolves true when it succeeded, false when it threw (never rejects). */
export type RunAction = (work: () => Promise<unknown>, label?: string) => Promise<boolean>;

/**
 * The runner behind `useAction`, on any state holder: each run reports, through `update`, that it
 * runs, then that it succeeded or what it threw (`describeError`). A run started later wins: one
 * that settles after a newer one started changes nothing.
 */
export function createActionRunner(update: (change: (state: ActionState) => ActionState) => void, options: ActionOptions = {}): RunAction {
  let latest = 0;
  return async (work, label = 'action') => {
    const id = ++latest;
    update((state) => ({ running: label, error: options.keepError ? state.error : null }));
    try {
      await work();
      if (id === latest) update(() => ({ running: null, error: null }));
      return true;
    } catch (caught) {
      if (id === latest) update(() => ({ running: null, error: describeError(caught) }));
      return false;
    }
  };
}

export interface Action extends ActionState {
  /** A run is under way (buttons that start one are disabled meanwhile). */
  busy: boolean;
  run: RunAction;
}

/**
 * What a button or form that calls the service needs: `run(work)` marks it busy, keeps what
 * `work` threw as an error a person reads (its code, message and field problems) and clears it on
 * success. Work that must happen either way goes after `await run(…)`.
 */
export function useAction(options: ActionOptions = {}): Action {
  const [state, setState] = useState<ActionState>({ running: null, error: null });
  const [run] = useState(() => createActionRunner(setState, options));
  return { ...state, busy: state.running !== null, run };
}
