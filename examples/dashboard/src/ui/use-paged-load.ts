import { useEffect, useRef, useState } from 'react';
import type { PagedLoad, PagedLoadState } from './paged-load.js';
import { peekPrimed, takePrimed } from './primed.js';

const EMPTY: PagedLoadState<never, never> = { items: [], meta: null, loading: true, error: null, truncated: false };

/**
 * Every page of a list, loaded by `start()` whenever `key` changes (a load primed under `key` is
 * taken instead, with what it holds already shown by the first render), aborted when `key`
 * changes or the component unmounts. `key` null loads nothing (the state stays empty, loading).
 */
export function usePagedLoad<T, M>(key: string | null, start: () => PagedLoad<T, M>): PagedLoadState<T, M> {
  const [state, setState] = useState<{ key: string | null; value: PagedLoadState<T, M> }>(() => ({
    key,
    value: (key === null ? undefined : peekPrimed<PagedLoad<T, M>>(key)?.state()) ?? EMPTY,
  }));
  const startRef = useRef(start);
  startRef.current = start;

  useEffect(() => {
    if (key === null) return;
    const load = takePrimed<PagedLoad<T, M>>(key) ?? startRef.current();
    setState({ key, value: load.state() });
    const unsubscribe = load.subscribe((value) => setState({ key, value }));
    return () => {
      unsubscribe();
      load.abort();
    };
  }, [key]);
  return state.key === key ? state.value : EMPTY;
}
