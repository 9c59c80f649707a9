export * from './plans.js';
export { addMonthsUtc, calendarMonth, periodContaining } from './periods.js';
export { createBillingEventProcessor, type BillingEventProcessor, type BillingEventHandler, type BillingEventHandlers } from './billing-events.js';
export { providerCall, PROVIDER_UNAVAILABLE_MESSAGE } from './provider-errors.js';
export { createSubscriptionService, toSubscriptionView, FREE_SUBSCRIPTION, type SubscriptionService, type SubscriptionView } from './subscription-service.js';
export { createUsageService, planLimitExceeded, type UsageService, type UsageView, type UsageCounterName, type UsageContext } from './usage-service.js';
export { createLocalBillingProvider, LOCAL_SIGNATURE_HEADER, type LocalBillingConfig, type LocalBillingProvider } from './local-billing-provider.js';
export { createStripeBillingProvider, type StripeBillingConfig, type StripeBillingDeps } from './stripe-billing-provider.js';
export {
  createBillingServices,
  stripeBilling,
  localBilling,
  type BillingConfig,
  type BillingServices,
  type BillingProviderDeps,
  type BillingProviderFactory,
} from './create-billing-services.js';
export type * from '../ports/billing-provider.js';
