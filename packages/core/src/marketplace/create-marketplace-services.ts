import type { BillingServices } from '../billing/create-billing-services.js';
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { Store } from '../ports/store.js';
import type { StrategyRunner } from '../ports/strategy-runner.js';
import { createLicenceService } from './licences.js';
import { createListingRecordService } from './listing-record-service.js';
import { createListingService } from './listing-service.js';
import { createPurchaseService } from './purchase-service.js';
import { createReviewService } from './review-service.js';
import { resolveVerificationSettings, type VerificationSettings } from './verification/verification-settings.js';

export type MarketplaceServices = ReturnType<typeof createMarketplaceServices>;

/**
 * The marketplace, assembled: listings (each listed version starts a verification record),
 * their records, purchases (through the billing provider), reviews and run-only licences.
 */
export function createMarketplaceServices(deps: {
  store: Store;
  clock: Clock;
  logger: Logger;
  billing: Pick<BillingServices, 'provider' | 'events'>;
  /** Reads what a listed version declares, for its verification record. */
  strategyRunner: Pick<StrategyRunner, 'inspect'>;
  /** How the platform verifies listings; default `resolveVerificationSettings()`. */
  verification?: VerificationSettings;
  /** Called after a listing or a new version committed its verification record. */
  onRecordCreated?: () => void;
}) {
  const { store, clock, logger, billing, strategyRunner, verification = resolveVerificationSettings(), onRecordCreated } = deps;
  return {
    listings: createListingService({ store, clock, strategyRunner, verification, ...(onRecordCreated ? { onRecordCreated } : {}) }),
    records: createListingRecordService({ store, thresholds: verification.badge }),
    purchases: createPurchaseService({ store, clock, logger, provider: billing.provider, events: billing.events }),
    reviews: createReviewService({ store, clock }),
    licences: createLicenceService({ store }),
  };
}
