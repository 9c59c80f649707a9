import { useCallback, useEffect, useRef, useState } from 'react';
import { describeError, type ErrorView } from './describe-error.js';
import { prime, takePrimed } from './primed.js';

export interface AsyncState<T> {
  data: T | undefined;
  error: ErrorView | null;
  loading: boolean;
  /** Loads again (keeps the shown data until the new answer). */
  reload(): void;
  /** Replaces the data (after a save that answered the new record). */
  setData(data: T): void;
}

/**
 * Starts the load of `key` before any component asks for it (main.tsx does, for the page of the
 * address, while the page's code is still on its way): the first `useAsync(key, …)` takes this
 * answer instead of loading again; later ones load as usual. The load cannot be aborted.
 */
export function primeAsync(key: string, load: Promise<unknown>): void {
  load.catch(() => undefined); // a failure is reported by the useAsync that takes it
  prime(key, load);
}

/**
 * Runs `load` whenever `key` changes (and on `reload()`), aborting the previous call: the page
 * shows its data, its error as a person reads it, or that it is loading. An answer that comes
 * after a newer call started is dropped.
 */
export function useAsync<T>(key: string, load: (signal: AbortSignal) => Promise<T>): AsyncState<T> {
  const [state, setState] = useState<{ key: string; data: T | undefined; error: ErrorView | null; loading: boolean }>({
    key,
    data: undefined,
    error: null,
    loading: true,
  });
  const [nonce, setNonce] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  // biome-ignore lint/correctness/useExhaustiveDependencies: `nonce` is the reload trigger; `load` is read through its ref
  useEffect(() => {
    const controller = new AbortController();
    setState((previous) => ({ key, data: previous.key === key ? previous.data : undefined, error: null, loading: true }));
    const early = takePrimed<Promise<T>>(key);
    (early ?? loadRef.current(controller.signal)).then(
      (data) => {
        if (!controller.signal.aborted) setState({ key, data, error: null, loading: false });
      },
      (error: unknown) => {
        if (!controller.signal.aborted) setState((previous) => ({ ...previous, key, error: describeError(error), loading: false }));
      },
    );
    return () => controller.abort();
  }, [key, nonce]);

  const reload = useCallback(() => setNonce((n) => n + 1), []);
  const setData = useCallback((data: T) => setState((previous) => ({ ...previous, data, error: null, loading: false })), []);
  const current = state.key === key;
  return { data: current ? state.data : undefined, error: current ? state.error : null, loading: current ? state.loading : true, reload, setData };
}
