import type { BillingProvider } from '../ports/billing-provider.js';
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { Store } from '../ports/store.js';
import { createBillingEventProcessor } from './billing-events.js';
import { createLocalBillingProvider, type LocalBillingConfig } from './local-billing-provider.js';
import { resolvePlans, type PlanOverrides, type PlanTable } from './plans.js';
import { createStripeBillingProvider, type StripeBillingConfig } from './stripe-billing-provider.js';
import { createSubscriptionService } from './subscription-service.js';
import { createUsageService } from './usage-service.js';

/** What a billing provider factory receives. */
export interface BillingProviderDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  plans: PlanTable;
}

export type BillingProviderFactory = (deps: BillingProviderDeps) => BillingProvider;

/** `createStratbox({ billing })`: the payment provider and the plan table. */
export interface BillingConfig {
  /**
   * The payment provider, or a factory given the store, clock, logger and plans. Default: the
   * local provider (`createLocalBillingProvider`: checkouts complete at once, offline). For
   * Stripe: `provider: stripeBilling({ apiKey, webhookSecret, prices, successUrl, cancelUrl })`.
   */
  provider?: BillingProvider | BillingProviderFactory;
  /** Changes to the plan table's prices and limits, e.g. `{ free: { limits: { backtests: 5 } } }`. */
  plans?: PlanOverrides;
}

/** A provider factory for Stripe, for `billing.provider`. */
export function stripeBilling(config: StripeBillingConfig): BillingProviderFactory {
  return ({ store, clock, logger }) => createStripeBillingProvider({ ...config, store, clock, logger });
}

/** A provider factory for the local provider with options, for `billing.provider`. */
export function localBilling(config: Omit<LocalBillingConfig, 'store' | 'clock' | 'plans'> = {}): BillingProviderFactory {
  return ({ store, clock, plans }) => createLocalBillingProvider({ ...config, store, clock, plans });
}

export type BillingServices = ReturnType<typeof createBillingServices>;

/**
 * Billing, assembled: the plan table, the provider, the event processor behind the webhook,
 * subscriptions and usage metering. Pass the result to `createMarketplaceServices`, which
 * registers the purchase events on the same processor.
 */
export function createBillingServices(deps: { store: Store; clock: Clock; logger: Logger } & BillingConfig) {
  const { store, clock, logger } = deps;
  const plans = resolvePlans(deps.plans);
  const given = deps.provider;
  const provider: BillingProvider =
    typeof given === 'function' ? given({ store, clock, logger, plans }) : (given ?? createLocalBillingProvider({ store, clock, plans }));
  const events = createBillingEventProcessor({ store, clock, logger, provider });
  const subscriptions = createSubscriptionService({ store, clock, logger, provider, events });
  const usage = createUsageService({ store, clock, logger, plans });
  return { plans, provider, events, subscriptions, usage };
}
