import { useCallback, useEffect, useRef, useState } from 'react';
import { describeError, type ErrorView } from './describe-error.js';

export interface PagedList<T> {
  items: T[];
  loading: boolean;
  error: ErrorView | null;
  hasMore: boolean;
  loadMore(): void;
}

/**
 * A cursor-paged list of the API (`{ items, nextCursor }`): the first page when `key` changes,
 * the next one on `loadMore()`. Pages are appended in order; a page that comes back after `key`
 * changed is dropped.
 */
export function usePagedList<T>(
  key: string,
  loadPage: (cursor: string | null, signal: AbortSignal) => Promise<{ items: T[]; nextCursor: string | null }>,
): PagedList<T> {
  const [items, setItems] = useState<T[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [hasMore, setHasMore] = useState(false);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<ErrorView | null>(null);
  const loader = useRef(loadPage);
  loader.current = loadPage;
  const current = useRef<AbortController | null>(null);

  const fetchPage = useCallback((from: string | null, reset: boolean) => {
    current.current?.abort();
    const controller = new AbortController();
    current.current = controller;
    setLoading(true);
    setError(null);
    loader.current(from, controller.signal).then(
      (page) => {
        if (controller.signal.aborted) return;
        setItems((previous) => (reset ? page.items : [...previous, ...page.items]));
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
