import type { Selectable, Updateable } from 'kysely';
import type { ReviewRecord, ReviewRepository } from '@stratbox/core';
import type { ReviewsTable } from '../schema.js';
import type { QueryContext } from './query-context.js';

function toReview(row: Selectable<ReviewsTable>): ReviewRecord {
  return {
    id: row.id,
    listingId: row.listing_id,
    reviewerId: row.reviewer_id,
    rating: Number(row.rating),
    text: row.text,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Reviews; one per (listing, reviewer) by a unique constraint (`insertIfAbsent` never throws for it). */
export function createReviewRepository({ db, dialect }: QueryContext): ReviewRepository {
  return {
    async insertIfAbsent(r) {
      const row = await db
        .insertInto('reviews')
        .values({
          id: r.id,
          listing_id: r.listingId,
          reviewer_id: r.reviewerId,
          rating: r.rating,
          text: r.text,
          created_at: r.createdAt,
          updated_at: r.updatedAt,
        })
        .onConflict((oc) => oc.columns(['listing_id', 'reviewer_id']).doNothing())
        .returning('id')
        .executeTakeFirst();
      return row !== undefined;
    },

    async findByReviewer(reviewerId, id, options) {
      let query = db.selectFrom('reviews').selectAll().where('id', '=', id).where('reviewer_id', '=', reviewerId);
      if (options?.forUpdate && dialect === 'postgres') query = query.forUpdate();
      const row = await query.executeTakeFirst();
      return row ? toReview(row) : null;
    },

    async findByListing(reviewerId, listingId) {
      const row = await db.selectFrom('reviews').selectAll().where('listing_id', '=', listingId).where('reviewer_id', '=', reviewerId).executeTakeFirst();
      return row ? toReview(row) : null;
    },

    async update(reviewerId, id, patch) {
      const set: Updateable<ReviewsTable> = {};
      if (patch.rating !== undefined) set.rating = patch.rating;
      if (patch.text !== undefined) set.text = patch.text;
      if (patch.updatedAt !== undefined) set.updated_at = patch.updatedAt;
      const row =
        Object.keys(set).length > 0
          ? await db.updateTable('reviews').set(set).where('id', '=', id).where('reviewer_id', '=', reviewerId).returning('id').executeTakeFirst()
          : await db.selectFrom('reviews').select('id').where('id', '=', id).where('reviewer_id', '=', reviewerId).executeTakeFirst();
      return row !== undefined;
    },

    async listByListing(listingId, { limit, after }) {
      let query = db.selectFrom('reviews').selectAll().where('listing_id', '=', listingId);
      if (after) query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(after.createdAt, after.id)));
      const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
      return rows.map(toReview);
    },
  };
}
