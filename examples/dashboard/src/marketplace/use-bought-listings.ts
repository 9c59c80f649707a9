import type { StratboxClient } from '@stratbox/client';
import { useClient } from '../session/session-context.js';
import { type AsyncState, useAsync } from '../ui/use-async.js';

/** A listing the user holds a run-only licence for: it can be backtested and deployed by `listingId`, never read. */
export interface BoughtListing {
  listingId: string;
  /** The listing's name; its id when it was unlisted since (a licence outlives its listing). */
  name: string;
  strategyId: string;
  strategyVersion: number;
  unlisted: boolean;
}

/** The user's completed purchases (the first 200), each with its listing's name. */
export async function loadBoughtListings(client: StratboxClient, signal: AbortSignal): Promise<BoughtListing[]> {
  const { purchases } = await client.marketplace.purchases({ query: { limit: 200 } }, { signal });
  const completed = purchases.filter((p) => p.status === 'completed');
  const listings = await Promise.allSettled(completed.map((p) => client.marketplace.get({ params: { id: p.listingId } }, { signal })));
  return completed.map((p, i) => {
    const listing = listings[i];
    const found = listing?.status === 'fulfilled' ? listing.value : null;
    return { listingId: p.listingId, name: found?.name ?? p.listingId, strategyId: p.strategyId, strategyVersion: p.strategyVersion, unlisted: !found };
  });
}

/** The listings the user bought, for the backtest and deployment forms' strategy choice. */
export function useBoughtListings(): AsyncState<BoughtListing[]> {
  const client = useClient();
  return useAsync('marketplace:bought', (signal) => loadBoughtListings(client, signal));
}
