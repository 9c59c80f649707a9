import { useCallback, useEffect, useRef, useState } from 'react';
import { describeError, type ErrorView } from './describe-error.js';

export interface PagedList<T> {
  items: T[];
  loading: boolean;
  error: ErrorView | null;
  hasMore: boolean;
  loadMore(): void;
}

/** Where a page starts, as the API's list routes take it in their query: nothing for the first page. */
export type PageCursor = { cursor?: string };

/**
 * A cursor-paged list of the API (an answer with `nextCursor`): the first page when `key`
 * changes, the next one on `loadMore()`. `loadPage` asks for the page at `at` (spread it into the
 * route's query), `itemsOf` picks the items out of the answer. Pages are appended in order; a page
 * that comes back after `key` changed is dropped.
 */
export function usePagedList<T, P extends { nextCursor: string | null }>(
  key: string,
  loadPage: (at: PageCursor, signal: AbortSignal) => Promise<P>,
  itemsOf: (page: P) => T[],
): PagedList<T> {
  const [items, setItems] = useState<T[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [hasMore, setHasMore] = useState(false);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<ErrorView | null>(null);
  const loader = useRef({ loadPage, itemsOf });
  loader.current = { loadPage, itemsOf };
  const current = useRef<AbortController | null>(null);

  const fetchPage = useCallback((from: string | null, reset: boolean) => {
    current.current?.abort();
    const controller = new AbortController();
    current.current = controller;
    setLoading(true);
    setError(null);
    const { loadPage: load, itemsOf: pick } = loader.current;
    load(from ? { cursor: from } : {}, controller.signal).then(
      (page) => {
        if (controller.signal.aborted) return;
        const more = pick(page);
        setItems((previous) => (reset ? more : [...previous, ...more]));
        setCursor(page.nextCursor);
        setHasMore(page.nextCursor !== null);
        setLoading(false);
      },
      (caught: unknown) => {
        if (controller.signal.aborted) return;
        setError(describeError(caught));
        setLoading(false);
      },
    );
  }, []);

  // biome-ignore lint/correctness/useExhaustiveDependencies: a new key starts the list over
  useEffect(() => {
    setItems([]);
    fetchPage(null, true);
    return () => current.current?.abort();
  }, [key, fetchPage]);

  const loadMore = useCallback(() => {
    if (cursor) fetchPage(cursor, false);
  }, [cursor, fetchPage]);
  return { items, loading, error, hasMore, loadMore };
}
