import type { RouteOutput } from '@stratbox/client';

export type SubscriptionView = RouteOutput<'billing.subscription'>;
export type Tier = SubscriptionView['tier'];
export type PaidTier = Exclude<Tier, 'free'>;

/** The plans' names as the service's plan table calls them. */
export const TIER_NAMES: Record<Tier, string> = { free: 'Free', pro: 'Pro', team: 'Team' };

/** Statuses that keep a paid tier's limits (the others fall back to the free plan's). */
const KEEPS_TIER = new Set<SubscriptionView['status']>(['active', 'trialing', 'past_due']);

/** Whether `subscription` gives its tier's limits now. */
export function hasPaidTier(subscription: SubscriptionView): boolean {
  return subscription.tier !== 'free' && KEEPS_TIER.has(subscription.status);
}
