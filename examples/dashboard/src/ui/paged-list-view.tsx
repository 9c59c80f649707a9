import type { ReactNode } from 'react';
import { ErrorBanner } from './error-banner.js';
import { Loading } from './loading.js';
import type { PagedList } from './use-paged-list.js';

export interface PagedListViewProps<T> {
  list: PagedList<T>;
  /** What the error banner says failed: "Could not load your strategies". */
  errorTitle: string;
  loadingLabel: string;
  /** Shown when the list is loaded and has nothing. */
  empty: ReactNode;
  moreLabel?: string;
  /** The items, once there are some. */
  children: ReactNode;
}

/** A cursor-paged list's states around its items: error, first load, empty, and "load more". */
export function PagedListView<T>({ list, errorTitle, loadingLabel, empty, moreLabel = 'Load more', children }: PagedListViewProps<T>) {
  const none = list.items.length === 0;
  return (
    <>
      <ErrorBanner error={list.error} title={errorTitle} />
      {none && list.loading ? <Loading label={loadingLabel} /> : null}
      {none && !list.loading && !list.error ? empty : null}
      {none ? null : children}
      {list.hasMore ? (
        <button type="button" onClick={list.loadMore} disabled={list.loading}>
          {list.loading ? 'Loading…' : moreLabel}
        </button>
      ) : null}
    </>
  );
}
