import { sql, type Expression, type ExpressionBuilder, type Kysely, type Selectable, type SqlBool, type Updateable } from 'kysely';
import {
  BADGE_RANK,
  type ListingRecord,
  type ListingRecordSummary,
  type ListingRepository,
  type ListingSearchPosition,
  type ListingStatus,
} from '@stratbox/core';
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
    recordSummary: row.record_summary === null ? null : (JSON.parse(row.record_summary) as ListingRecordSummary),
  };
}

/** The summary's columns: the sort keys and badge rank for search, and the whole summary as JSON (all null for none). */
function summaryColumns(summary: ListingRecordSummary | null): Pick<Updateable<ListingsTable>, SummaryColumn | 'badge_rank' | 'record_summary'> {
  if (summary === null) return { forward_return: null, forward_sharpe: null, dsr: null, forward_days: null, badge_rank: null, record_summary: null };
  return {
    forward_return: summary.forwardReturn,
    forward_sharpe: summary.forwardSharpe,
    dsr: summary.dsr,
    forward_days: summary.forwardDays,
    badge_rank: BADGE_RANK[summary.badge],
    record_summary: JSON.stringify(summary),
  };
}

/** The column of each record sort key. */
const SORT_COLUMN = { forwardReturn: 'forward_return', forwardSharpe: 'forward_sharpe', dsr: 'dsr', forwardDays: 'forward_days' } as const;
type SummaryColumn = (typeof SORT_COLUMN)[keyof typeof SORT_COLUMN];

/**
 * Rows strictly after `after` in the order (column desc nulls last, created_at desc, id desc):
 * after a figure, the lower figures, the same figure with an older (created_at, id), and every
 * null; after a null, only nulls with an older (created_at, id).
 */
function afterInSortOrder(eb: ExpressionBuilder<Database, 'listings'>, column: SummaryColumn, after: ListingSearchPosition): Expression<SqlBool> {
  const older = eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(after.createdAt, after.id));
  const value = after.value ?? null;
  if (value === null) return eb.and([eb(column, 'is', null), older]);
  return eb.or([eb(column, '<', value), eb.and([eb(column, '=', value), older]), eb(column, 'is', null)]);
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
            ...summaryColumns(l.recordSummary ?? null),
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
      // A listing without a summary ranks 0 and has 0 forward days: a positive minimum excludes it.
      if (criteria.minBadgeRank !== undefined && criteria.minBadgeRank > 0) query = query.where('badge_rank', '>=', criteria.minBadgeRank);
      if (criteria.minForwardDays !== undefined && criteria.minForwardDays > 0) query = query.where('forward_days', '>=', criteria.minForwardDays);
      const sort = criteria.sort ?? 'newest';
      if (sort !== 'newest') {
        const column = SORT_COLUMN[sort];
        if (after) query = query.where((eb) => afterInSortOrder(eb, column, after));
        // Nulls last on both dialects (PostgreSQL puts them first in a descending order by default).
        query = query.orderBy(sql`${sql.ref(column)} desc nulls last`);
      } else if (after) {
        query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(after.createdAt, after.id)));
      }
      const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
      return rows.map(toListing);
    },

    async setRecordSummary(id, summary) {
      const row = await db.updateTable('listings').set(summaryColumns(summary)).where('id', '=', id).returning('id').executeTakeFirst();
      return row !== undefined;
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
