import { sql, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { ListingRecord, ListingRepository, ListingStatus } from '@stratbox/core';
import type { Database, ListingsTable } from '../schema.js';
import { atomically, type QueryContext } from './query-context.js';

function toListing(row: Selectable<ListingsTable>): ListingRecord {
  return {
    id: row.id,
    sellerId: row.seller_id,
    strategyId: row.strategy_id,
    strategyVersion: row.strategy_version,
    name: row.name,
    description: row.description,
    price: Number(row.price),
    tags: JSON.parse(row.tags) as string[],
    ratingSum: Number(row.rating_sum),
    reviewCount: Number(row.review_count),
    purchaseCount: Number(row.purchase_count),
    status: row.status as ListingStatus,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** `%`, `_` and `\` of a search text matched literally (with `escape '\'`). */
const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * Listings and their tags. A listing's tags are kept twice: as the JSON array in the row (in
 * the order given) and one row each in `listing_tags` (for "all of these tags" queries); both
 * change in one transaction. Search compares lower-cased copies of name and description,
 * lowered in JavaScript so that Unicode folds as in the memory store, with `like` and an
 * explicit escape character (the same on SQLite and PostgreSQL).
 */
export function createListingRepository({ db, dialect }: QueryContext): ListingRepository {
  const replaceTags = async (trx: Kysely<Database>, listingId: string, tags: readonly string[]) => {
    await trx.deleteFrom('listing_tags').where('listing_id', '=', listingId).execute();
    const unique = [...new Set(tags)];
    if (unique.length > 0)
      await trx
        .insertInto('listing_tags')
        .values(unique.map((tag) => ({ listing_id: listingId, tag })))
        .execute();
  };

  return {
    async insert(l) {
      await atomically(db, async (trx) => {
        await trx
          .insertInto('listings')
          .values({
            id: l.id,
            seller_id: l.sellerId,
            strategy_id: l.strategyId,
            strategy_version: l.strategyVersion,
            name: l.name,
            description: l.description,
            name_search: l.name.toLowerCase(),
            description_search: l.description.toLowerCase(),
            price: l.price,
            tags: JSON.stringify(l.tags),
            rating_sum: l.ratingSum,
            review_count: l.reviewCount,
            purchase_count: l.purchaseCount,
            status: l.status,
            created_at: l.createdAt,
            updated_at: l.updatedAt,
          })
          .execute();
        await replaceTags(trx, l.id, l.tags);
      });
    },

    async findById(id) {
      const row = await db.selectFrom('listings').selectAll().where('id', '=', id).executeTakeFirst();
      return row ? toListing(row) : null;
    },

    async findBySeller(sellerId, id, options) {
      let query = db.selectFrom('listings').selectAll().where('id', '=', id).where('seller_id', '=', sellerId);
      if (options?.forUpdate && dialect === 'postgres') query = query.forUpdate();
      const row = await query.executeTakeFirst();
      return row ? toListing(row) : null;
    },

    async update(sellerId, id, patch) {
      const set: Updateable<ListingsTable> = {};
      if (patch.name !== undefined) {
        set.name = patch.name;
        set.name_search = patch.name.toLowerCase();
      }
      if (patch.description !== undefined) {
        set.description = patch.description;
        set.description_search = patch.description.toLowerCase();
      }
      if (patch.price !== undefined) set.price = patch.price;
      if (patch.tags !== undefined) set.tags = JSON.stringify(patch.tags);
      if (patch.strategyVersion !== undefined) set.strategy_version = patch.strategyVersion;
      if (patch.status !== undefined) set.status = patch.status;
      if (patch.updatedAt !== undefined) set.updated_at = patch.updatedAt;
      return atomically(db, async (trx) => {
        const result =
          Object.keys(set).length > 0
            ? await trx.updateTable('listings').set(set).where('id', '=', id).where('seller_id', '=', sellerId).returning('id').executeTakeFirst()
            : await trx.selectFrom('listings').select('id').where('id', '=', id).where('seller_id', '=', sellerId).executeTakeFirst();
        if (!result) return false;
        if (patch.tags !== undefined) await replaceTags(trx, id, patch.tags);
        return true;
      });
    },

    async search(criteria, { limit, after }) {
      let query = db.selectFrom('listings').selectAll().where('status', '=', 'listed');
      if (criteria.text !== undefined && criteria.text !== '') {
        const pattern = `%${escapeLike(criteria.text.toLowerCase())}%`;
        query = query.where(sql<boolean>`(name_search like ${pattern} escape '\\' or description_search like ${pattern} escape '\\')`);
      }
      const tags = [...new Set(criteria.tags ?? [])];
      if (tags.length > 0) {
        query = query.where('id', 'in', (eb) =>
          eb
            .selectFrom('listing_tags')
            .select('listing_id')
            .where('tag', 'in', tags)
            .groupBy('listing_id')
            .having((h) => h.fn.count('tag'), '=', tags.length),
        );
      }
      if (after) query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(after.createdAt, after.id)));
      const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
      return rows.map(toListing);
    },

    async listBySeller(sellerId, { limit, after }) {
      let query = db.selectFrom('listings').selectAll().where('seller_id', '=', sellerId).where('status', '=', 'listed');
      if (after) query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(after.createdAt, after.id)));
      const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
      return rows.map(toListing);
    },

    async listByStrategy(sellerId, strategyId) {
      const rows = await db
        .selectFrom('listings')
        .selectAll()
        .where('seller_id', '=', sellerId)
        .where('strategy_id', '=', strategyId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute();
      return rows.map(toListing);
    },

    async addRating(id, ratingDelta, countDelta) {
      const row = await db
        .updateTable('listings')
        .set((eb) => ({ rating_sum: eb('rating_sum', '+', ratingDelta), review_count: eb('review_count', '+', countDelta) }))
        .where('id', '=', id)
        .returning('id')
        .executeTakeFirst();
      return row !== undefined;
    },

    async incrementPurchaseCount(id) {
      const row = await db
        .updateTable('listings')
        .set((eb) => ({ purchase_count: eb('purchase_count', '+', 1) }))
        .where('id', '=', id)
        .returning('id')
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}
