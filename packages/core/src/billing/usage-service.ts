import type { z } from 'zod';
import type { Usage } from '@stratbox/contract';
import { StratboxError } from '../errors/stratbox-error.js';
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { Store, StoreRepositories, SubscriptionRecord, UsagePeriod } from '../ports/store.js';
import { periodContaining, calendarMonth } from './periods.js';
import { ENTITLED_STATUSES, effectiveTier, type Plan, type PlanTable, type TierName } from './plans.js';
import { recordUsageCrossings } from './billing-notifications.js';

export interface UsageServiceDeps {
  store: Store;
  clock: Clock;
  logger?: Logger;
  plans: PlanTable;
}

export type UsageView = z.infer<typeof Usage>;
export type UsageCounterName = 'compute' | 'backtests' | 'deployments' | 'trials';

/** The 402 every refusal answers: `details` is `{ counter, used, limit }`. */
export function planLimitExceeded(counter: UsageCounterName, used: number, limit: number, tier: TierName): StratboxError {
  const what =
    counter === 'compute'
      ? `compute allowance (${limit} CPU-seconds)`
      : counter === 'backtests'
        ? `backtest allowance (${limit} per period)`
        : counter === 'trials'
          ? `trials per optimization (${limit})`
          : `live bot limit (${limit})`;
  const message =
    counter === 'trials'
      ? `The optimization holds ${used} trials; your ${tier} plan allows ${limit} per optimization. Search fewer values, or upgrade`
      : `Your ${tier} plan's ${what} is used up; upgrade or wait for the next billing period`;
  return new StratboxError('PLAN_LIMIT_EXCEEDED', message, {
    counter,
    used,
    limit,
  });
}

export interface UsageContext {
  tier: TierName;
  plan: Plan;
  period: UsagePeriod;
}

export type UsageService = ReturnType<typeof createUsageService>;

/**
 * Usage metering against the plan table (see `plans.ts`):
 * - `backtests`: backtests started in the current billing period, counted by `reserveBacktest`
 *   with one compare-and-set in the Store, so concurrent creates never exceed the allowance;
 * - `compute`: CPU-seconds of sandboxed execution in the period (`addCompute` after each run);
 * - `deployments`: deployments active now (counted from the Store, not per period).
 * The period is the subscription's current period while a paid tier applies, else the calendar
 * month in UTC; a new period starts from zero. An increment that passes 80 % of a period's
 * `compute` or `backtests` limit writes `usage.limit_near`, one that reaches it
 * `usage.limit_reached`, in its transaction, once per counter and period.
 */
export function createUsageService({ store, clock, logger, plans }: UsageServiceDeps) {
  function contextOf(record: SubscriptionRecord | null, now: Date): UsageContext {
    const tier = record ? effectiveTier(record.tier, record.status) : 'free';
    const paid = record !== null && tier !== 'free' && (ENTITLED_STATUSES as readonly string[]).includes(record.status);
    const period = paid ? periodContaining(record.currentPeriodStart, record.currentPeriodEnd, now) : calendarMonth(now);
    return { tier, plan: plans[tier], period };
  }

  async function context(userId: string, repos: StoreRepositories = store): Promise<UsageContext> {
    return contextOf(await repos.subscriptions.findByUser(userId), clock.now());
  }

  const computeLimitMs = (plan: Plan) => plan.limits.computeSeconds * 1000;

  /** One backtest reserved (see `reserveBacktest`), with its 80 % / 100 % notification in the same transaction; the row after, or null if refused. */
  function reserve(userId: string, ctx: UsageContext, limits: { backtests: number; computeMs: number }) {
    return store.transaction(async (tx) => {
      const now = clock.now().toISOString();
      const row = await tx.usageCounters.reserveBacktest(userId, ctx.period, limits, now);
      if (row) {
        const shown = (value: number) => value;
        await recordUsageCrossings(tx, {
          userId,
          counter: 'backtests',
          before: row.backtests - 1,
          after: row.backtests,
          limit: limits.backtests,
          shown,
          periodStart: ctx.period.start,
          at: now,
        });
      }
      return row;
    });
  }

  return {
    context,

    /** `GET /api/billing/usage`: `{ compute, backtests, deployments }`, each `{ used, limit }`. */
    async get(userId: string): Promise<UsageView> {
      const ctx = await context(userId);
      const [row, activeDeployments] = await Promise.all([store.usageCounters.find(userId, ctx.period.start), store.deployments.countActive(userId)]);
      return {
        compute: { used: Math.floor((row?.computeMs ?? 0) / 1000), limit: ctx.plan.limits.computeSeconds },
        backtests: { used: row?.backtests ?? 0, limit: ctx.plan.limits.backtests },
        deployments: { used: activeDeployments, limit: ctx.plan.limits.deployments },
      };
    },

    /**
     * Counts one backtest start against the allowance, or throws 402 PLAN_LIMIT_EXCEEDED
     * (`details: { counter: 'backtests' | 'compute', used, limit }`) and counts nothing when the
     * period's backtests are used up or no compute is left. Atomic: of 20 concurrent calls
     * against an allowance of 5, exactly 5 succeed. Call `releaseBacktest` if the backtest is
     * then not created after all.
     */
    async reserveBacktest(userId: string): Promise<void> {
      const ctx = await context(userId);
      const limits = { backtests: ctx.plan.limits.backtests, computeMs: computeLimitMs(ctx.plan) };
      const reserved = limits.backtests > 0 && limits.computeMs > 0 ? await reserve(userId, ctx, limits) : null;
      if (reserved) return;
      const row = await store.usageCounters.find(userId, ctx.period.start);
      const backtests = row?.backtests ?? 0;
      const computeMs = row?.computeMs ?? 0;
      if (backtests >= limits.backtests) throw planLimitExceeded('backtests', backtests, limits.backtests, ctx.tier);
      if (computeMs >= limits.computeMs) throw planLimitExceeded('compute', Math.floor(computeMs / 1000), ctx.plan.limits.computeSeconds, ctx.tier);
      // Refused a moment ago but there is room now (a release in between): try once more.
      const retried = await reserve(userId, ctx, limits);
      if (!retried) throw planLimitExceeded('backtests', limits.backtests, limits.backtests, ctx.tier);
    },

    /** Gives back a reservation whose backtest was not created (never below zero). */
    async releaseBacktest(userId: string): Promise<void> {
      const ctx = await context(userId);
      await store.usageCounters.releaseBacktest(userId, ctx.period.start, clock.now().toISOString());
    },

    /**
     * Adds CPU milliseconds of sandboxed execution (backtests and deployments) to the current
     * period, rounded up to a whole millisecond (no run is free). Pass a transaction's `repos`
     * to count it together with the write that records what was metered.
     */
    async addCompute(userId: string, computeMs: number, repos: StoreRepositories = store): Promise<void> {
      if (!Number.isFinite(computeMs) || computeMs <= 0) return;
      const ms = Math.ceil(computeMs);
      const meter = async (tx: StoreRepositories) => {
        const ctx = await context(userId, tx);
        const now = clock.now().toISOString();
        await tx.usageCounters.addComputeMs(userId, ctx.period, ms, now);
        const after = (await tx.usageCounters.find(userId, ctx.period.start))?.computeMs ?? ms;
        await recordUsageCrossings(tx, {
          userId,
          counter: 'compute',
          before: after - ms,
          after,
          limit: computeLimitMs(ctx.plan),
          shown: (value) => Math.floor(value / 1000),
          periodStart: ctx.period.start,
          at: now,
        });
      };
      try {
        // In the caller's transaction when given one; else in one of its own, so the counter and its notification go together.
        await (repos === store ? store.transaction(meter) : meter(repos));
      } catch (error) {
        logger?.error('Could not meter compute', { userId, computeMs, error: error instanceof Error ? error.message : String(error) });
        throw error;
      }
    },

    /**
     * For an optimization of `trials` trials: throws 402 PLAN_LIMIT_EXCEEDED (`counter: 'trials'`)
     * when the plan allows fewer per optimization, or (`counter: 'compute'`) when no compute is
     * left this period. Counts nothing: each trial's CPU time is metered as compute when it runs.
     */
    async assertOptimization(userId: string, trials: number): Promise<void> {
      const ctx = await context(userId);
      const limit = ctx.plan.limits.trialsPerOptimization;
      if (trials > limit) throw planLimitExceeded('trials', trials, limit, ctx.tier);
      await this.assertComputeLeft(userId, ctx);
    },

    /** Throws 402 PLAN_LIMIT_EXCEEDED (`counter: 'compute'`) when the period's compute is used up. */
    async assertComputeLeft(userId: string, known?: UsageContext): Promise<void> {
      const ctx = known ?? (await context(userId));
      const computeMs = (await store.usageCounters.find(userId, ctx.period.start))?.computeMs ?? 0;
      if (computeMs >= computeLimitMs(ctx.plan)) throw planLimitExceeded('compute', Math.floor(computeMs / 1000), ctx.plan.limits.computeSeconds, ctx.tier);
    },

    /**
     * For the deployment supervisor: throws 402 (`counter: 'deployments'`) if the user already
     * has as many active deployments as the plan allows. Pass the transaction's repositories
     * and call it in the transaction that inserts the deployment, after locking something per
     * user, to make the check atomic with the insert.
     */
    async assertDeploymentSlot(userId: string, repos: StoreRepositories = store): Promise<void> {
      const ctx = await context(userId, repos);
      const active = await repos.deployments.countActive(userId);
      if (active >= ctx.plan.limits.deployments) throw planLimitExceeded('deployments', active, ctx.plan.limits.deployments, ctx.tier);
    },
  };
}
