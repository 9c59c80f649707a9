export { createMarketplaceServices, type MarketplaceServices } from './create-marketplace-services.js';
export { createListingService, normalizeTags, parseTagsQuery, MAX_TAGS, type ListingService } from './listing-service.js';
export { createPurchaseService, type PurchaseService } from './purchase-service.js';
export { createReviewService, type ReviewService } from './review-service.js';
export {
  resolveRunnableStrategy,
  loadRunnableSource,
  withRunOnlyErrors,
  createLicenceService,
  type RunnableStrategy,
  type LicenceService,
} from './licences.js';
export { toListingView, toPurchaseView, toReviewView, averageRating, type ListingView, type PurchaseView, type ReviewView } from './marketplace-views.js';
export { createListingRecordService, type ListingRecordService, type ListingRecordDetailView } from './listing-record-service.js';
export { findClaims, checkClaims, type FoundClaim, type CheckedClaimView, type ClaimKind } from './claims.js';
export { checkVerificationSymbols } from './listing-verification.js';
export * from './verification/index.js';
