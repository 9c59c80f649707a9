import { listDeploymentOrders } from '../deployments/deployment-orders.js';
import { realizedPnl } from '../deployments/realized-pnl.js';
import { percentile } from '../research/monte-carlo.js';
import type { PurchaseRecord, StoreRepositories } from '../ports/store.js';
import type { VerificationRecordRow } from '../ports/store-verification.js';
import { decodePoints } from './verification/equity-points.js';

/*
 * Buyers' outcomes of a verified listing (docs/verified-listings.md, "Buyers' outcomes"): the
 * median realized return of the listing's buyers since purchase, beside the forward record over
 * the same days. An aggregate only: nothing here names or counts back to a buyer.
 */

/** Below this many counted buyers the listing shows no buyers' outcome. */
export const MIN_BUYERS = 3;
/** At most this many completed purchases (the newest) are read per request. */
export const MAX_BUYERS_READ = 1_000;
/** At most this many deployments of a buyer (the oldest since the purchase) are read. */
export const MAX_DEPLOYMENTS_PER_BUYER = 20;

export interface BuyersOutcome {
  count: number;
  medianReturn: number;
  forwardReturnSameDays: number | null;
}

/** One counted buyer: the realized return since purchase and when their first counted deployment started (ms). */
export interface BuyerReturn {
  realizedReturn: number;
  startMs: number;
}

type OutcomeRepositories = Pick<StoreRepositories, 'purchases' | 'deployments' | 'orders' | 'deploymentRecordings'>;

/** The median of `values` (the mean of the middle two for an even count); null when empty. */
export function median(values: readonly number[]): number | null {
  return values.length === 0
    ? null
    : percentile(
        [...values].sort((a, b) => a - b),
        50,
      );
}

/**
 * A buyer's realized return since the purchase, or null when they do not count: the deployments
 * (live or paper, any status) of the listing's strategy they created at or after the purchase
 * completed whose first run recorded a positive start equity; Σ realized P&L of their own fills
 * (`realizedPnl`) over Σ those start equities.
 */
export async function buyerReturn(store: OutcomeRepositories, purchase: PurchaseRecord): Promise<BuyerReturn | null> {
  const since = purchase.completedAt ?? purchase.createdAt;
  const deployments = await store.deployments.listByStrategy(purchase.buyerId, purchase.strategyId, {
    createdFrom: since,
    limit: MAX_DEPLOYMENTS_PER_BUYER,
  });
  let pnl = 0;
  let equity = 0;
  let startMs = Number.POSITIVE_INFINITY;
  for (const deployment of deployments) {
    const [first] = await store.deploymentRecordings.listRuns(deployment.id);
    if (!first || first.startEquity === null || !(first.startEquity > 0)) continue;
    const orders = await listDeploymentOrders(store, deployment.userId, deployment.id);
    pnl += realizedPnl(deployment.symbols, orders).reduce((sum, s) => sum + s.realizedPnl, 0);
    equity += first.startEquity;
    startMs = Math.min(startMs, Date.parse(first.startedAt));
  }
  return equity > 0 ? { realizedReturn: pnl / equity, startMs } : null;
}

/**
 * The forward record's return from `startMs` to its last point, at candle resolution: from the
 * equity of the last stored point at or before `startMs` (the initial capital when the start
 * precedes every point) to the last point's. Null when the record is not ready, has no forward
 * point yet, or started after `startMs` (it does not cover the buyer's days).
 */
export function forwardReturnSince(record: VerificationRecordRow | null, startMs: number): number | null {
  if (!record || record.status !== 'ready') return null;
  if (startMs < Date.parse(record.forward.start)) return null;
  const { times, equity } = decodePoints(record.forward.points);
  const n = times.length;
  if (n === 0) return null;
  let base = record.identity.initialCapital;
  for (let i = 0; i < n && times[i]! <= startMs; i++) base = equity[i]!;
  return base > 0 ? equity[n - 1]! / base - 1 : null;
}

/**
 * The listing's buyers' outcome, or null below `MIN_BUYERS` counted buyers. Reads the newest
 * `MAX_BUYERS_READ` completed purchases and, per buyer, at most `MAX_DEPLOYMENTS_PER_BUYER`
 * deployments. `forwardReturnSameDays` is the median, over the counted buyers the current
 * record covers, of its return from each buyer's first deployment start; null when it covers none.
 */
export async function buyersOutcome(store: OutcomeRepositories, listingId: string, current: VerificationRecordRow | null): Promise<BuyersOutcome | null> {
  const purchases = await store.purchases.listCompletedByListing(listingId, { limit: MAX_BUYERS_READ });
  const returns: BuyerReturn[] = [];
  for (const purchase of purchases) {
    const outcome = await buyerReturn(store, purchase);
    if (outcome) returns.push(outcome);
  }
  if (returns.length < MIN_BUYERS) return null;
  const forward = returns.map((r) => forwardReturnSince(current, r.startMs)).filter((r): r is number => r !== null);
  return {
    count: returns.length,
    medianReturn: median(returns.map((r) => r.realizedReturn))!,
    forwardReturnSameDays: median(forward),
  };
}
