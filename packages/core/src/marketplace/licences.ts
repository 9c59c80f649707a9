import { ID_PREFIXES } from '@stratbox/contract';
import { StratboxError, notFound } from '../errors/stratbox-error.js';
import type { PurchaseRecord, StoreRepositories, StrategyVersionRecord } from '../ports/store.js';

/** What a user may run, and whether they may see its source. */
export interface RunnableStrategy {
  /** Whose strategy it is: the caller for their own, the seller for a bought one. */
  ownerId: string;
  strategyId: string;
  /** The version to run: the caller's current version of their own strategy, or the listing's published version. */
  version: number;
  /**
   * True only for the owner. When false, the source must never reach the caller: not in a
   * response, a WebSocket message, an error message or detail, nor a log line the caller can read.
   */
  canReadSource: boolean;
  /** The listing that grants the licence (null for one's own strategy, except when addressed by listing id). */
  listingId: string | null;
  /** The market type of the strategy. */
  marketType: 'LINEAR' | 'SPOT';
}

const LISTING_PREFIX = `${ID_PREFIXES.listing}_`;

/** The versions a completed purchase lets the buyer run: the one bought and the one the listing publishes now. */
async function licensedVersions(repos: StoreRepositories, purchase: PurchaseRecord): Promise<{ current: number; all: number[] }> {
  const listing = await repos.listings.findById(purchase.listingId);
  const current = listing?.strategyVersion ?? purchase.strategyVersion;
  return { current, all: [...new Set([current, purchase.strategyVersion])] };
}

/**
 * The run-only licence check, for the backtest service and the deployment supervisor: what
 * `userId` may run when it names `strategyIdOrListingId`.
 *
 * - Its own strategy (`str_...`): the current version, `canReadSource: true`.
 * - A listing (`lst_...`) it sells: the listing's published version, `canReadSource: true`.
 * - A listing it bought (completed purchase; the listing may have been unlisted since), or the
 *   strategy id such a listing maps to: the listing's published version (buyers get the
 *   versions a seller publishes), `canReadSource: false`.
 * - Anything else: 404 NOT_FOUND, the same answer as for a missing record, with a message that
 *   names only the id given.
 */
export async function resolveRunnableStrategy(repos: StoreRepositories, userId: string, strategyIdOrListingId: string): Promise<RunnableStrategy> {
  if (strategyIdOrListingId.startsWith(LISTING_PREFIX)) {
    const listing = await repos.listings.findById(strategyIdOrListingId);
    if (!listing) throw notFound('Listing', strategyIdOrListingId);
    if (listing.sellerId === userId) {
      const own = await repos.strategies.findById(userId, listing.strategyId);
      if (!own) throw notFound('Listing', strategyIdOrListingId);
      return { ownerId: userId, strategyId: own.id, version: listing.strategyVersion, canReadSource: true, listingId: listing.id, marketType: own.marketType };
    }
    const purchase = await repos.purchases.findByListing(userId, listing.id);
    if (!purchase || purchase.status !== 'completed') throw notFound('Listing', strategyIdOrListingId);
    const versions = await licensedVersions(repos, purchase);
    return {
      ownerId: listing.sellerId,
      strategyId: listing.strategyId,
      version: versions.current,
      canReadSource: false,
      listingId: listing.id,
      marketType: (await marketTypeOf(repos, listing.sellerId, listing.strategyId)) ?? 'LINEAR',
    };
  }

  const own = await repos.strategies.findById(userId, strategyIdOrListingId);
  if (own) return { ownerId: userId, strategyId: own.id, version: own.version, canReadSource: true, listingId: null, marketType: own.marketType };
  const [purchase] = await repos.purchases.listCompletedForStrategy(userId, strategyIdOrListingId);
  if (!purchase) throw notFound('Strategy', strategyIdOrListingId);
  const versions = await licensedVersions(repos, purchase);
  return {
    ownerId: purchase.sellerId,
    strategyId: purchase.strategyId,
    version: versions.current,
    canReadSource: false,
    listingId: purchase.listingId,
    marketType: (await marketTypeOf(repos, purchase.sellerId, purchase.strategyId)) ?? 'LINEAR',
  };
}

async function marketTypeOf(repos: StoreRepositories, ownerId: string, strategyId: string): Promise<'LINEAR' | 'SPOT' | null> {
  return (await repos.strategies.findById(ownerId, strategyId))?.marketType ?? null;
}

/**
 * The source of a version `userId` may run, for the engine only (a worker, the sandbox): its
 * own strategy's version, or a version a completed purchase licenses (the one bought or the
 * one the listing publishes now). Never send the result to a client. Anything else is a 404
 * naming only the strategy id.
 */
export async function loadRunnableSource(repos: StoreRepositories, userId: string, strategyId: string, version: number): Promise<StrategyVersionRecord> {
  const own = await repos.strategies.getVersion(userId, strategyId, version);
  if (own) return own;
  for (const purchase of await repos.purchases.listCompletedForStrategy(userId, strategyId)) {
    const versions = await licensedVersions(repos, purchase);
    if (!versions.all.includes(version)) continue;
    const source = await repos.strategies.getVersion(purchase.sellerId, strategyId, version);
    if (source) return source;
  }
  throw new StratboxError('NOT_FOUND', `Strategy ${strategyId} version ${version} not found`);
}

export type LicenceService = ReturnType<typeof createLicenceService>;

/** `resolveRunnableStrategy` and `loadRunnableSource` bound to a store. */
export function createLicenceService({ store }: { store: StoreRepositories }) {
  return {
    resolve: (userId: string, strategyIdOrListingId: string) => resolveRunnableStrategy(store, userId, strategyIdOrListingId),
    loadSource: (userId: string, strategyId: string, version: number) => loadRunnableSource(store, userId, strategyId, version),
  };
}

/**
 * Runs `work` for a strategy the caller may or may not read. For a bought strategy
 * (`canReadSource` false) a StratboxError loses what could quote the source: its details and
 * message, except parameter problems, which name only the parameters.
 */
export async function withRunOnlyErrors<T>(canReadSource: boolean, work: () => Promise<T> | T): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (canReadSource || !(error instanceof StratboxError)) throw error;
    if (
      error.code === 'VALIDATION_FAILED' &&
      Array.isArray(error.details) &&
      error.details.every((d: { path?: string }) => d.path?.startsWith('params.') || d.path?.startsWith('body.'))
    ) {
      throw new StratboxError(
        'VALIDATION_FAILED',
        error.message,
        (error.details as Array<{ path: string; message: string }>).map(({ path, message }) => ({ path, message })),
      );
    }
    throw new StratboxError(error.code, 'The purchased strategy cannot run with this request');
  }
}
