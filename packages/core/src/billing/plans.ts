/**
 * The one plan table of Stratbox. Prices are in USD cents per month; limits apply per billing
 * period (the subscription's current period, or the calendar month in UTC on the free plan):
 *
 * | tier | price / month | live bots (`deployments`, active at once) | `backtests` started / period | `compute` CPU-seconds / period | trials per optimization | notification channels |
 * |------|---------------|-------------------------------------------|------------------------------|--------------------------------|-------------------------|-----------------------|
 * | free | $0            | 1                                         | 50                           | 1,800 (30 CPU-minutes)         | 1,000                   | 3                     |
 * | pro  | $29           | 5                                         | 1,000                        | 72,000 (20 CPU-hours)          | 5,000                   | 10                    |
 * | team | $99           | 25                                        | 10,000                       | 720,000 (200 CPU-hours)        | 20,000                  | 25                    |
 *
 * `compute` counts CPU time of sandboxed strategy execution, backtests and live deployments
 * together. A backtest is refused (402 PLAN_LIMIT_EXCEEDED) when the period's backtest allowance
 * is used up or no compute is left; a deployment is refused when the live bot limit is reached.
 * A backtest already running when compute runs out finishes; its CPU time is still counted.
 * An optimization is refused when it holds more trials than `trialsPerOptimization` or no compute
 * is left; one running when compute runs out stops after its current slice of trials (failed,
 * PLAN_LIMIT_EXCEEDED), its finished trials kept and counted.
 *
 * Hosts can change limits and prices with `resolvePlans(overrides)` (config `billing.plans`).
 */
import type { z } from 'zod';
import type { Tier } from '@stratbox/contract';

export type TierName = z.infer<typeof Tier>;
export type PaidTierName = Exclude<TierName, 'free'>;

export interface PlanLimits {
  /** Live bots (deployments in an active status) at once. */
  deployments: number;
  /** Backtests started per billing period. */
  backtests: number;
  /** CPU-seconds of sandboxed execution per billing period. */
  computeSeconds: number;
  /**
   * Trials one optimization may hold (searches × folds). Each trial's CPU time counts as compute.
   * A worker keeps a trial's per-period returns in memory while it runs (about 4 KB a trial).
   */
  trialsPerOptimization: number;
  /** Notification channels a user may have (webhooks, Telegram chats, Discord webhooks). */
  notificationChannels: number;
}

export interface Plan {
  tier: TierName;
  name: string;
  /** USD cents per month. */
  priceUsdCents: number;
  limits: PlanLimits;
}

export type PlanTable = Readonly<Record<TierName, Plan>>;

export const TIERS = ['free', 'pro', 'team'] as const satisfies readonly TierName[];

export const PLANS: PlanTable = Object.freeze({
  free: {
    tier: 'free',
    name: 'Free',
    priceUsdCents: 0,
    limits: { deployments: 1, backtests: 50, computeSeconds: 1_800, trialsPerOptimization: 1_000, notificationChannels: 3 },
  },
  pro: {
    tier: 'pro',
    name: 'Pro',
    priceUsdCents: 2_900,
    limits: { deployments: 5, backtests: 1_000, computeSeconds: 72_000, trialsPerOptimization: 5_000, notificationChannels: 10 },
  },
  team: {
    tier: 'team',
    name: 'Team',
    priceUsdCents: 9_900,
    limits: { deployments: 25, backtests: 10_000, computeSeconds: 720_000, trialsPerOptimization: 20_000, notificationChannels: 25 },
  },
});

/** Changes to the plan table: per tier, a new price and/or some limits. */
export type PlanOverrides = Partial<Record<TierName, { priceUsdCents?: number; limits?: Partial<PlanLimits> }>>;

/** The plan table with `overrides` applied (e.g. `{ free: { limits: { backtests: 5 } } }`). */
export function resolvePlans(overrides: PlanOverrides = {}, base: PlanTable = PLANS): PlanTable {
  const table = {} as Record<TierName, Plan>;
  for (const tier of TIERS) {
    const o = overrides[tier];
    table[tier] = {
      ...base[tier],
      ...(o?.priceUsdCents !== undefined ? { priceUsdCents: o.priceUsdCents } : {}),
      limits: { ...base[tier].limits, ...o?.limits },
    };
  }
  return Object.freeze(table);
}

/** Subscription statuses that keep the paid tier's limits; any other falls back to free. */
export const ENTITLED_STATUSES = ['active', 'trialing', 'past_due'] as const;

/** The tier whose limits apply to a subscription in `status`. */
export function effectiveTier(tier: TierName, status: string): TierName {
  return (ENTITLED_STATUSES as readonly string[]).includes(status) ? tier : 'free';
}
