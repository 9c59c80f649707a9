import { prime } from './primed.js';
import { describeError, type ErrorView } from './describe-error.js';

/** One page of a cursor-paged API answer: its items, the cursor of the next page (null on the last), and what else it says. */
export interface LoadedPage<T, M> {
  items: T[];
  nextCursor: string | null;
  meta: M;
}

/** What a paged load holds so far. */
export interface PagedLoadState<T, M> {
  items: T[];
  /** The last page's `meta`; null before the first page. */
  meta: M | null;
  /** More pages are on their way. */
  loading: boolean;
  error: ErrorView | null;
  /** It stopped at `max` items while more existed. */
  truncated: boolean;
}

export interface PagedLoad<T, M> {
  /** The items so far (a new object after each page). */
  state(): PagedLoadState<T, M>;
  /** Calls `listener` after each page and on failure, until the returned function is called. */
  subscribe(listener: (state: PagedLoadState<T, M>) => void): () => void;
  /** Stops loading: no page is asked for or reported after this. */
  abort(): void;
}

/**
 * Loads every page of a cursor-paged list, one request after the other, starting at once; it
 * stops after the last page, at the first failure, once it holds `max` items or more, or on
 * `abort()`. Not tied to a component: a load started before its page rendered (see
 * `primePagedLoad`) is taken over by the page's hook with what it already holds.
 */
export function startPagedLoad<T, M>(
  fetchPage: (cursor: string | null, signal: AbortSignal) => Promise<LoadedPage<T, M>>,
  options: { max?: number } = {},
): PagedLoad<T, M> {
  const controller = new AbortController();
  const listeners = new Set<(state: PagedLoadState<T, M>) => void>();
  let state: PagedLoadState<T, M> = { items: [], meta: null, loading: true, error: null, truncated: false };
  const set = (next: PagedLoadState<T, M>) => {
    state = next;
    for (const listener of listeners) listener(state);
  };
  (async () => {
    let cursor: string | null = null;
    let items: T[] = [];
    do {
      const page: LoadedPage<T, M> = await fetchPage(cursor, controller.signal);
      if (controller.signal.aborted) return;
      items = items.concat(page.items);
      cursor = page.nextCursor;
      const truncated = cursor !== null && options.max !== undefined && items.length >= options.max;
      set({ items, meta: page.meta, loading: cursor !== null && !truncated, error: null, truncated });
      if (truncated) return;
    } while (cursor);
  })().catch((caught: unknown) => {
    if (!controller.signal.aborted) set({ ...state, loading: false, error: describeError(caught) });
  });
  return {
    state: () => state,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    abort: () => controller.abort(),
  };
}

/**
 * Makes `load` the one the first `usePagedLoad(key, …)` takes (main.tsx primes the results of
 * the backtest the dashboard opened at, as soon as its detail is in). Replaces (and aborts) a
 * load primed under the same key and not taken yet.
 */
export function primePagedLoad<T, M>(key: string, load: PagedLoad<T, M>): void {
  prime<PagedLoad<T, M>>(key, load)?.abort();
}
