import type { BillingServices } from '../billing/create-billing-services.js';
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { Store } from '../ports/store.js';
import { createLicenceService } from './licences.js';
import { createListingService } from './listing-service.js';
import { createPurchaseService } from './purchase-service.js';
import { createReviewService } from './review-service.js';

export type MarketplaceServices = ReturnType<typeof createMarketplaceServices>;

/** The marketplace, assembled: listings, purchases (through the billing provider), reviews and run-only licences. */
export function createMarketplaceServices(deps: { store: Store; clock: Clock; logger: Logger; billing: Pick<BillingServices, 'provider' | 'events'> }) {
  const { store, clock, logger, billing } = deps;
  return {
    listings: createListingService({ store, clock }),
    purchases: createPurchaseService({ store, clock, logger, provider: billing.provider, events: billing.events }),
    reviews: createReviewService({ store, clock }),
    licences: createLicenceService({ store }),
  };
}
