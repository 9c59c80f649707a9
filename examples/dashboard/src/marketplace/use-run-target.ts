import type { Route } from '../routing/route.js';
import { useBoughtListings } from './use-bought-listings.js';

/** What a run's strategy is to its user: their own strategy, or a listing they bought. */
export interface RunTarget {
  /** What to run it again by: the strategy id, or the listing id for a bought one (its strategy is not the user's). */
  id: string;
  /** The listing's name for a bought strategy; null for one's own (its page has the name). */
  name: string | null;
  /** Where a link to it goes: the strategy's page, or the listing's (a bought strategy has no page of its own). */
  page: Route;
}

/**
 * The run target of a backtest's or deployment's `strategyId`: a strategy the user bought is
 * named and linked by its listing, so no page leads to a strategy (and a source) that is not
 * theirs. Until the purchases are read, the strategy itself.
 */
export function useRunTarget(strategyId: string): RunTarget {
  const bought = useBoughtListings();
  const listing = bought.data?.find((b) => b.strategyId === strategyId);
  if (listing) return { id: listing.listingId, name: listing.name, page: { name: 'listing', id: listing.listingId } };
  return { id: strategyId, name: null, page: { name: 'strategy', id: strategyId } };
}
