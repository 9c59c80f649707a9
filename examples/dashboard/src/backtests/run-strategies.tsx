import type { StrategySummary } from '@stratbox/client';
import type { ReactNode } from 'react';
import { type BoughtListing, useBoughtListings } from '../marketplace/use-bought-listings.js';
import { Link } from '../routing/link.js';
import { useOwnStrategies } from '../strategies/use-own-strategies.js';
import type { ErrorView } from '../ui/describe-error.js';
import { EmptyState } from '../ui/empty-state.js';
import { ErrorBanner } from '../ui/error-banner.js';
import { Loading } from '../ui/loading.js';

interface RunStrategiesProps {
  /** The empty state's title when the user has no strategy and bought none: "No strategy to test yet". */
  emptyTitle: string;
  /** The page's failure to read the chosen strategy's parameters, shown with the others. */
  metaError: ErrorView | null;
  /** The form, once both lists are read and one has something. */
  children(strategies: StrategySummary[], bought: BoughtListing[]): ReactNode;
}

/**
 * What a run's form can run, read before it shows: the user's strategies and the listings they
 * bought. Until then the loading line, on failure the errors, with neither the way to get one.
 */
export function RunStrategies({ emptyTitle, metaError, children }: RunStrategiesProps) {
  const strategies = useOwnStrategies();
  const bought = useBoughtListings();
  const own = strategies.data;
  const listings = bought.data;
  return (
    <>
      <ErrorBanner error={strategies.error} title="Could not load your strategies" />
      <ErrorBanner error={bought.error} title="Could not load your purchases" />
      <ErrorBanner error={metaError} title="Could not read the strategy’s parameters" />
      {(!own || !listings) && (strategies.loading || bought.loading) ? <Loading label="Loading your strategies…" /> : null}
      {own && listings && own.length === 0 && listings.length === 0 ? (
        <EmptyState title={emptyTitle}>
          <p>
            <Link to={{ name: 'newStrategy' }}>Create a strategy</Link> or <Link to={{ name: 'marketplace' }}>buy one</Link> first.
          </p>
        </EmptyState>
      ) : null}
      {own && listings && (own.length > 0 || listings.length > 0) ? children(own, listings) : null}
    </>
  );
}
