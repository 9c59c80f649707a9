import type { z } from 'zod';
import type { ListingRecordDetail } from '@stratbox/contract';
import { notFound } from '../errors/stratbox-error.js';
import type { StoreRepositories } from '../ports/store.js';
import { buyersOutcome } from './buyer-outcomes.js';
import { checkClaims } from './claims.js';
import { toVerificationRecordView } from './verification/record-views.js';
import { DEFAULT_VERIFICATION_SETTINGS, type VerificationSettings } from './verification/verification-settings.js';

export type ListingRecordDetailView = z.infer<typeof ListingRecordDetail>;
export type ListingRecordService = ReturnType<typeof createListingRecordService>;

/**
 * `GET /api/marketplace/:id/record`: a listing's verification records, readable by anyone
 * authenticated with the link, the listing's buyers and the seller alike, also once it is
 * unlisted (records are kept for good); 404 only for an id that never was a listing. It never
 * contains the source: the records carry the version's hash, never its text.
 *
 * `claims` are the performance figures of the listing's description, each beside the current
 * record's platform backtest figure of the same kind (null while pending). `buyers` is the
 * buyers' outcome (buyer-outcomes.ts): null below 3 buyers running the listing's strategy, an
 * aggregate that names no buyer above (docs/verified-listings.md, "Buyers' outcomes").
 */
export function createListingRecordService({
  store,
  thresholds = DEFAULT_VERIFICATION_SETTINGS.badge,
}: {
  store: StoreRepositories;
  /** The operator's badge thresholds, returned with every record so a reader can tell what its badge means. */
  thresholds?: VerificationSettings['badge'];
}) {
  return {
    async get(_userId: string, listingId: string): Promise<ListingRecordDetailView> {
      const listing = await store.listings.findById(listingId);
      if (!listing) throw notFound('Listing', listingId);
      const rows = await store.verificationRecords.listByListing(listingId);
      const current = rows.find((r) => r.supersededAt === null) ?? null;
      const metrics = current?.status === 'ready' && current.backtest ? current.backtest.metrics : null;
      return {
        listingId: listing.id,
        name: listing.name,
        listed: listing.status === 'listed',
        current: current ? toVerificationRecordView(current) : null,
        lineage: rows.filter((r) => r !== current).map(toVerificationRecordView),
        claims: checkClaims(listing.description, metrics),
        thresholds: { ...thresholds },
        buyers: await buyersOutcome(store, listing.id, current),
      };
    },
  };
}
