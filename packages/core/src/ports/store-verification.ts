import type { ListingRecordSummary, VerificationRecord } from '@stratbox/contract';

/*
 * Verified listings' records in the Store port (docs/verified-listings.md). The general
 * guarantees of store.ts hold. Records are never deleted with a listing: a delisted listing's
 * records stay readable for good.
 */

/** One version's verification record as stored: the contract's shape plus what the platform needs to advance it. */
export interface VerificationRecordRow extends Omit<VerificationRecord, 'forward'> {
  sellerId: string;
  strategyId: string;
  forward: VerificationRecord['forward'] & {
    /**
     * Every forward equity point at candle resolution, as consecutive float64 pairs
     * `[timeMs, equity]` (little-endian), kept for good; `forward.equity` is its downsampled view.
     */
    points?: Uint8Array;
  };
  updatedAt: string;
}

/**
 * Fields `update` changes; an undefined field is left as it is. `forward` replaces the stored
 * forward record whole, `points` included (a `forward` without `points` leaves none). A patch
 * should carry a new `updatedAt`, so that the next compare-and-set sees the change.
 */
export type VerificationRecordPatch = Partial<
  Pick<VerificationRecordRow, 'status' | 'error' | 'backtest' | 'forward' | 'badge' | 'supersededAt' | 'updatedAt'>
>;

export interface VerificationRecordRepository {
  /** Inserts a record; throws if the id exists. */
  insert(record: VerificationRecordRow): Promise<void>;
  /** A record by id, or null. Not scoped: records are public to anyone with the listing's link. */
  findById(id: string): Promise<VerificationRecordRow | null>;
  /** Every record of the listing, newest first (the current one, then the lineage). */
  listByListing(listingId: string): Promise<VerificationRecordRow[]>;
  /**
   * Applies `patch` only if the record's `updatedAt` is still `expectedUpdatedAt` (a
   * compare-and-set: of two nodes advancing the same record exactly one wins). The record after,
   * or null.
   */
  update(id: string, expectedUpdatedAt: string, patch: VerificationRecordPatch): Promise<VerificationRecordRow | null>;
  /**
   * Current records (not superseded) in the given statuses, oldest first by (createdAt, id),
   * at most `limit`, strictly after `after`: for the platform's loops (backtests to run, forward
   * records to advance), across sellers.
   */
  listCurrent(statuses: readonly VerificationRecordRow['status'][], limit: number, after?: { createdAt: string; id: string }): Promise<VerificationRecordRow[]>;
}

/** What search sorts and filters listings by: the current record's summary, kept on the listing. */
export type ListingRecordSummaryRow = ListingRecordSummary;
