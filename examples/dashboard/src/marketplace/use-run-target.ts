import type { Route } from '../routing/route.js';
import { useOwnStrategies } from '../strategies/use-own-strategies.js';
import { useBoughtListings } from './use-bought-listings.js';

/** What a run's strategy is to its user: their own strategy, or a listing they bought. */
export interface RunTarget {
  /** What to run it again by: the strategy id, or the listing id for a bought one (its strategy is not the user's). */
  id: string;
  /** The strategy's name, or the listing's for a bought one; null until it is known (or past the first strategies read). */
  name: string | null;
  /** Where a link to it goes: the strategy's page, or the listing's (a bought strategy has no page of its own). */
  page: Route;
}

/**
 * The run targets of backtests' and deployments' `strategyId`s, for a page showing one or many:
 * a strategy the user bought is named and linked by its listing, so no page leads to a strategy
 * (and a source) that is not theirs; their own is named from their strategies. Until the
 * purchases are read, a strategy id answers the strategy itself.
 */
export function useRunTargets(): (strategyId: string) => RunTarget {
  const bought = useBoughtListings();
  const own = useOwnStrategies();
  const listings = new Map(bought.data?.map((b) => [b.strategyId, b]));
  const names = new Map(own.data?.map((s) => [s.id, s.name]));
  return (strategyId) => {
    const listing = listings.get(strategyId);
    if (listing) return { id: listing.listingId, name: listing.name, page: { name: 'listing', id: listing.listingId } };
    return { id: strategyId, name: names.get(strategyId) ?? null, page: { name: 'strategy', id: strategyId } };
  };
}

/** The run target of one backtest's or deployment's `strategyId` (see {@link useRunTargets}). */
export function useRunTarget(strategyId: string): RunTarget {
  return useRunTargets()(strategyId);
}
