import { useEffect } from 'react';
import { useClient } from '../session/session-context.js';
import { type AsyncState, useAsync } from '../ui/use-async.js';
import type { ListingRecordDetail } from './record-values.js';

/** How often a pending record is asked for again. */
const PENDING_POLL_MS = 3_000;

/**
 * A listing's verification record (`GET /api/marketplace/:id/record`, readable also once the
 * listing is unlisted). While the current record is pending it is asked for again every few
 * seconds, so the page shows the record as soon as the platform backtest is done.
 */
export function useListingRecord(id: string): AsyncState<ListingRecordDetail> {
  const client = useClient();
  const record = useAsync(`listing-record:${id}`, (signal) => client.marketplace.record({ params: { id } }, { signal }));
  const pending = record.data?.current?.status === 'pending';
  const { reload, loading } = record;
  useEffect(() => {
    if (!pending || loading) return;
    const timer = setTimeout(reload, PENDING_POLL_MS);
    return () => clearTimeout(timer);
  }, [pending, loading, reload]);
  return record;
}
