import type { Selectable, Updateable } from 'kysely';
import type { PurchaseRecord, PurchaseRecordStatus, PurchaseRepository } from '@stratbox/core';
import type { PurchasesTable } from '../schema.js';
import type { QueryContext } from './query-context.js';

function toPurchase(row: Selectable<PurchasesTable>): PurchaseRecord {
  return {
    id: row.id,
    buyerId: row.buyer_id,
    listingId: row.listing_id,
    sellerId: row.seller_id,
    strategyId: row.strategy_id,
    strategyVersion: row.strategy_version,
    price: Number(row.price),
    status: row.status as PurchaseRecordStatus,
    checkoutSessionId: row.checkout_session_id,
    checkoutUrl: row.checkout_url,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    completedAt: row.completed_at,
  };
}

/**
 * Purchases. One per (buyer, listing), enforced by a unique constraint: `insertIfAbsent` is an
 * `insert ... on conflict (buyer_id, listing_id) do nothing`, so of concurrent inserts exactly
 * one writes a row and the others learn it without an error (which on PostgreSQL would abort
 * the caller's transaction). Status changes are compare-and-set updates.
 */
export function createPurchaseRepository({ db }: QueryContext): PurchaseRepository {
  return {
    async insertIfAbsent(p) {
      const row = await db
        .insertInto('purchases')
        .values({
          id: p.id,
          buyer_id: p.buyerId,
          listing_id: p.listingId,
          seller_id: p.sellerId,
          strategy_id: p.strategyId,
          strategy_version: p.strategyVersion,
          price: p.price,
          status: p.status,
          checkout_session_id: p.checkoutSessionId,
          checkout_url: p.checkoutUrl,
          created_at: p.createdAt,
          updated_at: p.updatedAt,
          completed_at: p.completedAt,
        })
        .onConflict((oc) => oc.columns(['buyer_id', 'listing_id']).doNothing())
        .returning('id')
        .executeTakeFirst();
      return row !== undefined;
    },

    async findById(buyerId, id) {
      const row = await db.selectFrom('purchases').selectAll().where('id', '=', id).where('buyer_id', '=', buyerId).executeTakeFirst();
      return row ? toPurchase(row) : null;
    },

    async findByListing(buyerId, listingId) {
      const row = await db.selectFrom('purchases').selectAll().where('buyer_id', '=', buyerId).where('listing_id', '=', listingId).executeTakeFirst();
      return row ? toPurchase(row) : null;
    },

    async list(buyerId, { limit, after }) {
      let query = db.selectFrom('purchases').selectAll().where('buyer_id', '=', buyerId);
      if (after) query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(after.createdAt, after.id)));
      const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
      return rows.map(toPurchase);
    },

    async listCompletedForStrategy(buyerId, strategyId) {
      const rows = await db
        .selectFrom('purchases')
        .selectAll()
        .where('buyer_id', '=', buyerId)
        .where('strategy_id', '=', strategyId)
        .where('status', '=', 'completed')
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute();
      return rows.map(toPurchase);
    },

    async listCompletedByListing(listingId, { limit, after }) {
      // The (listing_id, status, created_at, id) index of migration 0019 serves this in order.
      let query = db.selectFrom('purchases').selectAll().where('listing_id', '=', listingId).where('status', '=', 'completed');
      if (after) query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(after.createdAt, after.id)));
      const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
      return rows.map(toPurchase);
    },

    async countPendingForStrategy(sellerId, strategyId) {
      const row = await db
        .selectFrom('purchases')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('seller_id', '=', sellerId)
        .where('strategy_id', '=', strategyId)
        .where('status', '=', 'pending')
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    async transition(id, from, patch) {
      if (from.length === 0) return null;
      const set: Updateable<PurchasesTable> = {};
      if (patch.status !== undefined) set.status = patch.status;
      if (patch.checkoutSessionId !== undefined) set.checkout_session_id = patch.checkoutSessionId;
      if (patch.checkoutUrl !== undefined) set.checkout_url = patch.checkoutUrl;
      if (patch.updatedAt !== undefined) set.updated_at = patch.updatedAt;
      if (patch.completedAt !== undefined) set.completed_at = patch.completedAt;
      // One statement: the status check and the change are atomic (as backtests.transition).
      const row = await db
        .updateTable('purchases')
        .set(Object.keys(set).length > 0 ? set : (eb) => ({ status: eb.ref('status') }))
        .where('id', '=', id)
        .where('status', 'in', [...from])
        .returningAll()
        .executeTakeFirst();
      return row ? toPurchase(row) : null;
    },

    async deleteIf(buyerId, id, from) {
      if (from.length === 0) return false;
      const result = await db
        .deleteFrom('purchases')
        .where('id', '=', id)
        .where('buyer_id', '=', buyerId)
        .where('status', 'in', [...from])
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}
